import type { ObjectRef } from '@pothos/core';
import type { SubgraphBuilder as Builder } from '@svc/platform';
import { findLegalDocument, LEGAL_DOCUMENTS, loadLegalDocument, sectionHeadings, type LoadedLegalDocument } from '../domain/legal-documents.js';

type Types = Builder extends PothosSchemaTypes.SchemaBuilder<infer X> ? X : never;

/** A legal document by id or by file name (`cms_mnda_v2026_03` or `cms_mnda_v2026_03.txt`), loaded; null when unknown. */
export async function legalDocumentByIdOrFileName(idOrFileName: string): Promise<LoadedLegalDocument | null> {
  const entry = findLegalDocument(idOrFileName) ?? LEGAL_DOCUMENTS.find((candidate) => candidate.file_name === idOrFileName);
  return entry ? loadLegalDocument(entry.id) : null;
}

/**
 * The legal document catalog (MNDA, BAA, consent forms; version v2026-03) with each text and its
 * SHA-256. Public: an applicant reads the agreements before having any credential.
 */
export function defineLegalDocuments(builder: Builder): ObjectRef<Types, LoadedLegalDocument> {
  const Kind = builder.enumType('LegalDocumentKind', {
    values: {
      MNDA: { value: 'mnda', description: 'Mutual Non-Disclosure Agreement.' },
      BAA: { value: 'baa', description: 'HIPAA Business Associate Agreement; e-signed with signBaa.' },
      CONSENT: { value: 'consent', description: 'A patient consent or authorization form.' },
    } as const,
  });

  const LegalDocument = builder.objectRef<LoadedLegalDocument>('LegalDocument').implement({
    description: 'A legal template. Texts are immutable per version: a reworded text is a new version with a new id.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'Stable id: the file name without its extension.' }),
      kind: t.field({ type: Kind, resolve: (d) => d.kind }),
      title: t.exposeString('title'),
      version: t.exposeString('version', { description: 'Template version, such as v2026-03.' }),
      fileName: t.exposeString('file_name', { description: 'Download name.' }),
      sections: t.exposeInt('sections', { description: 'Number of numbered top-level sections.' }),
      sectionHeadings: t.stringList({ description: 'The numbered section headings, in order.', resolve: (d) => sectionHeadings(d.content) }),
      term: t.exposeString('term', { nullable: true, description: 'How long the agreement lasts; null for consent forms.' }),
      governingLaw: t.exposeString('governing_law', { nullable: true }),
      summary: t.exposeString('summary'),
      sha256: t.exposeString('sha256', { description: 'Lower-case hex SHA-256 of the UTF-8 text: what a signature records.' }),
      byteLength: t.exposeInt('byte_length'),
      mediaType: t.exposeString('media_type'),
      content: t.exposeString('content', { description: 'The full text (UTF-8, LF line endings).' }),
    }),
  });

  builder.queryFields((t) => ({
    legalDocuments: t.field({
      type: [LegalDocument],
      description: 'Every legal document in force, in catalog order.',
      resolve: () => Promise.all(LEGAL_DOCUMENTS.map((entry) => loadLegalDocument(entry.id))),
    }),
    legalDocument: t.field({
      type: LegalDocument,
      nullable: true,
      description: 'One legal document by id or file name; null when unknown.',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, { id }) => legalDocumentByIdOrFileName(String(id)),
    }),
  }));

  return LegalDocument;
}

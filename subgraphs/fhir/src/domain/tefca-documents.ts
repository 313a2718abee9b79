import type { EntityManager } from '@mikro-orm/core';
import { DomainError, isPatientGpid, validationError, type TefcaDocumentContent, type TefcaDocumentMetadata } from '@svc/platform';
import { resourceStore } from '../entities/resource-store.js';
import { runSearch } from '../entities/search-query.js';
import { parseSearchRequest } from './search-request.js';
import { parseStoredResource } from './stored-content.js';
import type { FhirResource } from './validation.js';
import { GPID_SYSTEM } from './identity-link.js';

/**
 * TEFCA inbound document query and retrieve (IHE XCA ITI-38 / ITI-39, carried as JSON), answered
 * from this server's DocumentReference resources. The patient is named by the id a patient
 * discovery gave the peer: its GPID, which the identity link writes on our Patients
 * (`urn:svc:gpid`). A responding community answers for its whole population (the TEFCA framework,
 * not a partner's tenancy, governs the exchange), so these reads do not apply the caller's FHIR
 * read view; they disclose document metadata and content only, never the Patient resource.
 */

/** The most documents one query answers. */
export const MAX_DOCUMENTS = 100;
/** The most patients a Patient-by-GPID lookup considers (one GPID, several source records). */
const MAX_PATIENTS = 50;

/** A stored document's metadata, with the DocumentReference status. */
export type TefcaDocumentEntry = TefcaDocumentMetadata & { status: string | null };

/**
 * Our document repository id: the home community's OID with `.1` (an XCA repositoryUniqueId is an
 * OID; this server has one repository, its FHIR store).
 */
export function repositoryIdOf(homeCommunityId: string): string {
  return `${homeCommunityId.replace(/^urn:oid:/, '')}.1`;
}

interface Coding {
  system?: string;
  code?: string;
  display?: string;
}
interface Attachment {
  contentType?: string;
  data?: string;
  url?: string;
  size?: number;
  hash?: string;
  title?: string;
  creation?: string;
}

function firstAttachment(doc: FhirResource): Attachment | null {
  const content = (doc as { content?: { attachment?: Attachment }[] }).content;
  return content?.[0]?.attachment ?? null;
}

/** The entry of a DocumentReference. */
export function documentEntry(doc: FhirResource, homeCommunityId: string, patientId: string): TefcaDocumentEntry {
  const d = doc as { id?: string; description?: string; type?: { coding?: Coding[]; text?: string }; date?: string; status?: string };
  const attachment = firstAttachment(doc);
  const coding = d.type?.coding?.[0];
  return {
    homeCommunityId,
    repositoryId: repositoryIdOf(homeCommunityId),
    documentId: String(d.id),
    patientId,
    title: attachment?.title ?? d.description ?? d.type?.text ?? null,
    typeCode: coding?.code ?? null,
    typeSystem: coding?.system ?? null,
    typeDisplay: coding?.display ?? d.type?.text ?? null,
    contentType: attachment?.contentType ?? null,
    created: attachment?.creation ?? d.date ?? null,
    size: typeof attachment?.size === 'number' ? attachment.size : attachment?.data ? Buffer.from(attachment.data, 'base64').length : null,
    hash: attachment?.hash ?? null,
    status: d.status ?? null,
  };
}

/** The documents of the patient with this GPID (every Patient record carrying it), newest first. */
export async function queryDocuments(em: EntityManager, homeCommunityId: string, patientId: string, typeCodes: readonly string[]): Promise<TefcaDocumentEntry[]> {
  if (!isPatientGpid(patientId)) throw validationError([{ field: 'patient_id', message: 'must be a patient id of this community (a GPID, SVC- and 8 hex digits)' }], 'patient_id is not a patient id of this community.');
  const patients = await runSearch(em, parseSearchRequest('Patient', { identifier: [`${GPID_SYSTEM}|${patientId}`], _count: [String(MAX_PATIENTS)] }, false), undefined);
  if (patients.rows.length === 0) return [];
  const subjects = patients.rows.map((p) => `Patient/${p.id}`).join(',');
  const query: Record<string, string[]> = { subject: [subjects], _count: [String(MAX_DOCUMENTS)], _sort: ['-_lastUpdated'] };
  const docs = await runSearch(em, parseSearchRequest('DocumentReference', query, false), undefined);
  const types = new Set(typeCodes);
  return docs.rows
    .map((r) => parseStoredResource(r.content!))
    .filter((doc) => (doc as { status?: string }).status !== 'entered-in-error')
    .map((doc) => documentEntry(doc, homeCommunityId, patientId))
    .filter((entry) => types.size === 0 || (entry.typeCode !== null && types.has(entry.typeCode)));
}

/** The content of a document: inline attachment data, or the Binary its attachment URL names. */
export async function retrieveDocument(em: EntityManager, homeCommunityId: string, askedCommunityId: string, repositoryId: string, documentId: string): Promise<TefcaDocumentContent> {
  const missing = () => new DomainError('NOT_FOUND', `No document ${documentId.slice(0, 64)} in repository ${repositoryId.slice(0, 80)} of community ${askedCommunityId.slice(0, 80)}.`);
  if (askedCommunityId !== homeCommunityId || repositoryId !== repositoryIdOf(homeCommunityId)) throw missing();
  if (!/^[A-Za-z0-9\-.]{1,64}$/.test(documentId)) throw missing();
  const stored = await resourceStore.current(em, 'DocumentReference', documentId);
  if (!stored?.content) throw missing();
  const attachment = firstAttachment(parseStoredResource(stored.content));
  if (!attachment) throw missing();
  let data = attachment.data ?? null;
  let contentType = attachment.contentType ?? null;
  if (data === null && attachment.url) {
    // A relative `Binary/<id>` or an absolute URL of this server's Binary.
    const m = /(?:^|\/)Binary\/([A-Za-z0-9\-.]{1,64})$/.exec(attachment.url);
    const binary = m ? await resourceStore.current(em, 'Binary', m[1]!) : null;
    if (binary?.content) {
      const b = parseStoredResource(binary.content) as { data?: string; contentType?: string };
      data = b.data ?? null;
      contentType = contentType ?? b.contentType ?? null;
    }
  }
  if (data === null) throw missing();
  return { homeCommunityId, repositoryId, documentId, contentType: contentType ?? 'application/octet-stream', data, size: Buffer.from(data, 'base64').length };
}

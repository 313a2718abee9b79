import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { DomainError } from '@svc/platform';

/** Version of the legal templates in force. A reworded text is a new version, never an edit. */
export const LEGAL_TEMPLATE_VERSION = 'v2026-03';

/** The kinds of legal document a partner downloads, accepts or signs. */
export type LegalDocumentKind = 'mnda' | 'baa' | 'consent';

/** One entry of the legal document catalog. */
export interface LegalDocumentEntry {
  /** Stable id: the file name without its extension. */
  id: string;
  kind: LegalDocumentKind;
  title: string;
  version: string;
  /** File name under `subgraphs/partner/legal/`, also the download name. */
  file_name: string;
  /** Number of numbered top-level sections in the text. */
  sections: number;
  /** How long the agreement lasts, for agreements; `null` for consent forms. */
  term: string | null;
  /** The law that governs the agreement, for agreements; `null` for consent forms. */
  governing_law: string | null;
  /** One sentence on what the document is for. */
  summary: string;
}

/** The legal documents of the partner ecosystem, version {@link LEGAL_TEMPLATE_VERSION}. */
export const LEGAL_DOCUMENTS: readonly LegalDocumentEntry[] = [
  {
    id: 'cms_mnda_v2026_03',
    kind: 'mnda',
    title: 'Mutual Non-Disclosure Agreement',
    version: LEGAL_TEMPLATE_VERSION,
    file_name: 'cms_mnda_v2026_03.txt',
    sections: 10,
    term: '2 years, plus 3 years survival of confidentiality obligations',
    governing_law: 'State of Delaware',
    summary: 'Protects confidential information exchanged while evaluating and building the integration; accepted when applying.',
  },
  {
    id: 'cms_hipaa_baa_v2026_03',
    kind: 'baa',
    title: 'HIPAA Business Associate Agreement',
    version: LEGAL_TEMPLATE_VERSION,
    file_name: 'cms_hipaa_baa_v2026_03.txt',
    sections: 8,
    term: 'Until all PHI is returned or destroyed',
    governing_law: '45 CFR Parts 160 and 164 (HIPAA Rules)',
    summary: 'Governs protected health information handled on the partner\'s behalf; accepted when applying and e-signed on the /legal page.',
  },
  {
    id: 'consent_data_sharing_v2026_03',
    kind: 'consent',
    title: 'Consent to Share Health Information',
    version: LEGAL_TEMPLATE_VERSION,
    file_name: 'consent_data_sharing_v2026_03.txt',
    sections: 7,
    term: null,
    governing_law: null,
    summary: 'Patient consent form for sharing health information through the network for treatment, payment and required reporting.',
  },
  {
    id: 'consent_research_use_v2026_03',
    kind: 'consent',
    title: 'Authorization to Use Health Information for Research',
    version: LEGAL_TEMPLATE_VERSION,
    file_name: 'consent_research_use_v2026_03.txt',
    sections: 8,
    term: null,
    governing_law: null,
    summary: 'Patient authorization under 45 CFR 164.508 for the use of health information in an approved research study.',
  },
];

/** A catalog entry together with its text and the digest that a signature records. */
export interface LoadedLegalDocument extends LegalDocumentEntry {
  /** The text, UTF-8, with LF line endings. */
  content: string;
  /** Lower-case hex SHA-256 of `content` encoded as UTF-8. */
  sha256: string;
  /** Size of `content` in UTF-8 bytes. */
  byte_length: number;
  media_type: 'text/plain; charset=utf-8';
}

/** The catalog entry with this id, or `undefined`. */
export function findLegalDocument(id: string): LegalDocumentEntry | undefined {
  return LEGAL_DOCUMENTS.find((entry) => entry.id === id);
}

/**
 * The catalog entry with this id.
 * @throws DomainError `NOT_FOUND` for an unknown id.
 */
export function getLegalDocument(id: string): LegalDocumentEntry {
  const entry = findLegalDocument(id);
  if (!entry) throw new DomainError('NOT_FOUND', `No legal document has the id "${id}".`, { details: { document_id: id } });
  return entry;
}

/** The document of this kind in the current template version (for consent forms, the first one). */
export function currentLegalDocument(kind: LegalDocumentKind): LegalDocumentEntry {
  const entry = LEGAL_DOCUMENTS.find((candidate) => candidate.kind === kind && candidate.version === LEGAL_TEMPLATE_VERSION);
  if (!entry) throw new DomainError('INTERNAL', `The legal catalog has no ${kind} of version ${LEGAL_TEMPLATE_VERSION}.`);
  return entry;
}

/** Location of a legal text file, resolved from this module so it works from any working directory. */
export function legalDocumentUrl(fileName: string): URL {
  if (!/^[a-z0-9_]+\.txt$/u.test(fileName)) throw new RangeError(`Not a legal document file name: ${fileName}`);
  return new URL(`../../legal/${fileName}`, import.meta.url);
}

/** Lower-case hex SHA-256 of the UTF-8 encoding of `text`. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Normalize a legal text before hashing: a checkout may have turned LF into CRLF, and a signature
 * must not depend on that, so line endings become LF and a leading byte-order mark is dropped.
 */
export function canonicalLegalText(raw: string): string {
  return raw.replace(/^\uFEFF/u, '').replace(/\r\n?/gu, '\n');
}

/** The numbered top-level section headings of a legal text (`1. PURPOSE`), in order. */
export function sectionHeadings(text: string): string[] {
  return [...text.matchAll(/^(\d+)\.[ \t]+([A-Z][A-Z0-9 ,;&'()/-]*)$/gmu)].map((match) => `${match[1]}. ${match[2]?.trim()}`);
}

const loaded = new Map<string, Promise<LoadedLegalDocument>>();

async function readLegalDocument(entry: LegalDocumentEntry): Promise<LoadedLegalDocument> {
  const content = canonicalLegalText(await readFile(legalDocumentUrl(entry.file_name), 'utf8'));
  return {
    ...entry,
    content,
    sha256: sha256Hex(content),
    byte_length: Buffer.byteLength(content, 'utf8'),
    media_type: 'text/plain; charset=utf-8',
  };
}

/**
 * Read a legal document and compute its SHA-256, the digest a BAA e-signature records. The files are
 * immutable for a version, so each is read once per process.
 * @throws DomainError `NOT_FOUND` for an unknown id.
 */
export function loadLegalDocument(id: string): Promise<LoadedLegalDocument> {
  const entry = getLegalDocument(id);
  let pending = loaded.get(entry.id);
  if (!pending) {
    pending = readLegalDocument(entry);
    // A failed read (a missing file in a broken deployment) is not cached, so a fix takes effect.
    pending.catch(() => loaded.delete(entry.id));
    loaded.set(entry.id, pending);
  }
  return pending.then((document) => ({ ...document }));
}

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DomainError, type DocumentPrincipalClass, type Principal, type TrustedDocumentsMode } from '@svc/platform';
import type { Counter } from 'prom-client';

/** The portal's manifest, written by its build (portal/trusted-documents.ts). */
export const PORTAL_TRUSTED_DOCUMENTS = fileURLToPath(new URL('../../portal/trusted-documents.json', import.meta.url));

const SHA256_HEX = /^[0-9a-f]{64}$/;
/** Document texts whose listing is remembered (past this the memory starts over), and the longest remembered. */
const REMEMBERED_TEXTS = 1_000;
const REMEMBERED_TEXT_MAX = 16 * 1024;

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Read manifests (`{ "<sha256 hex>": "<document>" }`, the GraphQL Code Generator's
 * persisted-documents format) into one map. A key that is not the SHA-256 of its text fails the
 * start: the id is what clients send, and the text is what runs.
 */
export function loadTrustedDocuments(paths: readonly string[]): ReadonlyMap<string, string> {
  const documents = new Map<string, string>();
  for (const path of paths) {
    const manifest = JSON.parse(readFileSync(path, 'utf8')) as unknown;
    if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) throw new Error(`${path}: a trusted-documents manifest is a JSON object of id → document.`);
    for (const [id, text] of Object.entries(manifest)) {
      if (typeof text !== 'string' || !SHA256_HEX.test(id) || sha256(text) !== id) throw new Error(`${path}: entry ${id.slice(0, 80)} is not the SHA-256 (hex) of its document.`);
      documents.set(id, text);
    }
  }
  return documents;
}

/** What a GraphQL request names as its document: text, a trusted document's id, an APQ hash. */
export interface DocumentReference {
  query: unknown;
  documentId: unknown;
  persistedQuery: unknown;
}

/** How the request goes on: unchanged, or with the trusted document's text in place of its id or hash. */
export type DocumentResolution = { kind: 'unchanged' } | { kind: 'listed'; query: string };

/**
 * Trusted documents at the public /graphql. A listed document may be sent by id (`documentId`,
 * bare hex or `sha256:<hex>`), by its APQ hash, or as its text; what else may run depends on the
 * caller's principal class and its mode (off, allow, require). APQ hashes that do not match their
 * text are refused here, with a code of their own, before Apollo stores anything.
 */
export class TrustedDocumentPolicy {
  /**
   * Whether a document text is listed, for the texts seen lately: a SHA-256 of the text per request
   * showed in the gateway's CPU profile, and callers send the same few texts again and again.
   */
  private readonly listedTexts = new Map<string, boolean>();

  constructor(
    private readonly documents: ReadonlyMap<string, string>,
    private readonly modes: Readonly<Record<DocumentPrincipalClass, TrustedDocumentsMode>>,
    private readonly untrusted?: Counter<'principal_class' | 'outcome'>,
  ) {}

  get size(): number {
    return this.documents.size;
  }

  /** Resolve and check one HTTP request's document for `principal`; throws the refusal. */
  resolve(request: DocumentReference, principal: Pick<Principal, 'kind'>): DocumentResolution {
    const { query, documentId, persistedQuery } = request;
    if (documentId !== undefined) {
      if (typeof documentId !== 'string' || documentId === '') throw fieldError('BAD_REQUEST', 'documentId', 'documentId must be a non-empty string.');
      if (query !== undefined) throw fieldError('BAD_REQUEST', 'documentId', 'Send either documentId or query, not both.');
      const id = documentId.startsWith('sha256:') ? documentId.slice('sha256:'.length) : documentId;
      const text = this.documents.get(id);
      if (text === undefined) throw fieldError('PERSISTED_QUERY_NOT_LISTED', 'documentId', `No trusted document has the id ${documentId.slice(0, 80)}.`);
      return { kind: 'listed', query: text };
    }
    const hash = apqHash(persistedQuery);
    if (hash !== undefined) {
      if (typeof query === 'string') {
        if (sha256(query) !== hash) throw fieldError('PERSISTED_QUERY_HASH_MISMATCH', 'extensions.persistedQuery.sha256Hash', 'extensions.persistedQuery.sha256Hash is not the SHA-256 of the query.');
        return this.decide(this.documents.has(hash), principal);
      }
      const text = this.documents.get(hash);
      // A trusted document's id is its APQ hash: it is answered from the manifest, never missed.
      if (text !== undefined) return { kind: 'listed', query: text };
      return this.decide(false, principal);
    }
    if (typeof query === 'string') return this.decide(this.listed(query), principal);
    return { kind: 'unchanged' };
  }

  /** The check for an operation sent as text over graphql-ws. */
  checkText(query: string, principal: Pick<Principal, 'kind'>): void {
    this.decide(this.listed(query), principal);
  }

  private listed(text: string): boolean {
    const known = this.listedTexts.get(text);
    if (known !== undefined) return known;
    const listed = this.documents.has(sha256(text));
    if (text.length <= REMEMBERED_TEXT_MAX) {
      if (this.listedTexts.size >= REMEMBERED_TEXTS) this.listedTexts.clear();
      this.listedTexts.set(text, listed);
    }
    return listed;
  }

  private decide(listed: boolean, principal: Pick<Principal, 'kind'>): DocumentResolution {
    if (listed) return { kind: 'unchanged' };
    const mode = this.modes[principal.kind];
    if (mode === 'off') return { kind: 'unchanged' };
    this.untrusted?.inc({ principal_class: principal.kind, outcome: mode === 'allow' ? 'run' : 'refused' });
    if (mode === 'allow') return { kind: 'unchanged' };
    throw new DomainError('TRUSTED_DOCUMENT_REQUIRED', `This deployment runs only its trusted documents for ${principal.kind} callers: send the documentId of a listed document.`, {
      details: { principalClass: principal.kind },
    });
  }
}

/** The hash of a version-1 `extensions.persistedQuery`; anything else is left to Apollo to answer. */
function apqHash(persistedQuery: unknown): string | undefined {
  if (typeof persistedQuery !== 'object' || persistedQuery === null) return undefined;
  const { version, sha256Hash } = persistedQuery as { version?: unknown; sha256Hash?: unknown };
  return version === 1 && typeof sha256Hash === 'string' ? sha256Hash : undefined;
}

function fieldError(code: 'BAD_REQUEST' | 'PERSISTED_QUERY_NOT_LISTED' | 'PERSISTED_QUERY_HASH_MISMATCH', field: string, message: string): DomainError {
  return new DomainError(code, message, { fieldErrors: [{ field, message }], details: { field } });
}

import type { Principal } from '../auth/principal.js';

/**
 * What the gateway's public /graphql does with an operation that is not one of the trusted
 * documents (the manifests built from our own clients, e.g. the portal's):
 * - `off`: runs it, as any other;
 * - `allow`: runs it and counts it (`svc_graphql_untrusted_documents_total{outcome="run"}`), so an
 *   operator can see who would be refused before turning `require` on;
 * - `require`: refuses it (`TRUSTED_DOCUMENT_REQUIRED`, HTTP 403).
 * A listed document passes in every mode, by its id (`documentId`), as APQ hash, or as its full text.
 */
export type TrustedDocumentsMode = 'off' | 'allow' | 'require';
export const TRUSTED_DOCUMENTS_MODES: readonly TrustedDocumentsMode[] = ['off', 'allow', 'require'];

/** The principal classes the setting names: a Principal's `kind` (portal sessions apart from partner credentials). */
export type DocumentPrincipalClass = Principal['kind'];
export const DOCUMENT_PRINCIPAL_CLASSES: readonly DocumentPrincipalClass[] = ['anonymous', 'portal', 'partner', 'service'];

export interface GraphQLDocumentSettings {
  /** Per principal class (`SVC_GRAPHQL_TRUSTED_DOCUMENTS`); `off` for every class by default. */
  trusted: Readonly<Record<DocumentPrincipalClass, TrustedDocumentsMode>>;
  /** More manifests (`{ "<sha256>": "<document>" }` JSON files) listed beside the portal's (`SVC_GRAPHQL_TRUSTED_DOCUMENTS_MANIFESTS`). */
  manifests: readonly string[];
  /**
   * Automatic persisted queries (Apollo's `extensions.persistedQuery`): on by default; the store
   * keeps at most `maxEntries` documents and `maxBytes` of their text, each for `ttlSeconds` after
   * its last use. In Redis (distributed mode) the store is shared by every gateway replica.
   */
  apq: { enabled: boolean; maxEntries: number; maxBytes: number; ttlSeconds: number };
}

export const DEFAULT_APQ_SETTINGS: GraphQLDocumentSettings['apq'] = Object.freeze({ enabled: true, maxEntries: 10_000, maxBytes: 16 * 1024 * 1024, ttlSeconds: 86_400 });

/**
 * `SVC_GRAPHQL_TRUSTED_DOCUMENTS`: one mode for every class (`require`), or entries separated by
 * commas, `class=mode` for a class and a bare mode for the others
 * (`allow,anonymous=require,portal=require`). Classes: anonymous, portal, partner, service.
 */
export function parseTrustedDocumentsModes(value: string | undefined, problems: string[]): Record<DocumentPrincipalClass, TrustedDocumentsMode> {
  const modes: Record<DocumentPrincipalClass, TrustedDocumentsMode> = { anonymous: 'off', portal: 'off', partner: 'off', service: 'off' };
  if (value === undefined) return modes;
  const named: Partial<Record<DocumentPrincipalClass, TrustedDocumentsMode>> = {};
  for (const entry of value.split(',').map((e) => e.trim()).filter(Boolean)) {
    const [left, right] = entry.includes('=') ? entry.split('=', 2).map((s) => s.trim()) : [undefined, entry];
    if (!TRUSTED_DOCUMENTS_MODES.includes(right as TrustedDocumentsMode) || (left !== undefined && !DOCUMENT_PRINCIPAL_CLASSES.includes(left as DocumentPrincipalClass))) {
      problems.push(
        `SVC_GRAPHQL_TRUSTED_DOCUMENTS must be a mode (${TRUSTED_DOCUMENTS_MODES.join(', ')}) or entries class=mode with class one of ${DOCUMENT_PRINCIPAL_CLASSES.join(', ')} (got "${entry}")`,
      );
      continue;
    }
    if (left === undefined) for (const c of DOCUMENT_PRINCIPAL_CLASSES) modes[c] = right as TrustedDocumentsMode;
    else named[left as DocumentPrincipalClass] = right as TrustedDocumentsMode;
  }
  return { ...modes, ...named };
}

type IntReader = (name: string, fallback: number, min: number, max: number) => number;

/** The settings from the environment readers of `loadConfig`. */
export function readGraphQLDocumentSettings(str: (name: string) => string | undefined, int: IntReader, onOff: (name: string, fallback: 'on' | 'off') => 'on' | 'off', problems: string[]): GraphQLDocumentSettings {
  const d = DEFAULT_APQ_SETTINGS;
  return {
    trusted: parseTrustedDocumentsModes(str('SVC_GRAPHQL_TRUSTED_DOCUMENTS'), problems),
    manifests: (str('SVC_GRAPHQL_TRUSTED_DOCUMENTS_MANIFESTS') ?? '').split(',').map((p) => p.trim()).filter(Boolean),
    apq: {
      enabled: onOff('SVC_GRAPHQL_APQ', 'on') === 'on',
      maxEntries: int('SVC_GRAPHQL_APQ_MAX_ENTRIES', d.maxEntries, 1, 10_000_000),
      maxBytes: int('SVC_GRAPHQL_APQ_MAX_BYTES', d.maxBytes, 1024, 4 * 1024 * 1024 * 1024),
      ttlSeconds: int('SVC_GRAPHQL_APQ_TTL_SECONDS', d.ttlSeconds, 1, 30 * 86_400),
    },
  };
}

/**
 * Who is calling. Authentication produces exactly one Principal per request; every authorization
 * decision downstream reads it and nothing else.
 */
export interface Principal {
  /**
   * partner: a partner's API token or OAuth access token; service: a platform-operated credential
   * (the bootstrap operator, internal jobs); portal: a partner portal session; anonymous: no credential.
   */
  kind: 'partner' | 'service' | 'portal' | 'anonymous';
  /** The CMS GPID of the partner the credential belongs to (the operator partner for service credentials). */
  partnerGpid: string | null;
  /** The OAuth client behind an access token. */
  clientId?: string;
  /** The API token (tok_…) or session behind the request. */
  tokenId?: string;
  scopes: readonly string[];
}

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', partnerGpid: null, scopes: Object.freeze([]) as readonly string[] });

export function isAuthenticated(principal: Principal): boolean {
  return principal.kind !== 'anonymous';
}

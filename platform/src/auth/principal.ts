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
  /**
   * The caller's network address as our own edge saw it (the gateway's public /graphql), so a
   * subgraph may count sign-in failures per address. Set only by the gateway; callers cannot name it.
   */
  clientAddress?: string;
  /**
   * When the credential itself expires (Unix epoch milliseconds); absent for credentials without an
   * expiry. A signed principal never outlives it, and a WebSocket connection is closed at that instant.
   */
  credentialExpiresAt?: number;
  /**
   * SMART launch context: the FHIR Patient id the credential is bound to (an OAuth client registered
   * with a `patient`, carried in its access tokens as the `patient` claim). When set, the FHIR server
   * narrows every access of this credential to that patient's compartment.
   */
  patient?: string;
}

export const ANONYMOUS: Principal = Object.freeze({ kind: 'anonymous', partnerGpid: null, scopes: Object.freeze([]) as readonly string[] });

export function isAuthenticated(principal: Principal): boolean {
  return principal.kind !== 'anonymous';
}

/** Carried only by {@link FACADE_PRINCIPAL}; never granted to a credential. */
export const FACADE_SCOPE = 'svc.facade';

/**
 * The REST facade calling for an anonymous caller on a public route that opted in. It has no more
 * power than {@link ANONYMOUS} (it is not authenticated and holds no product scope); it only lets a
 * subgraph trust what the facade observed about the request, such as the client address the
 * sign-in throttle counts. Callers of /graphql can never present it: the gateway gives them
 * ANONYMOUS, and a forwarded principal needs the deployment's internal secret.
 */
export const FACADE_PRINCIPAL: Principal = Object.freeze({ kind: 'anonymous', partnerGpid: null, scopes: Object.freeze([FACADE_SCOPE]) as readonly string[] });

/** True when the request comes from the REST facade acting for an anonymous caller. */
export function isFacadePrincipal(principal: Principal): boolean {
  return principal.kind === 'anonymous' && principal.scopes.includes(FACADE_SCOPE);
}

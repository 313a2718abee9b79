import type { EntityManager } from '@mikro-orm/core';
import { hasScope, isValidScope, parseScopeString } from '@svc/platform';
import { partners } from '../entities/partners.js';
import { signAccessToken, type IssuedAccessToken } from './access-token.js';
import { authenticateClient, type PresentedClientCredentials } from './client-authentication.js';
import { oauthError } from './oauth-errors.js';
import type { SigningKeyRing } from './signing-key-ring.js';

/** The grant types the token endpoint serves. */
export const SUPPORTED_GRANT_TYPES = ['client_credentials'] as const;

/** The SMART scope that asks for a patient launch context. */
export const LAUNCH_PATIENT = 'launch/patient';

/** A token request (RFC 6749 §4.4.2) with the client's credentials. */
export interface TokenRequest extends PresentedClientCredentials {
  grantType?: string | null;
  /** Space-separated; absent means every scope the client is registered for. */
  scope?: string | null;
}

/** Where this authorization server lives: `iss` of its tokens, and its token endpoint URL. */
export interface AuthorizationServerUrls {
  issuer: string;
  tokenEndpoint: string;
}

/**
 * The scopes to grant: the requested ones (RFC 6749 §3.3), each covered by the client's
 * registration and still by its partner's grant (which an operator may have narrowed since).
 * `launch/patient` is the one exception: it is granted to a client registered with a patient
 * context (whose tokens carry it anyway) and refused to any other.
 */
function grantedScopes(requested: string | null | undefined, clientScopes: readonly string[], partnerGrant: readonly string[], patient: string | null): string[] {
  const wanted = requested == null ? [...clientScopes] : parseScopeString(requested);
  if (requested != null && wanted.length === 0) throw oauthError('invalid_scope', 'scope is empty; leave it out to get every scope the client is registered for.');
  const malformed = wanted.filter((s) => !isValidScope(s));
  if (malformed.length > 0) throw oauthError('invalid_scope', `Malformed scopes: ${malformed.join(', ')}.`, { invalid_scopes: malformed });
  // SMART `launch/patient` asks for a patient context: granted exactly when the client has one.
  if (wanted.includes(LAUNCH_PATIENT) && patient === null) {
    throw oauthError('invalid_scope', `${LAUNCH_PATIENT}: this client has no patient context (register it with a patient).`, { invalid_scopes: [LAUNCH_PATIENT] });
  }
  const beyond = wanted.filter((s) => s !== LAUNCH_PATIENT && (!hasScope(clientScopes, s) || !hasScope(partnerGrant, s)));
  if (beyond.length > 0) throw oauthError('invalid_scope', `The client may not request: ${beyond.join(', ')}.`, { invalid_scopes: beyond });
  return wanted;
}

/**
 * The client_credentials grant (RFC 6749 §4.4): authenticate the client, check the grant type and
 * scopes, sign a JWT access token (RFC 9068) with the current key.
 */
export async function exchangeClientCredentials(em: EntityManager, keys: SigningKeyRing, request: TokenRequest, urls: AuthorizationServerUrls, now: Date): Promise<IssuedAccessToken> {
  if (request.grantType == null || request.grantType === '') throw oauthError('invalid_request', 'grant_type is required.');
  if (!(SUPPORTED_GRANT_TYPES as readonly string[]).includes(request.grantType)) {
    throw oauthError('unsupported_grant_type', `grant_type ${request.grantType} is not supported; use ${SUPPORTED_GRANT_TYPES.join(', ')}.`);
  }
  const client = await authenticateClient(em, request, urls, now);
  if (client.revokedAt) throw oauthError('invalid_client', 'This client has been revoked.');
  const partner = await partners.byGpid(em, client.partnerGpid);
  if (!partner || partner.status !== 'active') throw oauthError('unauthorized_client', 'The partner of this client is not active.');
  const scopes = grantedScopes(request.scope, client.scopes, partner.grantedScopes, client.patient ?? null);
  const key = await keys.current(em, now);
  return signAccessToken(key, { issuer: urls.issuer, audience: urls.issuer, client, scopes }, now);
}

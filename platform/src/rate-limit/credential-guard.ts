import { decodeJwt } from 'jose';
import { ANONYMOUS, type Principal } from '../auth/principal.js';
import { sha256Hex } from '../auth/secrets.js';
import { DomainError } from '../errors.js';
import { rateLimitedError, type RateLimiter } from './limiter.js';

/**
 * How failed authentications are counted without letting one client lock out another's valid
 * credentials behind the same address (a NAT, a hospital's egress proxy):
 *
 * - Bearer failures count per client address. Once an address has failed 30 times in a minute, a
 *   credential from it is accepted only if it is provably valid without a database query: an
 *   opaque token in the gateway's positive cache, or an OAuth access token that verifies locally
 *   against the already-loaded signing keys. Anything else is refused at once, so a flood of
 *   made-up tokens costs a counter read each, never a lookup.
 * - Failed client authentications at the token endpoint count per client_id and per address. A
 *   client_id with 10 failures in a minute is refused; an address with 30 is refused for every
 *   client that has not obtained a token within the last hour. A client_id + secret that succeeded
 *   within the hour is never refused by either count.
 */

/** What the guard needs of the authenticator. */
export interface BearerAuthenticator {
  authenticate(authorization: string | undefined, requestId: string): Promise<Principal>;
  /** The principal when it is provable without a database query (cached, or verifiable locally); else null. */
  authenticateWithoutLookup(authorization: string | undefined, requestId: string): Promise<Principal | null>;
}

const isAuthFailure = (err: unknown) => err instanceof DomainError && (err.code === 'INVALID_TOKEN' || err.code === 'UNAUTHENTICATED');

/** Authenticate a bearer under the keying rule above; throws RATE_LIMITED (policy auth_failures) for a blocked address. */
export async function authenticateBearer(
  limiter: RateLimiter | null,
  clientAddress: string,
  authorization: string | undefined,
  requestId: string,
  authenticator: BearerAuthenticator,
): Promise<Principal> {
  if (authorization === undefined || authorization.trim() === '') return ANONYMOUS;
  const blocked = limiter ? await limiter.authFailuresExceeded(clientAddress) : null;
  if (blocked) {
    const known = await authenticator.authenticateWithoutLookup(authorization, requestId).catch((err: unknown) => {
      if (isAuthFailure(err)) return null;
      throw err;
    });
    if (known) return known;
    throw rateLimitedError(blocked);
  }
  try {
    return await authenticator.authenticate(authorization, requestId);
  } catch (err) {
    if (isAuthFailure(err)) await limiter?.recordAuthFailure(clientAddress);
    throw err;
  }
}

/** The client an OAuth token request claims to be, read from its AccessTokenRequestInput before verification. */
export interface ClientClaim {
  clientId: string | null;
  /** SHA-256 of `client_id:client_secret` for the secret methods; null for private_key_jwt. */
  secretHash: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

export function claimedClient(input: unknown): ClientClaim {
  const fields = (input !== null && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  let clientId = text(fields['basicClientId']) ?? text(fields['clientId']);
  const secret = text(fields['basicClientSecret']) ?? text(fields['clientSecret']);
  const assertion = text(fields['clientAssertion']);
  if (clientId === null && assertion !== null) {
    try {
      const claims = decodeJwt(assertion);
      clientId = text(claims.sub) ?? text(claims.iss);
    } catch {
      clientId = null;
    }
  }
  if (clientId !== null && clientId.length > 200) clientId = clientId.slice(0, 200);
  return { clientId, secretHash: clientId !== null && secret !== null ? sha256Hex(`${clientId}:${secret}`) : null };
}

/** The subject a token request's counters are kept for: its claimed client, else its address. */
export function clientSubject(claim: ClientClaim, clientAddress: string): string {
  return claim.clientId !== null ? `client:${claim.clientId}` : `ip:${clientAddress}`;
}

/** Refuse a token request before any lookup when its client or its address has failed too often (rule above). */
export async function admitClientAuthentication(limiter: RateLimiter | null, clientAddress: string, claim: ClientClaim): Promise<void> {
  if (!limiter) return;
  if (claim.secretHash !== null && (await limiter.isKnownValid('client-secret', claim.secretHash))) return;
  if (claim.clientId !== null) {
    const clientBlocked = await limiter.clientFailuresExceeded(claim.clientId);
    if (clientBlocked) throw rateLimitedError(clientBlocked);
  }
  const addressBlocked = await limiter.authFailuresExceeded(clientAddress);
  if (addressBlocked && !(claim.clientId !== null && (await limiter.isKnownValid('client', claim.clientId)))) throw rateLimitedError(addressBlocked);
}

/** Count a token request's outcome: a failure against its client and its address, a success as known valid. */
export async function recordClientAuthentication(limiter: RateLimiter | null, clientAddress: string, claim: ClientClaim, succeeded: boolean): Promise<void> {
  if (!limiter) return;
  if (succeeded) {
    if (claim.clientId !== null) await limiter.markKnownValid('client', claim.clientId);
    if (claim.secretHash !== null) await limiter.markKnownValid('client-secret', claim.secretHash);
    return;
  }
  if (claim.clientId !== null) await limiter.recordClientFailure(claim.clientId);
  await limiter.recordAuthFailure(clientAddress);
}

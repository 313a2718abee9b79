import type { EntityManager } from '@mikro-orm/core';
import { createLocalJWKSet, decodeJwt, jwtVerify, type JSONWebKeySet } from 'jose';
import { isId, safeEqual, sha256Hex } from '@svc/platform';
import type { OAuthClient, TokenEndpointAuthMethod } from '../entities/oauth-client.js';
import { oauthClients } from '../entities/oauth-clients.js';
import { clientAssertions } from '../entities/client-assertions.js';
import { CLIENT_ASSERTION_ALGORITHMS } from './client-jwks.js';
import { oauthError } from './oauth-errors.js';

/** RFC 7523 §2.2: the only client assertion type accepted. */
export const JWT_BEARER_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/** A client assertion may be valid for at most this long (SMART Backend Services: 5 minutes). */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

const CLOCK_SKEW_SECONDS = 60;

/** The client credentials a token request carries, as received; at most one method may be used. */
export interface PresentedClientCredentials {
  /** From `Authorization: Basic` (already form-decoded, RFC 6749 §2.3.1). */
  basic?: { clientId: string; clientSecret: string } | null;
  /** Form parameters. */
  clientId?: string | null;
  clientSecret?: string | null;
  clientAssertionType?: string | null;
  clientAssertion?: string | null;
}

/** Where assertions must be addressed: the token endpoint URL, or the issuer (RFC 7523 §3 allows either). */
export interface AssertionAudience {
  tokenEndpoint: string;
  issuer: string;
}

function present(value: string | null | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}

// One message for every failure to authenticate, so it tells nothing about which clients exist.
const invalidClient = (why = 'Client authentication failed.') => oauthError('invalid_client', why);

function requireMethod(client: OAuthClient, used: TokenEndpointAuthMethod): void {
  if (client.tokenEndpointAuthMethod !== used) {
    throw oauthError('invalid_client', `This client is registered for ${client.tokenEndpointAuthMethod}, not ${used}.`);
  }
}

/** The current secret, or the one before the last rotation while its grace period lasts. */
function secretMatches(client: OAuthClient, presentedHash: string, now: Date): boolean {
  const current = client.secretHash !== null && safeEqual(presentedHash, client.secretHash);
  const previous =
    client.previousSecretHash !== null && client.previousSecretExpiresAt !== null && client.previousSecretExpiresAt > now && safeEqual(presentedHash, client.previousSecretHash);
  return current || previous;
}

async function bySecret(em: EntityManager, clientId: string, secret: string, used: TokenEndpointAuthMethod, now: Date): Promise<OAuthClient> {
  const client = isId('cli', clientId) ? await oauthClients.byId(em, clientId) : null;
  // Hash either way so unknown and known clients cost the same.
  const presented = sha256Hex(secret);
  if (!client || !secretMatches(client, presented, now)) throw invalidClient();
  requireMethod(client, used);
  return client;
}

async function byAssertion(em: EntityManager, assertion: string, formClientId: string | null | undefined, audience: AssertionAudience, now: Date): Promise<OAuthClient> {
  let claimedId: unknown;
  try {
    const claims = decodeJwt(assertion);
    claimedId = claims.sub ?? claims.iss;
  } catch {
    throw invalidClient('The client assertion is not a JWT.');
  }
  if (typeof claimedId !== 'string' || !isId('cli', claimedId)) throw invalidClient();
  if (present(formClientId) && formClientId !== claimedId) throw oauthError('invalid_client', 'client_id does not match the client assertion.');
  const client = await oauthClients.byId(em, claimedId);
  if (!client || client.jwks === null) throw invalidClient();
  requireMethod(client, 'private_key_jwt');

  let payload;
  try {
    ({ payload } = await jwtVerify(assertion, createLocalJWKSet(client.jwks as JSONWebKeySet), {
      issuer: client.id,
      subject: client.id,
      audience: [audience.tokenEndpoint, audience.issuer],
      algorithms: [...CLIENT_ASSERTION_ALGORITHMS],
      requiredClaims: ['exp', 'jti'],
      clockTolerance: CLOCK_SKEW_SECONDS,
      currentDate: now,
    }));
  } catch (err) {
    const reason = err instanceof Error && 'code' in err ? ` (${String((err as { code: unknown }).code)})` : '';
    throw oauthError('invalid_client', `The client assertion could not be verified${reason}.`);
  }
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (payload.exp! > nowSeconds + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_SKEW_SECONDS) {
    throw oauthError('invalid_client', `The client assertion must expire within ${MAX_ASSERTION_LIFETIME_SECONDS} seconds.`);
  }
  if (typeof payload.jti !== 'string' || payload.jti.length === 0 || payload.jti.length > 512) throw oauthError('invalid_client', 'The client assertion needs a jti of 1 to 512 characters.');
  // Checked after the signature, so nobody can burn a client's jti values with forged assertions.
  const fresh = await clientAssertions.consume(em, client.id, sha256Hex(payload.jti), new Date((payload.exp! + CLOCK_SKEW_SECONDS) * 1000), now);
  if (!fresh) throw oauthError('invalid_client', 'The client assertion was already used (jti replay).');
  return client;
}

/**
 * Authenticate the client of a token request by exactly one of: HTTP Basic (client_secret_basic),
 * form parameters (client_secret_post), or a signed JWT (private_key_jwt, RFC 7523), and only by
 * the method it registered. Any failure is `invalid_client`; using two methods is `invalid_request`.
 */
export async function authenticateClient(em: EntityManager, credentials: PresentedClientCredentials, audience: AssertionAudience, now: Date): Promise<OAuthClient> {
  const usesBasic = credentials.basic != null;
  const usesPost = present(credentials.clientSecret);
  const usesAssertion = present(credentials.clientAssertion) || present(credentials.clientAssertionType);
  if ([usesBasic, usesPost, usesAssertion].filter(Boolean).length > 1) {
    throw oauthError('invalid_request', 'Use exactly one client authentication method per request.');
  }
  if (usesBasic) {
    const basic = credentials.basic!;
    if (present(credentials.clientId) && credentials.clientId !== basic.clientId) throw oauthError('invalid_request', 'client_id does not match the Authorization header.');
    return bySecret(em, basic.clientId, basic.clientSecret, 'client_secret_basic', now);
  }
  if (usesPost) {
    if (!present(credentials.clientId)) throw oauthError('invalid_request', 'client_secret needs client_id.');
    return bySecret(em, credentials.clientId, credentials.clientSecret!, 'client_secret_post', now);
  }
  if (usesAssertion) {
    if (credentials.clientAssertionType !== JWT_BEARER_ASSERTION_TYPE) {
      throw oauthError('invalid_request', `client_assertion_type must be ${JWT_BEARER_ASSERTION_TYPE}.`);
    }
    if (!present(credentials.clientAssertion)) throw oauthError('invalid_request', 'client_assertion is missing.');
    return byAssertion(em, credentials.clientAssertion, credentials.clientId, audience, now);
  }
  throw oauthError('invalid_client', 'The client did not authenticate: use HTTP Basic, client_id and client_secret, or a client assertion.');
}

import { createSecretKey } from 'node:crypto';
import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import type { Principal } from './principal.js';
import type { RevocationList } from './revocations.js';

/** The header that carries a signed principal over an internal hop (facade → gateway, gateway → subgraph). */
export const INTERNAL_PRINCIPAL_HEADER = 'x-svc-principal';

const ISSUER = 'svc-gateway';
const AUDIENCE = 'svc-subgraph';
/**
 * How long a signed principal is valid: one internal hop, plus some clock difference between
 * processes. Never longer than the credential it was made from.
 */
export const SIGNED_PRINCIPAL_LIFETIME_SECONDS = 15;

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/**
 * Sign a principal for one internal hop. It carries what the receiver needs to check it again: the
 * token or session id, the OAuth client id and the credential's own expiry. Short-lived, so a
 * captured header is useless soon after; HMAC, because both ends are ours and share the secret.
 */
export async function signPrincipal(principal: Principal, secret: string): Promise<string> {
  const nowSeconds = Math.floor(Date.now() / 1000);
  let exp = nowSeconds + SIGNED_PRINCIPAL_LIFETIME_SECONDS;
  if (principal.credentialExpiresAt !== undefined) exp = Math.min(exp, Math.floor(principal.credentialExpiresAt / 1000));
  return new SignJWT({
    knd: principal.kind,
    pgp: principal.partnerGpid,
    cid: principal.clientId,
    tid: principal.tokenId,
    cxp: principal.credentialExpiresAt,
    scp: principal.scopes,
    cip: principal.clientAddress,
    pat: principal.patient,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(nowSeconds)
    .setExpirationTime(exp)
    .sign(keyOf(secret));
}

/**
 * Verify a signed principal; throws when it is forged, expired or malformed, when its credential
 * has expired, or when `revocations` knows its token, session or OAuth client as revoked.
 */
export async function verifyPrincipal(token: string, secret: string, revocations?: Pick<RevocationList, 'revokes'>): Promise<Principal> {
  const { payload } = await jwtVerify(token, keyOf(secret), VERIFY_OPTIONS);
  return checked(principalOf(payload), revocations);
}

const VERIFY_OPTIONS = { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] };
/** Signed principals remembered by a verifier; a gateway re-signs at most once per credential and second. */
const MAX_REMEMBERED = 10_000;

/**
 * `verifyPrincipal` for a receiver that sees the same header many times (a subgraph behind a
 * gateway that reuses a signature while it is fresh): the HMAC check and the claim parsing run once
 * per distinct token, which is then remembered until its `exp`. Expiry of the token and of its
 * credential, and revocation, are still checked on every call.
 */
export function principalVerifier(secret: string, revocations?: Pick<RevocationList, 'revokes'>): (token: string) => Promise<Principal> {
  // A KeyObject made once: jose would otherwise import the raw secret into WebCrypto per call.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const remembered = new Map<string, { principal: Principal; expiresAt: number }>();
  return async (token) => {
    const now = Date.now();
    const hit = remembered.get(token);
    if (hit && hit.expiresAt > now) return checked({ ...hit.principal, scopes: [...hit.principal.scopes] }, revocations);
    if (hit) remembered.delete(token);
    const { payload } = await jwtVerify(token, key, VERIFY_OPTIONS);
    const principal = checked(principalOf(payload), revocations);
    if (typeof payload.exp === 'number') {
      if (remembered.size >= MAX_REMEMBERED) remembered.delete(remembered.keys().next().value as string);
      remembered.set(token, { principal: { ...principal, scopes: [...principal.scopes] }, expiresAt: payload.exp * 1000 });
    }
    return principal;
  };
}

function principalOf(payload: JWTPayload): Principal {
  const kind = payload['knd'];
  if (kind !== 'partner' && kind !== 'service' && kind !== 'portal' && kind !== 'anonymous') throw new Error('bad principal kind');
  const scopes = payload['scp'];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) throw new Error('bad principal scopes');
  const partnerGpid = payload['pgp'];
  const principal: Principal = { kind, partnerGpid: typeof partnerGpid === 'string' ? partnerGpid : null, scopes };
  if (typeof payload['cid'] === 'string') principal.clientId = payload['cid'];
  if (typeof payload['tid'] === 'string') principal.tokenId = payload['tid'];
  if (typeof payload['cip'] === 'string') principal.clientAddress = payload['cip'];
  if (typeof payload['pat'] === 'string') principal.patient = payload['pat'];
  const credentialExpiresAt = payload['cxp'];
  if (credentialExpiresAt !== undefined) {
    if (typeof credentialExpiresAt !== 'number' || !Number.isFinite(credentialExpiresAt)) throw new Error('bad credential expiry');
    principal.credentialExpiresAt = credentialExpiresAt;
  }
  return principal;
}

/** What can change after signing: the credential's expiry passing, and its revocation. */
function checked(principal: Principal, revocations?: Pick<RevocationList, 'revokes'>): Principal {
  if (principal.credentialExpiresAt !== undefined && principal.credentialExpiresAt <= Date.now()) throw new Error('the credential has expired');
  if (revocations?.revokes(principal)) throw new Error('the credential has been revoked');
  return principal;
}

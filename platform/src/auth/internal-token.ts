import { SignJWT, jwtVerify } from 'jose';
import type { Principal } from './principal.js';

/** The header that carries the gateway-signed principal to a subgraph over HTTP. */
export const INTERNAL_PRINCIPAL_HEADER = 'x-svc-principal';

const ISSUER = 'svc-gateway';
const AUDIENCE = 'svc-subgraph';
const LIFETIME_SECONDS = 60;

function keyOf(secret: string): Uint8Array {
  return new TextEncoder().encode(secret);
}

/**
 * Sign a principal for one hop from the gateway to a subgraph. Short-lived, so a captured header is
 * useless soon after; HMAC, because both ends are ours and share the secret.
 */
export async function signPrincipal(principal: Principal, secret: string): Promise<string> {
  return new SignJWT({
    knd: principal.kind,
    pgp: principal.partnerGpid,
    cid: principal.clientId,
    tid: principal.tokenId,
    scp: principal.scopes,
    cip: principal.clientAddress,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${LIFETIME_SECONDS}s`)
    .sign(keyOf(secret));
}

/** Verify a forwarded principal; throws when it is forged, expired or malformed. */
export async function verifyPrincipal(token: string, secret: string): Promise<Principal> {
  const { payload } = await jwtVerify(token, keyOf(secret), { issuer: ISSUER, audience: AUDIENCE, algorithms: ['HS256'] });
  const kind = payload['knd'];
  if (kind !== 'partner' && kind !== 'service' && kind !== 'portal' && kind !== 'anonymous') throw new Error('bad principal kind');
  const scopes = payload['scp'];
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string')) throw new Error('bad principal scopes');
  const partnerGpid = payload['pgp'];
  const principal: Principal = { kind, partnerGpid: typeof partnerGpid === 'string' ? partnerGpid : null, scopes };
  if (typeof payload['cid'] === 'string') principal.clientId = payload['cid'];
  if (typeof payload['tid'] === 'string') principal.tokenId = payload['tid'];
  if (typeof payload['cip'] === 'string') principal.clientAddress = payload['cip'];
  return principal;
}

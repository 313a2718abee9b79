import { importJWK, type JWK } from 'jose';
import type { PublicJwks } from '../entities/oauth-client.js';
import { invalidClientMetadata } from './oauth-errors.js';

/** Signature algorithms accepted on client assertions (SMART Backend Services asks for RS384 and ES384). */
export const CLIENT_ASSERTION_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512'] as const;

const MAX_KEYS = 5;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];
const EC_CURVES = ['P-256', 'P-384', 'P-521'];
const MIN_RSA_BITS = 2048;

function rsaBits(n: unknown): number {
  return typeof n === 'string' ? Buffer.from(n, 'base64url').length * 8 : 0;
}

/**
 * Validate the JWK Set a private_key_jwt client registers: 1 to 5 public EC (P-256/384/521) or
 * RSA (2048 bits or more) signing keys that `jose` can import. Private members are refused (a key
 * sent with its private half is compromised by the sending). Returns the keys as given.
 */
export async function readClientJwks(value: unknown, field = 'jwks'): Promise<PublicJwks> {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { keys?: unknown }).keys)) {
    throw invalidClientMetadata(field, 'must be a JWK Set: an object with a "keys" array');
  }
  const keys = (value as { keys: unknown[] }).keys;
  if (keys.length === 0 || keys.length > MAX_KEYS) throw invalidClientMetadata(`${field}.keys`, `must hold 1 to ${MAX_KEYS} keys`);
  const kids = new Set<string>();
  const accepted: Record<string, unknown>[] = [];
  for (const [i, raw] of keys.entries()) {
    const at = `${field}.keys.${i}`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalidClientMetadata(at, 'must be a JWK object');
    const jwk = raw as Record<string, unknown>;
    if (PRIVATE_MEMBERS.some((m) => m in jwk)) throw invalidClientMetadata(at, 'must be a public key: private key members are never accepted');
    if (jwk['kty'] === 'EC') {
      if (!EC_CURVES.includes(String(jwk['crv']))) throw invalidClientMetadata(at, `must use curve ${EC_CURVES.join(', ')}`);
    } else if (jwk['kty'] === 'RSA') {
      if (rsaBits(jwk['n']) < MIN_RSA_BITS) throw invalidClientMetadata(at, `must be an RSA key of at least ${MIN_RSA_BITS} bits`);
    } else {
      throw invalidClientMetadata(at, 'must have kty EC or RSA');
    }
    if (jwk['use'] !== undefined && jwk['use'] !== 'sig') throw invalidClientMetadata(at, 'must have use "sig" when use is given');
    if (jwk['alg'] !== undefined && !(CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(String(jwk['alg']))) {
      throw invalidClientMetadata(at, `must have alg ${CLIENT_ASSERTION_ALGORITHMS.join(', ')} when alg is given`);
    }
    if (jwk['kid'] !== undefined) {
      if (typeof jwk['kid'] !== 'string' || jwk['kid'].length === 0 || jwk['kid'].length > 200) throw invalidClientMetadata(at, 'must have a kid of 1 to 200 characters');
      if (kids.has(jwk['kid'])) throw invalidClientMetadata(at, 'must not repeat the kid of another key');
      kids.add(jwk['kid']);
    }
    try {
      // An algorithm is needed to import; the key's own, or one its type supports.
      const alg = typeof jwk['alg'] === 'string' ? jwk['alg'] : jwk['kty'] === 'RSA' ? 'RS256' : { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' }[String(jwk['crv'])]!;
      await importJWK(jwk as JWK, alg);
    } catch {
      throw invalidClientMetadata(at, 'is not a usable public key');
    }
    accepted.push({ ...jwk });
  }
  return { keys: accepted };
}

import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 'v1';
// A label of its own, so the derived key is independent of anything else made from the same secret.
const INFO = 'svc partner signing-key sealing v1';

function keyFrom(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), INFO, 32));
}

/**
 * Seal a private key for storage: AES-256-GCM under a key derived (HKDF-SHA256) from the
 * deployment's shared secret, authenticated together with the key id so a sealed key cannot be
 * swapped onto another row. Format: `v1.<iv>.<ciphertext>.<tag>` in base64url.
 */
export function sealSecret(plaintext: string, secret: string, keyId: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secret), iv);
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
}

/** Open what {@link sealSecret} sealed; null when the secret or the key id does not match (or the text was altered). */
export function openSealed(sealed: string, secret: string, keyId: string): string | null {
  const [version, iv, body, tag] = sealed.split('.');
  if (version !== VERSION || !iv || body === undefined || !tag) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyFrom(secret), Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(keyId, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Credential secrets are random, prefixed so that leaked ones are recognisable by secret scanners,
 * and stored only as their SHA-256: a database dump reveals no usable credential.
 */
export function newSecret(prefix: 'svc_pat' | 'svc_cs' | 'svc_ses' | 'svc_pwr' | 'whsec'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb);
}

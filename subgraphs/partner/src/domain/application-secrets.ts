import { randomBytes } from 'node:crypto';
import { safeEqual, sha256Hex } from '@svc/platform';

/** Prefix of application resume secrets, so a leaked one is recognisable by secret scanners. */
export const RESUME_TOKEN_PREFIX = 'svc_app';

/** A fresh resume secret for a draft application: shown once, stored only as its SHA-256. */
export function newResumeToken(): { token: string; hash: string } {
  const token = `${RESUME_TOKEN_PREFIX}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: sha256Hex(token) };
}

/** True when `presented` is the resume secret whose SHA-256 is `storedHash` (constant time). */
export function resumeTokenMatches(presented: string, storedHash: string): boolean {
  return safeEqual(sha256Hex(presented), storedHash);
}

import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDirectory, PRIVATE_FILE_MODE, restrictToOwner, type Config } from '@svc/platform';
import type { FingerprintKeyRing } from './domain/index.js';

/** Where the embedded default keeps its generated fingerprint key. */
export const FINGERPRINT_KEY_FILE = 'identity-fingerprint.key';

/**
 * The fingerprint key ring of this process. `SVC_FINGERPRINT_KEY` when set (required in
 * production). Otherwise a random 256-bit key kept in `dataDir/identity-fingerprint.key` (mode
 * 0600, in a data directory created 0700), created on first start and reused after; creation is atomic (write a temporary file, then
 * hard-link it into place), so processes starting together on one data directory agree on one key.
 * Losing that file makes every stored fingerprint unmatchable; the registry's key check then
 * refuses to start rather than create duplicates.
 */
export function loadFingerprintKeyRing(config: Pick<Config, 'fingerprintKey' | 'dataDir'>): FingerprintKeyRing {
  const { version, secret } = config.fingerprintKey;
  if (secret) return { current: version, keys: [{ version, secret }] };
  ensurePrivateDirectory(config.dataDir);
  const path = join(config.dataDir, FINGERPRINT_KEY_FILE);
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${randomBytes(32).toString('base64url')}\n`, { mode: PRIVATE_FILE_MODE });
  try {
    linkSync(temporary, path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(temporary);
  }
  // A key file written by an earlier version (or by hand) is tightened to owner-only.
  restrictToOwner(path);
  const stored = readFileSync(path, 'utf8').trim();
  if (Buffer.byteLength(stored, 'utf8') < 32) throw new Error(`${path} does not hold a usable fingerprint key (at least 32 bytes).`);
  return { current: version, keys: [{ version, secret: stored }] };
}

import { createHmac } from 'node:crypto';
import { KEY_CHECKS } from './identity-record.js';
import type { Sql } from './sql.js';

/**
 * Makes sure this process fingerprints with the key the registry was written with. The first
 * process to start with a key version stores a check value (an HMAC of a constant, which reveals
 * nothing about the key); any later process with the same version and another secret refuses to
 * start, instead of silently matching nothing and creating duplicates.
 */
export async function assertFingerprintKey(sql: Sql, version: string, secret: string | Uint8Array): Promise<void> {
  const check = createHmac('sha256', typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret)).update('svc.identity.key-check.v1').digest('hex');
  await sql.table(KEY_CHECKS).insert({ version, check_value: check, created_at: sql.date(new Date()) }).onConflict('version').ignore();
  const stored = (await sql.table(KEY_CHECKS).where('version', version).first('check_value')) as { check_value: string } | undefined;
  if (stored?.check_value !== check) {
    throw new Error(
      `The identity fingerprint key (version ${version}) is not the key this registry was written with. ` +
        'Set SVC_FINGERPRINT_KEY to the original key, or rotate with a new SVC_FINGERPRINT_KEY_VERSION.',
    );
  }
}

/**
 * Keyed fingerprints: HMAC-SHA256 under a versioned secret key, truncated to 128 bits and written
 * `<version>:<base64url>` (for example `k1:Q2hhbmdlIG1lIHBsZWFzZQ`). A plain SHA-256 of a name or a
 * birth date could be reversed by hashing every plausible value; a keyed HMAC cannot without the
 * key, which lives in configuration, not in the database.
 *
 * Every fingerprint is domain-separated: the HMAC input is `<domain> 0x1F <value>`, so the same
 * text in two roles ("1980" as a birth year and as a phone tail) never yields the same value.
 *
 * Rotation: the key ring holds the current key and any older keys still referenced by stored
 * records. New fingerprints are always written with the current key; lookups and scoring probe with
 * every key of the ring (a fingerprint only ever equals one made with the same version). Since the
 * registry holds no clear text, old records are re-keyed lazily: whenever a record is resolved again
 * its fingerprints are refreshed under the current key. A key leaves the ring once no record
 * references its version any more.
 */
import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

export interface FingerprintKey {
  /** Short version tag written in front of every fingerprint, e.g. `k1`. */
  version: string;
  /** At least 32 bytes of secret material (raw bytes, or a string used as UTF-8). */
  secret: Uint8Array | string;
}

export interface FingerprintKeyRing {
  /** Version of the key used for new fingerprints. */
  current: string;
  keys: readonly FingerprintKey[];
}

const VERSION_RE = /^[a-z][a-z0-9]{0,7}$/;
export const MIN_KEY_BYTES = 32;
/** Bytes of HMAC output kept: 128 bits, far beyond collision risk for any registry size. */
const FINGERPRINT_BYTES = 16;

/** Computes fingerprints for one key ring. Build once per configuration; it is stateless. */
export class Fingerprinter {
  readonly currentVersion: string;
  readonly versions: readonly string[];
  private readonly keys: ReadonlyMap<string, KeyObject>;

  constructor(ring: FingerprintKeyRing) {
    const keys = new Map<string, KeyObject>();
    for (const key of ring.keys) {
      if (!VERSION_RE.test(key.version)) throw new RangeError(`Invalid fingerprint key version "${key.version}".`);
      if (keys.has(key.version)) throw new RangeError(`Duplicate fingerprint key version "${key.version}".`);
      const bytes = typeof key.secret === 'string' ? Buffer.from(key.secret, 'utf8') : Buffer.from(key.secret);
      if (bytes.length < MIN_KEY_BYTES) {
        throw new RangeError(`Fingerprint key "${key.version}" must have at least ${MIN_KEY_BYTES} bytes.`);
      }
      keys.set(key.version, createSecretKey(bytes));
    }
    if (!keys.has(ring.current)) throw new RangeError(`The current fingerprint key "${ring.current}" is not in the ring.`);
    this.keys = keys;
    this.currentVersion = ring.current;
    // Current first, so that writes and the first probe use it.
    this.versions = [ring.current, ...[...keys.keys()].filter((v) => v !== ring.current)];
  }

  /** Fingerprint of `value` in `domain` under one key version (the current one by default). */
  fingerprint(domain: string, value: string, version = this.currentVersion): string {
    const key = this.keys.get(version);
    if (!key) throw new RangeError(`Unknown fingerprint key version "${version}".`);
    const digest = createHmac('sha256', key).update(domain).update('\u001f').update(value).digest();
    return `${version}:${digest.subarray(0, FINGERPRINT_BYTES).toString('base64url')}`;
  }

  /** The key version a fingerprint was made with. */
  static versionOf(fingerprint: string): string {
    const colon = fingerprint.indexOf(':');
    return colon < 0 ? '' : fingerprint.slice(0, colon);
  }
}

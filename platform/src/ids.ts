/**
 * Identifier formats used across the platform. Every id a client can see is generated and
 * validated here so that the REST facade, the subgraphs and the stores agree on one grammar.
 */
import { randomBytes, randomFillSync, randomInt } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Product prefix of every patient GPID. */
export const PATIENT_GPID_PREFIX = 'SVC';

/** Product prefix of every partner (CMS) GPID. */
export const PARTNER_GPID_PREFIX = 'CMS';

const PATIENT_GPID_RE = /^SVC-[0-9A-F]{8}$/;
const PARTNER_GPID_RE = /^CMS-[0-9]{8}$/;

/**
 * Generates a patient GPID: `SVC-` followed by 8 uppercase hex characters from a CSPRNG.
 * Collisions must still be handled by the store's unique constraint (32 bits of entropy).
 */
export function newPatientGpid(): string {
  return `${PATIENT_GPID_PREFIX}-${randomBytes(4).toString('hex').toUpperCase()}`;
}

/** True when `s` is a well-formed patient GPID (`SVC-` + 8 uppercase hex characters). */
export function isPatientGpid(s: unknown): s is string {
  return typeof s === 'string' && PATIENT_GPID_RE.test(s);
}

/** Generates a partner GPID: `CMS-` followed by 8 random decimal digits (leading zeros kept). */
export function newPartnerGpid(): string {
  return `${PARTNER_GPID_PREFIX}-${randomInt(0, 100_000_000).toString().padStart(8, '0')}`;
}

/** True when `s` is a well-formed partner GPID (`CMS-` + 8 decimal digits). */
export function isPartnerGpid(s: unknown): s is string {
  return typeof s === 'string' && PARTNER_GPID_RE.test(s);
}

// ---------------------------------------------------------------------------------------------
// System GPIDs
// ---------------------------------------------------------------------------------------------

const PRODUCT = '[A-Z][A-Z0-9]{1,7}';
const ENTITY_TYPE = '[A-Z][A-Z0-9_]{1,15}';
const PRODUCT_RE = new RegExp(`^${PRODUCT}$`);
const ENTITY_TYPE_RE = new RegExp(`^${ENTITY_TYPE}$`);
const SYSTEM_GPID_RE = new RegExp(`^(${PRODUCT})-(${ENTITY_TYPE})-([1-9][0-9]*)$`);

/** The parts of a system GPID. */
export interface SystemGpid {
  product: string;
  type: string;
  sequence: number;
}

/**
 * Formats a system GPID for a non-patient registry entity.
 *
 * Grammar: `{PRD}-{TYPE}-{N}` where
 * - PRD is 2–8 characters of `[A-Z0-9]`, starting with a letter (e.g. `PLS`, `LAKE`);
 * - TYPE is 2–16 characters of `[A-Z0-9_]`, starting with a letter (e.g. `ORG`, `CARE_TEAM`);
 * - N is a positive safe integer written without leading zeros.
 *
 * A system GPID always has exactly three hyphen-separated segments, so it can never be mistaken
 * for a patient GPID (`SVC-1A2B3C4D`) or a partner GPID (`CMS-01234567`), which have two.
 *
 * @throws RangeError when any part does not fit the grammar.
 */
export function formatSystemGpid(product: string, type: string, n: number): string {
  if (!PRODUCT_RE.test(product)) {
    throw new RangeError(`Invalid system GPID product ${JSON.stringify(product)}: expected 2-8 of [A-Z0-9] starting with a letter.`);
  }
  if (!ENTITY_TYPE_RE.test(type)) {
    throw new RangeError(`Invalid system GPID type ${JSON.stringify(type)}: expected 2-16 of [A-Z0-9_] starting with a letter.`);
  }
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(`Invalid system GPID sequence ${String(n)}: expected a positive safe integer.`);
  }
  return `${product}-${type}-${n}`;
}

/**
 * Parses a system GPID (see {@link formatSystemGpid} for the grammar).
 * Returns null for anything malformed, including sequences beyond `Number.MAX_SAFE_INTEGER`,
 * which could not round-trip.
 */
export function parseSystemGpid(s: unknown): SystemGpid | null {
  if (typeof s !== 'string') return null;
  const match = SYSTEM_GPID_RE.exec(s);
  if (!match) return null;
  const [, product, type, digits] = match;
  if (product === undefined || type === undefined || digits === undefined) return null;
  const sequence = Number(digits);
  if (!Number.isSafeInteger(sequence)) return null;
  return { product, type, sequence };
}

/** True when `s` is a well-formed system GPID. */
export function isSystemGpid(s: unknown): s is string {
  return parseSystemGpid(s) !== null;
}

// ---------------------------------------------------------------------------------------------
// Prefixed opaque ids (ULID based)
// ---------------------------------------------------------------------------------------------

/** Every prefix an opaque id may carry; the prefix tells a reader what kind of object it names. */
export const ID_PREFIXES = ['tok', 'job', 'evt', 'dlv', 'whk', 'cli', 'app', 'req', 'ses', 'mrg', 'spl', 'sig', 'anq', 'xch', 'rvw', 'scr', 'pwr'] as const;

export type IdPrefix = (typeof ID_PREFIXES)[number];

// Lowercase Crockford base32: no i, l, o, u, so ids survive being read aloud or retyped.
const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';
const TIME_CHARS = 10;
const RANDOM_BYTES = 10;
const MAX_TIME = 2 ** 48 - 1;
// The first time character carries only 3 of its 5 bits (48 = 10 * 5 - 2), hence [0-7].
const ULID_BODY = '[0-7][0-9a-hjkmnp-tv-z]{25}';
const ANY_ID_RE = new RegExp(`^(${ID_PREFIXES.join('|')})_(${ULID_BODY})$`);
const ID_RES = new Map<string, RegExp>(ID_PREFIXES.map((p) => [p, new RegExp(`^${p}_${ULID_BODY}$`)]));

let lastTime = -1;
const lastRandom = new Uint8Array(RANDOM_BYTES);

/** Random bytes fetched 4 KiB at a time: one call into the CRNG per 409 ids instead of one per id. */
const pool = new Uint8Array(4096 - (4096 % RANDOM_BYTES));
let poolOffset = pool.length;

function freshRandom(): void {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  lastRandom.set(pool.subarray(poolOffset, poolOffset + RANDOM_BYTES));
  // Each byte is used once: an id's randomness never repeats in another id.
  poolOffset += RANDOM_BYTES;
}

/** Adds one to the 80-bit big-endian random part; returns false when it wrapped around. */
function incrementRandom(): boolean {
  for (let i = RANDOM_BYTES - 1; i >= 0; i--) {
    const next = (lastRandom[i] ?? 0) + 1;
    lastRandom[i] = next & 0xff;
    if (next <= 0xff) return true;
  }
  return false;
}

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = CROCKFORD.charAt(t % 32) + out;
    t = Math.floor(t / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += CROCKFORD.charAt((buffer >>> bits) & 31);
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

function nextUlid(now: number): string {
  if (!Number.isInteger(now) || now < 0 || now > MAX_TIME) {
    throw new RangeError(`Timestamp ${String(now)} cannot be encoded in a ULID.`);
  }
  // A clock that stands still or steps backwards keeps the last timestamp, so ids keep sorting
  // in creation order; that is what makes them usable as pagination cursors.
  if (now > lastTime) {
    lastTime = now;
    freshRandom();
  } else if (!incrementRandom()) {
    // 2^80 ids in one millisecond cannot happen in practice; borrow the next millisecond anyway.
    if (lastTime >= MAX_TIME) throw new RangeError('ULID space exhausted.');
    lastTime += 1;
    freshRandom();
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom);
}

/**
 * Generates `{prefix}_{ulid}`: a 26-character lowercase Crockford-base32 ULID (48-bit millisecond
 * timestamp + 80 random bits). Ids sort lexicographically by creation time and are strictly
 * increasing within this process, even within one millisecond.
 *
 * @param now clock reading in epoch milliseconds; injectable so tests can pin time.
 */
export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${nextUlid(now)}`;
}

/** True when `s` is a well-formed id with exactly this prefix. */
export function isId(prefix: IdPrefix, s: unknown): s is string {
  const re = ID_RES.get(prefix);
  return re !== undefined && typeof s === 'string' && re.test(s);
}

/** True when `value` is one of {@link ID_PREFIXES}. */
export function isIdPrefix(value: unknown): value is IdPrefix {
  return typeof value === 'string' && (ID_PREFIXES as readonly string[]).includes(value);
}

/** The creation time encoded in a prefixed id, or null if `id` is not a well-formed id. */
export function idTimestamp(id: unknown): Date | null {
  if (typeof id !== 'string') return null;
  const body = ANY_ID_RE.exec(id)?.[2];
  if (body === undefined) return null;
  let ms = 0;
  for (let i = 0; i < TIME_CHARS; i++) {
    ms = ms * 32 + CROCKFORD.indexOf(body.charAt(i));
  }
  return new Date(ms);
}

// ---------------------------------------------------------------------------------------------
// FHIR resource ids
// ---------------------------------------------------------------------------------------------

/**
 * A server-assigned FHIR resource id: a UUIDv7 (RFC 9562, from the `uuid` package), 36 characters
 * of the R4 id grammar. Its first 48 bits are the creation time in milliseconds and later ids
 * sort after earlier ones, so a new resource's rows land at the right edge of the store's B-tree
 * indexes (the primary key and each search table's resource index) instead of at a random page
 * of them: with random (v4) ids the embedded SQLite store ingested half as fast at 100,000
 * resources. The creation time it reveals is no secret from a reader of the resource, whose
 * first version's `meta.lastUpdated` is in its history.
 */
export function newFhirResourceId(): string {
  return uuidv7();
}

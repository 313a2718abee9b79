import { describe, it, expect } from 'vitest';
import {
  ID_PREFIXES,
  PATIENT_GPID_PREFIX,
  formatSystemGpid,
  idTimestamp,
  isId,
  isIdPrefix,
  isPartnerGpid,
  isPatientGpid,
  isSystemGpid,
  newId,
  newPartnerGpid,
  newPatientGpid,
  parseSystemGpid,
} from './ids.js';

describe('patient GPID', () => {
  it('has the SVC prefix and 8 uppercase hex characters', () => {
    expect(PATIENT_GPID_PREFIX).toBe('SVC');
    for (let i = 0; i < 100; i++) {
      const gpid = newPatientGpid();
      expect(gpid).toMatch(/^SVC-[0-9A-F]{8}$/);
      expect(isPatientGpid(gpid)).toBe(true);
    }
  });

  it('accepts good values', () => {
    expect(isPatientGpid('SVC-00000000')).toBe(true);
    expect(isPatientGpid('SVC-1A2B3C4D')).toBe(true);
  });

  it.each([
    ['lowercase hex', 'SVC-1a2b3c4d'],
    ['lowercase prefix', 'svc-1A2B3C4D'],
    ['too short', 'SVC-1A2B3C4'],
    ['too long', 'SVC-1A2B3C4D5'],
    ['wrong prefix', 'CMS-1A2B3C4D'],
    ['non-hex', 'SVC-1A2B3C4G'],
    ['missing hyphen', 'SVC1A2B3C4D'],
    ['surrounding space', ' SVC-1A2B3C4D'],
    ['empty', ''],
  ])('rejects %s', (_label, value) => {
    expect(isPatientGpid(value)).toBe(false);
  });

  it('rejects non-strings', () => {
    expect(isPatientGpid(undefined)).toBe(false);
    expect(isPatientGpid(12345678)).toBe(false);
  });

  it('practically does not repeat over 10,000 draws', () => {
    // 32 bits of entropy: ~0.012 collisions are expected per 10,000 draws (the store retries on
    // a unique violation), so demanding zero would flake about once per hundred runs.
    // Allowing two keeps the failure odds near 1 in 4 million while still catching a weak source.
    const seen = new Set(Array.from({ length: 10_000 }, () => newPatientGpid()));
    expect(seen.size).toBeGreaterThanOrEqual(9_998);
  });
});

describe('partner GPID', () => {
  it('has the CMS prefix and 8 decimal digits', () => {
    for (let i = 0; i < 100; i++) {
      const gpid = newPartnerGpid();
      expect(gpid).toMatch(/^CMS-[0-9]{8}$/);
      expect(isPartnerGpid(gpid)).toBe(true);
    }
  });

  it('accepts leading zeros', () => {
    expect(isPartnerGpid('CMS-00000001')).toBe(true);
  });

  it.each([
    ['lowercase prefix', 'cms-12345678'],
    ['too short', 'CMS-1234567'],
    ['too long', 'CMS-123456789'],
    ['hex digits', 'CMS-1234567A'],
    ['wrong prefix', 'SVC-12345678'],
    ['empty', ''],
  ])('rejects %s', (_label, value) => {
    expect(isPartnerGpid(value)).toBe(false);
  });

  it('is not confused with a patient GPID', () => {
    expect(isPatientGpid('CMS-12345678')).toBe(false);
    expect(isPartnerGpid('SVC-12345678')).toBe(false);
  });

  it('practically does not repeat over 10,000 draws', () => {
    // 10^8 values: ~0.5 collisions are expected per 10,000 draws. Allowing five keeps the
    // failure odds near 1 in 70,000 while a broken generator would lose thousands.
    const seen = new Set(Array.from({ length: 10_000 }, () => newPartnerGpid()));
    expect(seen.size).toBeGreaterThanOrEqual(9_995);
  });
});

describe('system GPID', () => {
  it('round-trips through format and parse', () => {
    const cases: Array<[string, string, number]> = [
      ['PLS', 'ORG', 1],
      ['LAKE', 'DEVICE', 42],
      ['PLS', 'CARE_TEAM', 1_000_000],
      ['AB', 'XY', Number.MAX_SAFE_INTEGER],
      ['P2X45678', 'T234567890123456', 7],
    ];
    for (const [product, type, n] of cases) {
      const gpid = formatSystemGpid(product, type, n);
      expect(gpid).toBe(`${product}-${type}-${n}`);
      expect(parseSystemGpid(gpid)).toEqual({ product, type, sequence: n });
      expect(isSystemGpid(gpid)).toBe(true);
    }
  });

  it.each([
    ['lowercase product', 'pls', 'ORG', 1],
    ['one-letter product', 'P', 'ORG', 1],
    ['product too long', 'PRODUCT12', 'ORG', 1],
    ['product starting with a digit', '1PL', 'ORG', 1],
    ['product with underscore', 'P_S', 'ORG', 1],
    ['empty product', '', 'ORG', 1],
    ['lowercase type', 'PLS', 'org', 1],
    ['one-letter type', 'PLS', 'O', 1],
    ['type too long', 'PLS', 'T2345678901234567', 1],
    ['type starting with underscore', 'PLS', '_ORG', 1],
    ['type with hyphen', 'PLS', 'CARE-TEAM', 1],
    ['zero sequence', 'PLS', 'ORG', 0],
    ['negative sequence', 'PLS', 'ORG', -1],
    ['fractional sequence', 'PLS', 'ORG', 1.5],
    ['NaN sequence', 'PLS', 'ORG', Number.NaN],
    ['unsafe sequence', 'PLS', 'ORG', Number.MAX_SAFE_INTEGER + 1],
  ])('format rejects %s', (_label, product, type, n) => {
    expect(() => formatSystemGpid(product, type, n)).toThrow(RangeError);
  });

  it.each([
    ['two segments', 'PLS-ORG'],
    ['four segments', 'PLS-ORG-1-2'],
    ['leading zero', 'PLS-ORG-01'],
    ['zero', 'PLS-ORG-0'],
    ['lowercase', 'pls-org-1'],
    ['non-numeric sequence', 'PLS-ORG-X'],
    ['sequence beyond safe integer', 'PLS-ORG-9007199254740993'],
    ['empty', ''],
    ['patient GPID', 'SVC-1A2B3C4D'],
    ['partner GPID', 'CMS-12345678'],
  ])('parse rejects %s', (_label, value) => {
    expect(parseSystemGpid(value)).toBeNull();
    expect(isSystemGpid(value)).toBe(false);
  });

  it('is never a patient or partner GPID', () => {
    const gpid = formatSystemGpid('SVC', 'ORG', 12345678);
    expect(isPatientGpid(gpid)).toBe(false);
    expect(isPartnerGpid(formatSystemGpid('CMS', 'ORG', 1))).toBe(false);
  });
});

describe('prefixed ids', () => {
  it('exposes every prefix', () => {
    expect(ID_PREFIXES).toEqual(['tok', 'job', 'evt', 'dlv', 'whk', 'cli', 'app', 'req', 'ses', 'mrg', 'spl', 'sig', 'anq', 'xch', 'rvw', 'scr', 'pwr']);
    expect(isIdPrefix('tok')).toBe(true);
    expect(isIdPrefix('TOK')).toBe(false);
    expect(isIdPrefix('xyz')).toBe(false);
  });

  it('is the prefix plus a 26-character lowercase Crockford ULID', () => {
    for (const prefix of ID_PREFIXES) {
      const id = newId(prefix);
      expect(id).toMatch(new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`));
      expect(isId(prefix, id)).toBe(true);
    }
  });

  it('rejects bad values', () => {
    const id = newId('tok');
    const body = id.slice(4);
    expect(isId('job', id)).toBe(false);
    expect(isId('tok', id.toUpperCase())).toBe(false);
    expect(isId('tok', `TOK_${body}`)).toBe(false);
    expect(isId('tok', id.slice(0, -1))).toBe(false);
    expect(isId('tok', `${id}0`)).toBe(false);
    expect(isId('tok', body)).toBe(false);
    expect(isId('tok', `tok-${body}`)).toBe(false);
    expect(isId('tok', `tok_${body.slice(0, -1)}u`)).toBe(false);
    expect(isId('tok', `tok_8${body.slice(1)}`)).toBe(false);
    expect(isId('tok', '')).toBe(false);
    expect(isId('tok', null)).toBe(false);
  });

  it('does not repeat over 10,000 draws', () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => newId('evt')));
    expect(seen.size).toBe(10_000);
  });

  it('sorts in generation order in a tight loop', () => {
    const ids = Array.from({ length: 1_000 }, () => newId('dlv'));
    for (let i = 1; i < ids.length; i++) {
      expect((ids[i] ?? '') > (ids[i - 1] ?? '')).toBe(true);
    }
  });

  it('encodes the creation time', () => {
    // Ids never go back in time: a file that ran earlier in this worker with its clock pinned
    // ahead leaves the generator there, and its ids keep that time until the clock catches up.
    const floor = idTimestamp(newId('job'))?.getTime() ?? -1;
    const before = Date.now();
    const id = newId('job');
    const after = Date.now();
    const ts = idTimestamp(id)?.getTime() ?? -1;
    expect(ts).toBeGreaterThanOrEqual(before);
    expect(ts).toBeLessThanOrEqual(Math.max(after, floor));
  });

  it('increments within one millisecond and survives a clock stepping back', () => {
    const now = Math.max(Date.now(), idTimestamp(newId('req'))?.getTime() ?? 0) + 60_000;
    const a = newId('req', now);
    const b = newId('req', now);
    const c = newId('req', now - 5_000);
    expect(b > a).toBe(true);
    expect(c > b).toBe(true);
    // Same millisecond: only the last random character changes (barring a carry).
    expect(b.slice(0, 14)).toBe(a.slice(0, 14));
    expect(idTimestamp(c)?.getTime()).toBe(now);
  });

  it('decodes a known timestamp', () => {
    expect(idTimestamp('evt_01aryz6s41tsv4rrffq69g5fav')?.getTime()).toBe(1_469_918_176_385);
    expect(idTimestamp('evt_7zzzzzzzzzzzzzzzzzzzzzzzzz')?.getTime()).toBe(2 ** 48 - 1);
  });

  it('returns null for a malformed id', () => {
    expect(idTimestamp('nope_01arz3ndektsv4rrffq69g5fav')).toBeNull();
    expect(idTimestamp('evt_01ARZ3NDEKTSV4RRFFQ69G5FAV')).toBeNull();
    expect(idTimestamp('')).toBeNull();
  });
});

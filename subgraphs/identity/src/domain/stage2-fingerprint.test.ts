import { describe, expect, it } from 'vitest';
import { Fingerprinter } from './fingerprint.js';
import { acceptDemographics } from './stage1-demographics.js';
import { extractFeatures, fingerprintDemographics } from './stage2-fingerprint.js';
import { KEY_1, KEY_2, NOW, ROBERT } from './test-support.js';

const parse = (input: object) => acceptDemographics(input, { purpose: 'match', now: NOW });

describe('stage 2: features', () => {
  it('normalizes every field', () => {
    const f = extractFeatures(parse({ name: 'SMITH, Bób', dob: '04.03.1980', email: 'B.O.B+x@googlemail.com', phone: '+1 212 867 5309' })).fields;
    expect(f.given).toEqual(['bob']);
    expect(f.given_canon).toEqual(['robert']);
    expect(f.family).toEqual(['smith']);
    expect(f.family_phonetic).toEqual(['SNAT']);
    expect(f.full_name).toEqual(['bob smith']);
    expect(f.dob).toEqual(['19800304']);
    expect(f.dob_swapped).toEqual(['19800403']);
    expect(f.dob_year_month).toEqual(['198003']);
    expect(f.email).toEqual(['bob@gmail.com']);
    expect(f.email_local).toEqual(['bob']);
    expect(f.phone).toEqual(['+12128675309']);
    expect(f.phone_tail).toEqual(['8675309']);
  });

  it('emits blocking keys that survive one error', () => {
    const kinds = extractFeatures(parse(ROBERT)).blocking.map((b) => b.kind);
    expect(new Set(kinds)).toEqual(
      new Set(['name_dob', 'dob_initials', 'family_given', 'family_given_ym', 'fphon_ginitial_year', 'fphon_gphon_md', 'dob_phonetic', 'dob_initial', 'given_finitial_year', 'given_finitial_md', 'email', 'phone']),
    );
  });

  it('meets a record whose given name is misspelt and whose family name is another, on the same birth date', () => {
    const one = new Fingerprinter({ current: 'k1', keys: [KEY_1] });
    const keys = (input: Record<string, unknown>) => new Set(fingerprintDemographics(parse(input), one).write.blockingKeys);
    const stored = keys({ name: 'Zachary Ebert', dob: '1939-02-17' });
    const shared = [...keys({ name: 'Zachery Hoep', dob: '1939-02-17' })].filter((k) => stored.has(k));
    // The given name's NYSIIS code with the DOB (dob_phonetic) and its initial with the DOB (dob_initial).
    expect(shared).toHaveLength(2);
    expect([...keys({ name: 'Zachery Hoep', dob: '1939-02-18' })].filter((k) => stored.has(k))).toHaveLength(0);
  });

  it('has no full name for an initial', () => {
    expect(extractFeatures(parse({ name: 'J. Smith' })).fields.full_name).toBeUndefined();
  });
});

describe('stage 2: fingerprints', () => {
  const one = new Fingerprinter({ current: 'k1', keys: [KEY_1] });

  it('stores no clear text', () => {
    const { write } = fingerprintDemographics(parse(ROBERT), one);
    const values = [...Object.values(write.fields).flatMap((v) => [...(v ?? [])]), ...write.blockingKeys];
    expect(values.length).toBeGreaterThan(40);
    for (const v of values) expect(v).toMatch(/^k1:[A-Za-z0-9_-]{22}$/);
    const text = JSON.stringify(write);
    for (const clear of ['robert', 'smith', '19800304', '+12128675309', 'robsmith@gmail.com', 'SNAT']) expect(text).not.toContain(`"${clear}"`);
  });

  it('same input → same fingerprints; different key → different fingerprints', () => {
    const a = fingerprintDemographics(parse(ROBERT), one).write;
    const b = fingerprintDemographics(parse({ ...ROBERT, name: 'Smith, Robert', dob: '03/04/1980' }), one).write;
    const c = fingerprintDemographics(parse(ROBERT), new Fingerprinter({ current: 'k2', keys: [KEY_2] })).write;
    expect(b.fields.full_name).toEqual(a.fields.full_name);
    expect(b.fields.dob).toEqual(a.fields.dob);
    expect(c.fields.full_name).not.toEqual(a.fields.full_name);
    expect(c.blockingKeys.some((k) => a.blockingKeys.includes(k))).toBe(false);
  });

  it('probes with every key of the ring and writes with the current one', () => {
    const rotating = new Fingerprinter({ current: 'k2', keys: [KEY_1, KEY_2] });
    const { write, probe } = fingerprintDemographics(parse(ROBERT), rotating);
    expect(write.fields.dob).toHaveLength(1);
    expect(write.fields.dob?.[0]).toMatch(/^k2:/);
    expect(probe.fields.dob?.map((v) => v.slice(0, 2)).sort()).toEqual(['k1', 'k2']);
    expect(probe.blockingKeys.length).toBe(2 * write.blockingKeys.length);
  });
});

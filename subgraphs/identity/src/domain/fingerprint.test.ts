import { describe, expect, it } from 'vitest';
import { Fingerprinter } from './fingerprint.js';
import { KEY_1, KEY_2 } from './test-support.js';

describe('Fingerprinter', () => {
  const one = new Fingerprinter({ current: 'k1', keys: [KEY_1] });
  const two = new Fingerprinter({ current: 'k2', keys: [KEY_2] });

  it('is deterministic for the same key, domain and value', () => {
    expect(one.fingerprint('dob', '19800304')).toBe(one.fingerprint('dob', '19800304'));
    expect(new Fingerprinter({ current: 'k1', keys: [KEY_1] }).fingerprint('dob', '19800304')).toBe(one.fingerprint('dob', '19800304'));
  });

  it('depends on the key: another secret gives another fingerprint', () => {
    const sameVersionOtherSecret = new Fingerprinter({ current: 'k1', keys: [{ version: 'k1', secret: KEY_2.secret }] });
    expect(sameVersionOtherSecret.fingerprint('dob', '19800304')).not.toBe(one.fingerprint('dob', '19800304'));
    expect(two.fingerprint('dob', '19800304')).not.toBe(one.fingerprint('dob', '19800304'));
  });

  it('is not a plain SHA-256 and separates domains', () => {
    expect(one.fingerprint('dob', '1980')).not.toBe(one.fingerprint('dob.y', '1980'));
    expect(one.fingerprint('dob', '19800304')).not.toContain('19800304');
  });

  it('carries the key version: k1:<22 base64url characters>', () => {
    expect(one.fingerprint('name', 'smith')).toMatch(/^k1:[A-Za-z0-9_-]{22}$/);
    expect(Fingerprinter.versionOf(two.fingerprint('name', 'smith'))).toBe('k2');
  });

  it('writes with the current key and can compute with an older one during rotation', () => {
    const rotating = new Fingerprinter({ current: 'k2', keys: [KEY_1, KEY_2] });
    expect(rotating.versions).toEqual(['k2', 'k1']);
    expect(rotating.fingerprint('name', 'smith')).toBe(two.fingerprint('name', 'smith'));
    expect(rotating.fingerprint('name', 'smith', 'k1')).toBe(one.fingerprint('name', 'smith'));
  });

  it('refuses weak or inconsistent key rings', () => {
    expect(() => new Fingerprinter({ current: 'k1', keys: [{ version: 'k1', secret: 'short' }] })).toThrow(/32 bytes/);
    expect(() => new Fingerprinter({ current: 'k9', keys: [KEY_1] })).toThrow(/not in the ring/);
    expect(() => new Fingerprinter({ current: 'k1', keys: [KEY_1, KEY_1] })).toThrow(/Duplicate/);
    expect(() => new Fingerprinter({ current: 'K:1', keys: [{ ...KEY_1, version: 'K:1' }] })).toThrow(/Invalid/);
  });
});

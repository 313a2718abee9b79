import { describe, expect, it } from 'vitest';
import { Fingerprinter } from './fingerprint.js';
import { keyboardSlips } from './normalize/keyboard.js';
import { acceptDemographics } from './stage1-demographics.js';
import { fingerprintDemographics } from './stage2-fingerprint.js';
import { DEFAULT_THRESHOLDS, scoreFingerprints } from './stage4-score.js';
import { KEY_1, NOW } from './test-support.js';

const fp = new Fingerprinter({ current: 'k1', keys: [KEY_1] });
const fields = (input: object) => fingerprintDemographics(acceptDemographics(input, { purpose: 'match', now: NOW }), fp).write.fields;
const score = (query: object, stored: object) => scoreFingerprints(fields(query), fields(stored));

describe('names with inner spaces, hyphens and apostrophes: joined and as parts', () => {
  const dob = '1990-02-14';
  it.each([
    ['a space inside the given name', 'Isab Elle Martin', 'Isabelle Martin', { given: 'exact', family: 'exact' }],
    ['a space inside the family name', 'John Smi Th', 'John Smith', { given: 'exact', family: 'exact' }],
    ['a hyphen against one word', 'Anne-Marie Dupont', 'Annemarie Dupont', { given: 'exact' }],
    ['a hyphen against a space', 'Anne-Marie Dupont', 'Anne Marie Dupont', { given: 'exact' }],
    ['an apostrophe against a space', "Sean O'Brien", 'Sean O Brien', { family: 'exact' }],
    ['an apostrophe against nothing', "Sean O'Brien", 'Sean OBrien', { family: 'exact' }],
    ['one part of a double family name', 'Maria Garcia-Lopez', 'Maria Lopez', { given: 'exact', family: 'token' }],
  ])('%s', (_label, query, stored, agreement) => {
    const s = score({ name: query, dob }, { name: stored, dob });
    expect(s.agreement).toMatchObject(agreement);
    expect(s.confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.partial);
  });
});

describe('short names: one keyboard slip when the rest agrees', () => {
  it('knows the adjacent keys', () => {
    expect(keyboardSlips('amy')).toEqual(expect.arrayContaining(['amu', 'amt', 'any', 'smy', 'qmy']));
    expect(keyboardSlips('amy')).not.toContain('amy');
    expect(keyboardSlips('mary')).toEqual([]);
  });

  const amy = { name: 'Amy Chen', dob: '1988-07-09', phone: '617-555-0142', email: 'amy.chen@example.org', sex: 'female' };
  it('links a slip in a three-letter given name when DOB and a contact agree', () => {
    const s = score({ ...amy, name: 'Amu Chen' }, amy);
    expect(s.agreement).toMatchObject({ given: 'keyboard', family: 'exact', blockedBy: null });
    expect(s.confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.autoLink);
  });

  it('links a slip in a short family name too', () => {
    const stored = { ...amy, name: 'Amy Lee' };
    const s = score({ ...stored, name: 'Amy Lew' }, stored);
    expect(s.agreement).toMatchObject({ given: 'exact', family: 'keyboard' });
    expect(s.confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.autoLink);
  });

  it('is a different name without the DOB and a contact agreeing, or when sex disagrees', () => {
    expect(score({ name: 'Amu Chen', dob: amy.dob }, { name: amy.name, dob: amy.dob }).agreement.given).toBe('disagree');
    expect(score({ ...amy, name: 'Amu Chen', phone: null, email: null }, amy).agreement.given).toBe('disagree');
    expect(score({ ...amy, name: 'Amu Chen', sex: 'male' }, amy).agreement.given).toBe('disagree');
  });

  it('does not tolerate keys that are not adjacent', () => {
    expect(score({ ...amy, name: 'Ava Chen' }, { ...amy, name: 'Eva Chen' }).agreement.given).not.toBe('keyboard');
  });
});

import { describe, expect, it } from 'vitest';
import { Fingerprinter } from './fingerprint.js';
import { acceptDemographics } from './stage1-demographics.js';
import { fingerprintDemographics } from './stage2-fingerprint.js';
import {
  DEFAULT_SCORING_MODEL,
  DEFAULT_THRESHOLDS,
  confidenceOf,
  matchTypeOf,
  scoreCandidates,
  scoreFingerprints,
} from './stage4-score.js';
import { KEY_1, NOW, ROBERT } from './test-support.js';

const fp = new Fingerprinter({ current: 'k1', keys: [KEY_1] });
const fields = (input: object) => fingerprintDemographics(acceptDemographics(input, { purpose: 'match', now: NOW }), fp).write.fields;
const score = (query: object, stored: object = ROBERT) => scoreFingerprints(fields(query), fields(stored));
const type = (query: object, stored: object = ROBERT) => matchTypeOf(score(query, stored));

describe('stage 4: scoring on fingerprints', () => {
  it('DETERMINISTIC: exact full name + DOB + email or phone', () => {
    expect(type(ROBERT)).toBe('DETERMINISTIC');
    expect(type({ name: 'SMITH, Robert', dob: '03/04/1980', phone: '212.867.5309' })).toBe('DETERMINISTIC');
    expect(type({ name: 'Robert Smith', dob: '19800304', email: 'ROBSMITH+x@googlemail.com' })).toBe('DETERMINISTIC');
  });

  it('never DETERMINISTIC without all three', () => {
    expect(type({ name: 'Bob Smith', dob: '1980-03-04', phone: '212-867-5309' })).toBe('PARTIAL');
    expect(type({ name: 'Robert Smith', dob: '1980-03-04' })).toBe('PARTIAL');
    expect(type({ name: 'Robert Smith', dob: '1980-04-03', phone: '212-867-5309' })).toBe('PARTIAL');
    expect(type({ name: 'Smith Robert', dob: '1980-03-04', phone: '212-867-5309' })).toBe('PARTIAL');
  });

  it.each([
    ['nickname', { name: 'Bob Smith', dob: '1980-03-04' }, { given: 'nickname', family: 'exact', dob: 'exact' }],
    ['family typo', { name: 'Robert Smyth', dob: '1980-03-04' }, { given: 'exact', family: 'typo', dob: 'exact' }],
    ['given typo', { name: 'Robret Smith', dob: '1980-03-04' }, { given: 'typo', family: 'exact', dob: 'exact' }],
    ['diacritics', { name: 'Róbert Smíth', dob: '1980-03-04' }, { given: 'exact', family: 'exact', dob: 'exact' }],
    ['DOB swap', { name: 'Robert Smith', dob: '1980-04-03' }, { dob: 'swapped' }],
    ['order swap', { name: 'Smith Robert', dob: '1980-03-04' }, { nameOrder: 'swapped', given: 'exact', family: 'exact' }],
    ['initial', { name: 'R. Smith', dob: '1980-03-04', phone: '2128675309' }, { given: 'initial' }],
    ['changed email', { name: 'Robert Smith', dob: '1980-03-04', email: 'robert@work.example' }, { email: 'disagree' }],
  ])('PARTIAL on %s', (_label, query, agreement) => {
    const s = score(query);
    expect(matchTypeOf(s)).toBe('PARTIAL');
    expect(s.confidence).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.partial);
    expect(s.agreement).toMatchObject(agreement);
  });

  it('NONE for a different person', () => {
    expect(type({ name: 'Alice Jones', dob: '1991-07-22', email: 'alice@example.com' })).toBe('NONE');
    expect(score({ name: 'Alice Jones', dob: '1991-07-22' }).confidence).toBeLessThan(0.001);
  });

  it('NONE for a twin sharing the family phone', () => {
    const twinA = { name: 'Emma Smith', dob: '2015-06-01', phone: '212-867-5309' };
    const twinB = { name: 'Olivia Smith', dob: '2015-06-01', phone: '212-867-5309' };
    const s = score(twinB, twinA);
    expect(s.agreement).toMatchObject({ given: 'disagree', family: 'exact', dob: 'exact', phone: 'exact', contactDiscounted: true });
    expect(matchTypeOf(s)).toBe('NONE');
  });

  it('NONE for a father and son of the same name sharing a phone', () => {
    const senior = { name: 'Robert Smith', dob: '1955-01-20', phone: '212-867-5309' };
    const junior = { name: 'Robert Smith Jr', dob: '1985-09-02', phone: '212-867-5309' };
    expect(type(junior, senior)).toBe('NONE');
  });

  it('NONE on a name alone: common names are not identity', () => {
    expect(type({ name: 'Robert Smith' })).toBe('NONE');
  });

  it('keeps confidence within [0, 1] and monotone in the weight', () => {
    expect(confidenceOf(1000, 0)).toBe(1);
    expect(confidenceOf(-1000, 0)).toBe(0);
    expect(confidenceOf(0, 0)).toBe(0.5);
    expect(confidenceOf(10, -20)).toBeLessThan(confidenceOf(11, -20));
  });

  it('lets two equally good candidates share the probability', () => {
    const query = fields({ name: 'Robert Smith', dob: '1980-03-04' });
    const same = fields({ name: 'Robert Smith', dob: '1980-03-04' });
    const one = scoreCandidates(query, [{ record: { gpid: 'SVC-1', status: 'ACTIVE', sources: [], fields: same }, keyHits: 3 }]);
    const two = scoreCandidates(query, [
      { record: { gpid: 'SVC-1', status: 'ACTIVE', sources: [], fields: same }, keyHits: 3 },
      { record: { gpid: 'SVC-2', status: 'ACTIVE', sources: [], fields: same }, keyHits: 3 },
    ]);
    expect(one[0]!.confidence).toBeGreaterThan(0.99);
    expect(two[0]!.confidence).toBeLessThan(0.51);
    expect(two[0]!.pairConfidence).toBe(one[0]!.pairConfidence);
  });

  it('ranks DETERMINISTIC first, then by weight', () => {
    const query = fields(ROBERT);
    const ranked = scoreCandidates(query, [
      { record: { gpid: 'SVC-B', status: 'SHADOW', sources: [], fields: fields({ name: 'Bob Smith', dob: '1980-03-04' }) }, keyHits: 1 },
      { record: { gpid: 'SVC-A', status: 'ACTIVE', sources: [], fields: fields(ROBERT) }, keyHits: 5 },
    ]);
    expect(ranked.map((c) => [c.gpid, c.matchType])).toEqual([
      ['SVC-A', 'DETERMINISTIC'],
      ['SVC-B', 'NONE'],
    ]);
  });

  it('uses the model given', () => {
    const strict = { ...DEFAULT_SCORING_MODEL, priorLog2Odds: -40 };
    expect(scoreFingerprints(fields(ROBERT), fields({ name: 'Bob Smith', dob: '1980-03-04' }), strict).confidence).toBeLessThan(0.5);
  });
});

describe('stage 4: addresses, identifiers and the hard rules', () => {
  const home = { lines: ['12 Orchard Lane', 'Unit 3'], city: 'Dover', state: 'DE', postal_code: '19901' };
  const twinA = { name: 'Ada Lindqvist', dob: '1995-05-05', address: home, email: 'lindqvist.family@example.com' };
  const twinB = { name: 'Eva Lindqvist', dob: '1995-05-05', address: { lines: ['12 Orchard Ln Apt 3'], postal_code: '19901-0001' }, email: 'lindqvist.family@example.com' };

  it('twins are blocked by rule even under a model that would trust their shared address and inbox', () => {
    const trusting = { ...DEFAULT_SCORING_MODEL, dependentContactCapLog2: 100 };
    const s = scoreFingerprints(fields(twinB), fields(twinA), trusting);
    expect(s.confidence).toBeGreaterThan(0.99);
    expect(s.agreement).toMatchObject({ given: 'disagree', family: 'exact', dob: 'exact', address: 'exact', blockedBy: 'twins' });
    expect(s.deterministic).toBe(false);
    // Under the default model the shared address adds at most the cap.
    const d = score(twinB, twinA);
    expect(d.agreement.weights.address).toBeLessThanOrEqual(DEFAULT_SCORING_MODEL.dependentContactCapLog2);
    expect(d.confidence).toBeLessThan(DEFAULT_THRESHOLDS.autoLink);
  });

  it('twins stay apart with their own SSNs or none; one SSN under two given names is one person', () => {
    const ssn = (value: string) => ({ identifiers: [{ system: 'ssn', value }] });
    const twins = score({ name: 'Eva Lindqvist', dob: '1995-05-05', ...ssn('123-45-6789') }, { name: 'Ada Lindqvist', dob: '1995-05-05', ...ssn('456-12-3478') });
    expect(twins.agreement).toMatchObject({ identifier: 'conflict', blockedBy: 'identifier_conflict' });
    // An agreeing SSN is what twins never share: a replaced given name (FEBRL) or another name in use.
    const renamed = score({ name: 'Eva Lindqvist', dob: '1995-05-05', ...ssn('123-45-6789') }, { name: 'Ada Lindqvist', dob: '1995-05-05', ...ssn('123-45-6789') });
    expect(renamed.agreement).toMatchObject({ given: 'disagree', identifier: 'exact', blockedBy: null });
    // A keying error of the SSN is no agreement: the twins rule still holds.
    expect(score({ name: 'Eva Lindqvist', dob: '1995-05-05', ...ssn('123-45-6789') }, { name: 'Ada Lindqvist', dob: '1995-05-05', ...ssn('123-45-6798') }).agreement).toMatchObject({ identifier: 'typo', blockedBy: 'twins' });
    // Neither is the middle name in use, nor an initial.
    expect(score({ name: 'Ann Lindqvist', dob: '1995-05-05', ...ssn('123-45-6789') }, { name: 'Mary Ann Lindqvist', dob: '1995-05-05', ...ssn('123-45-6789') }).agreement).toMatchObject({ given: 'token', blockedBy: null });
  });

  it('the weights of the explanation add up to the score', () => {
    const s = score({ ...ROBERT, sex: 'male', address: home, identifiers: [{ system: 'ssn', value: '123-45-6789' }] }, { ...ROBERT, sex: 'male', address: home, identifiers: [{ system: 'ssn', value: '123456789' }] });
    const sum = Object.values(s.agreement.weights).reduce((a, b) => a + b, 0);
    expect(sum).toBeCloseTo(s.weight, 5);
    expect(s.agreement).toMatchObject({ sex: 'exact', address: 'exact', identifier: 'exact', blockedBy: null });
  });

  it('an identifier conflicts only within its scope (system and assigner)', () => {
    const mrn = (value: string, assigner: string) => ({ ...ROBERT, identifiers: [{ system: 'mrn', value, assigner }] });
    expect(score(mrn('1', 'Mercy'), mrn('2', 'Mercy')).agreement).toMatchObject({ identifier: 'conflict', blockedBy: 'identifier_conflict' });
    expect(score(mrn('1', 'Mercy'), mrn('1', 'mercy')).agreement).toMatchObject({ identifier: 'exact', blockedBy: null });
    expect(score(mrn('1', 'Mercy'), mrn('2', 'General')).agreement).toMatchObject({ identifier: 'missing', blockedBy: null });
    // Exact name, DOB, email and phone: DETERMINISTIC would follow, but not with a conflicting SSN.
    const ssn = (value: string) => ({ ...ROBERT, identifiers: [{ system: 'ssn', value }] });
    const conflict = score(ssn('123-45-6789'), ssn('123-54-0789'));
    expect(conflict.deterministic).toBe(false);
    expect(matchTypeOf(conflict)).toBe('PARTIAL');
    // A member id shared by a family plan counts no more than contact data for another given name.
    const member = (name: string) => ({ name, dob: '1980-03-04', identifiers: [{ system: 'insurance_member_id', value: 'XGH 55102', assigner: 'Acme Health' }] });
    expect(score(member('Laura Smith'), member('Robert Smith')).agreement.weights.memberId).toBeLessThanOrEqual(2);
  });
});

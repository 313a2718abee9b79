import { describe, expect, it } from 'vitest';
import { Fingerprinter } from './fingerprint.js';
import { parseIdentifier } from './normalize/identifier.js';
import { acceptDemographics } from './stage1-demographics.js';
import { fingerprintDemographics } from './stage2-fingerprint.js';
import { DEFAULT_SCORING_MODEL, scoreFingerprints, upgradeScoringModel, type ScoringModel } from './stage4-score.js';
import { trainScoringModel } from './stage4-training.js';
import { KEY_1, NOW, testPipeline } from './test-support.js';

const fp = new Fingerprinter({ current: 'k1', keys: [KEY_1] });
const fields = (input: object) => fingerprintDemographics(acceptDemographics(input, { purpose: 'match', now: NOW }), fp).write.fields;
const PERSON = { name: 'Marguerite Oyelaran', dob: '1971-08-19', address: { lines: ['40 Quarry Road'], postal_code: '02139' } };
const withId = (identifier: object, person: object = PERSON) => ({ ...person, identifiers: [identifier] });
const agreement = (a: object, b: object) => scoreFingerprints(fields(a), fields(b)).agreement;
const ssn = (value: string, more: object = {}) => withId({ system: 'ssn', value, ...more });
const npi = (value: string, more: object = {}) => withId({ system: 'http://hl7.org/fhir/sid/us-npi', value, ...more });

describe('identifier levels: exact, keying error, true conflict', () => {
  it('tells one substitution or transposition from a true conflict, on fingerprints', () => {
    expect(agreement(ssn('123-45-6789'), ssn('123456789'))).toMatchObject({ identifier: 'exact', blockedBy: null });
    expect(agreement(ssn('123-45-6789'), ssn('123-45-6780'))).toMatchObject({ identifier: 'typo', blockedBy: null });
    expect(agreement(ssn('123-45-6789'), ssn('123-45-6879'))).toMatchObject({ identifier: 'typo', blockedBy: null });
    expect(agreement(ssn('123-45-6789'), ssn('123-45-8796'))).toMatchObject({ identifier: 'conflict', blockedBy: 'identifier_conflict' });
    // Weighed like every other level: an agreement, less than an exact value, none blocking.
    const weights = (a: object, b: object) => scoreFingerprints(fields(a), fields(b)).agreement.weights.identifier;
    expect(weights(ssn('123-45-6789'), ssn('123-45-6780'))).toBeGreaterThan(0);
    expect(weights(ssn('123-45-6789'), ssn('123-45-6780'))).toBeLessThan(weights(ssn('123-45-6789'), ssn('123-45-6789')));
    // Three characters are too few for a keying error to mean anything.
    const mrn = (value: string) => withId({ system: 'mrn', value, assigner: 'Mercy' });
    expect(agreement(mrn('A12'), mrn('A13'))).toMatchObject({ identifier: 'conflict' });
  });

  it('a check digit decides: a valid NPI one key away is another number, a failing one a keying error', () => {
    expect(parseIdentifier({ system: 'npi', value: '1234567893' }, 'i')).toMatchObject({ identifier: { system: 'npi', checkDigitFailed: false } });
    expect(agreement(npi('1234567893'), npi('1234567893'))).toMatchObject({ identifier: 'exact' });
    expect(agreement(npi('1234567893'), npi('1245319599'))).toMatchObject({ identifier: 'conflict', blockedBy: 'identifier_conflict' });
    expect(parseIdentifier({ system: 'npi', value: '1234567894' }, 'i')).toMatchObject({ identifier: { checkDigitFailed: true } });
    expect(agreement(npi('1234567893'), npi('1234567894'))).toMatchObject({ identifier: 'typo', blockedBy: null });
  });

  it('a keying error on an identifier its source verified blocks the automatic link', () => {
    expect(agreement(ssn('123-45-6789', { verified: true }), ssn('123-45-6780'))).toMatchObject({ identifier: 'typo', blockedBy: 'verified_identifier_conflict' });
    expect(agreement(ssn('123-45-6789'), ssn('123-45-6780', { verified: true }))).toMatchObject({ blockedBy: 'verified_identifier_conflict' });
    expect(agreement(ssn('123-45-6789', { verified: true }), ssn('123-45-6789'))).toMatchObject({ identifier: 'exact', blockedBy: null });
    expect(parseIdentifier({ system: 'ssn', value: '123456789', verified: 'yes' }, 'identifiers.0')).toMatchObject({ ok: false, problems: [{ field: 'identifiers.0.verified' }] });
  });

  it('twins sharing family name, DOB and address never merge; a replaced given name with the same SSN does', async () => {
    const { pipeline } = testPipeline();
    const home = { lines: ['7 Elm Court'], postal_code: '30301' };
    const ada = await pipeline.resolve({ name: 'Ada Okonjo', dob: '2001-02-03', address: home, identifiers: [{ system: 'ssn', value: '321-54-9876' }] }, { source: 'pulse' });
    const eva = await pipeline.resolve({ name: 'Eva Okonjo', dob: '2001-02-03', address: home }, { source: 'pulse' });
    expect(eva.gpid).not.toBe(ada.gpid);
    expect(eva.candidates[0]?.agreement.blockedBy).toBe('twins');
    const evaSsn = await pipeline.resolve({ name: 'Eva Okonjo', dob: '2001-02-03', address: home, identifiers: [{ system: 'ssn', value: '654-21-3987' }] }, { source: 'pulse' });
    expect(evaSsn.gpid).not.toBe(ada.gpid);
    const renamed = await pipeline.resolve({ name: 'Adaeze Okonjo', dob: '2001-02-03', address: home, identifiers: [{ system: 'ssn', value: '321-54-9876' }] }, { source: 'lake' });
    expect(renamed).toMatchObject({ gpid: ada.gpid, decision: 'EXISTING' });
  });
});

describe('identifier systems by URI and v2-0203 type', () => {
  it('maps the well-known URIs and type codes to the registry systems', () => {
    const parse = (raw: object) => parseIdentifier(raw, 'identifiers.0');
    expect(parse({ system: 'http://hl7.org/fhir/sid/us-ssn', value: '123-45-6789' })).toMatchObject({ identifier: { system: 'ssn', assigner: '' } });
    expect(parse({ system: 'urn:oid:2.16.840.1.113883.4.1', value: '123-45-6789', assigner: 'SSA' })).toMatchObject({ identifier: { system: 'ssn', assigner: '' } });
    expect(parse({ system: 'urn:oid:2.16.840.1.113883.4.3.25', value: 'S12345678' })).toMatchObject({ identifier: { system: 'drivers_license', assigner: 'ma' } });
    expect(parse({ system: 'urn:oid:2.16.840.1.113883.4.3.3', value: 'S12345678' })).toMatchObject({ ok: false, problems: [{ field: 'identifiers.0.system' }] });
    expect(parse({ system: 'urn:oid:1.2.36.146.595.217.0.1', type: 'MR', value: '00-42' })).toMatchObject({ identifier: { system: 'mrn', value: '0042' } });
    // The number space of an MRN is its system URI: the same MRN under the short system and the assigner agrees.
    expect(agreement(withId({ system: 'urn:oid:1.2.36.146.595.217.0.1', type: 'MR', value: '0042' }), withId({ system: 'mrn', assigner: 'urn:oid:1.2.36.146.595.217.0.1', value: '00-42' }))).toMatchObject({ identifier: 'exact' });
    expect(parse({ type: 'dl', value: 'F123', assigner: 'Oregon' })).toMatchObject({ identifier: { system: 'drivers_license', assigner: 'or' } });
    expect(parse({ type: 'PPN', value: 'X1234567', assigner: 'CAN' })).toMatchObject({ identifier: { system: 'passport', assigner: 'CAN' } });
    expect(parse({ type: 'XX', value: '1' })).toMatchObject({ ok: false, problems: [{ field: 'identifiers.0.type' }] });
    expect(parse({ system: 'loyalty', value: '1' })).toMatchObject({ ok: false, problems: [{ field: 'identifiers.0.system' }] });
  });

  it('keeps an unknown system as an opaque one: equal values of that very system agree, nothing else counts', () => {
    const opaque = (system: string, value: string) => withId({ system, value });
    expect(parseIdentifier({ system: 'https://clinic.example/patients', value: 'p-17/a' }, 'i')).toMatchObject({ identifier: { system: 'opaque', assigner: 'https://clinic.example/patients', value: 'p-17/a' } });
    expect(agreement(opaque('https://clinic.example/patients', 'p-17'), opaque('https://clinic.example/patients', 'p-17'))).toMatchObject({ memberId: 'exact', identifier: 'missing', blockedBy: null });
    expect(agreement(opaque('https://clinic.example/patients', 'p-17'), opaque('https://clinic.example/patients', 'p-18'))).toMatchObject({ memberId: 'missing', identifier: 'missing', blockedBy: null });
    expect(agreement(opaque('https://clinic.example/patients', 'p-17'), opaque('https://other.example/patients', 'p-17'))).toMatchObject({ memberId: 'missing' });
  });
});

describe('joined and split names without a date of birth', () => {
  it('"Isab elle" is found and queued like "Isabelle" when no DOB is sent', async () => {
    const { pipeline } = testPipeline();
    const first = await pipeline.resolve({ name: 'Isabelle Marchetti', dob: '1988-11-02' }, { source: 'pulse' });
    const joined = await pipeline.resolve({ name: 'Isabelle Marchetti' }, { source: 'lake' });
    const split = await pipeline.resolve({ name: 'Isab elle Marchetti' }, { source: 'lake' });
    expect(joined).toMatchObject({ decision: 'NEW_PROVISIONAL' });
    expect(joined.links).toContain(first.gpid);
    expect(split).toMatchObject({ decision: 'NEW_PROVISIONAL' });
    expect(split.links).toContain(first.gpid);
  });
});

describe('the model with identifier levels', () => {
  it('learns the identifier m/u like the rest, the same model for the same data and seed; an older model still scores', async () => {
    const { pipeline, registry } = testPipeline();
    for (let i = 0; i < 40; i++) {
      const person = { name: `Person${String.fromCharCode(97 + (i % 26))}x Family${i}`, dob: `19${50 + i}-03-1${i % 9}` };
      const value = `${100 + i}-45-${String(1000 + i * 7).padStart(4, '0')}`;
      await pipeline.resolve(withId({ system: 'ssn', value }, person), { source: 'pulse' });
      // One record in four comes back with a keying error in its SSN.
      const typo = i % 4 === 0 ? `${100 + i}-45-${String(1000 + i * 7).padStart(4, '0').split('').reverse().join('')}` : value;
      await pipeline.resolve(withId({ system: 'ssn', value: typo }, person), { source: 'lake' });
    }
    const records = [...registry.all()].map((r) => ({ gpid: r.gpid, fields: r.fields, blockingKeys: r.blockingKeys }));
    const first = await trainScoringModel(records, { seed: 7, version: 2, randomPairs: 400 });
    const again = await trainScoringModel([...records].reverse(), { seed: 7, version: 2, randomPairs: 400 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
    expect(first.model.identifier.typo).toBeDefined();
    expect(first.model.identifier.typo2).toBeDefined();

    // A model stored before the two-error level: read with it added, so two substitutions are weighed, not a conflict.
    const { typo2: _typo2, ...withoutTwo } = DEFAULT_SCORING_MODEL.identifier;
    const older = upgradeScoringModel(JSON.parse(JSON.stringify({ ...DEFAULT_SCORING_MODEL, version: 6, identifier: withoutTwo })) as ScoringModel);
    expect(older.identifier.typo2).toEqual(DEFAULT_SCORING_MODEL.identifier.typo2);
    const twoErrors = scoreFingerprints(fields(ssn('123-45-6789')), fields(ssn('123-45-6712')), older).agreement;
    expect(twoErrors).toMatchObject({ identifier: 'typo2', blockedBy: null });
    expect(twoErrors.weights.identifier).toBeGreaterThan(0);
    expect(scoreFingerprints(fields(ssn('123-45-6789')), fields(ssn('123-98-1289'))).agreement).toMatchObject({ identifier: 'conflict', blockedBy: 'identifier_conflict' });

    // A model stored before the keying-error level: read with the level added, scores the same way.
    const { typo: _typo, ...exactOnly } = DEFAULT_SCORING_MODEL.identifier;
    const old = JSON.parse(JSON.stringify({ ...DEFAULT_SCORING_MODEL, version: 5, identifier: exactOnly })) as ScoringModel;
    const upgraded = upgradeScoringModel(old);
    expect(upgraded).toMatchObject({ version: 5, identifier: DEFAULT_SCORING_MODEL.identifier });
    expect(scoreFingerprints(fields(ssn('123-45-6789')), fields(ssn('123-45-6780')), upgraded).weight).toBe(scoreFingerprints(fields(ssn('123-45-6789')), fields(ssn('123-45-6780'))).weight);
  });
});

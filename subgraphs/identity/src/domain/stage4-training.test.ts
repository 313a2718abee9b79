import { describe, expect, it } from 'vitest';
import { InMemoryIdentityRegistry } from './registry.js';
import { DEFAULT_SCORING_MODEL, scoreFingerprints, WEIGHTED_COMPARISONS, type ScoringModel } from './stage4-score.js';
import { trainScoringModel, type TrainingRecord } from './stage4-training.js';
import { testPipeline } from './test-support.js';

const GIVEN = ['Emma', 'Olivia', 'Liam', 'Noah', 'Ava', 'Mia', 'Lucas', 'Ethan', 'Amelia', 'Harper', 'Mateo', 'Elena'];
const FAMILY = ['Smith', 'Garcia', 'Nguyen', 'Okafor', 'Kowalski', 'Rossi', 'Smith', 'Smith', 'Haddad', 'Lindqvist'];

/** A small registry: 60 people, some resolved twice with a typo, a shared family name or two. */
async function smallRegistry(): Promise<{ registry: InMemoryIdentityRegistry; records: TrainingRecord[] }> {
  const { pipeline, registry } = testPipeline();
  for (let i = 0; i < 60; i++) {
    const person = {
      name: `${GIVEN[i % GIVEN.length]} ${FAMILY[(i * 7) % FAMILY.length]}`,
      dob: `19${50 + (i % 45)}-0${1 + (i % 9)}-${String(10 + (i % 18)).padStart(2, '0')}`,
      phone: `617-555-${String(1000 + i).padStart(4, '0')}`,
    };
    await pipeline.resolve(person, { source: 'pulse' });
    if (i % 3 === 0) await pipeline.resolve({ ...person, phone: `508-555-${String(2000 + i).padStart(4, '0')}` }, { source: 'provider' });
  }
  const records = [...registry.all()].map((r) => ({ gpid: r.gpid, fields: r.fields, blockingKeys: r.blockingKeys }));
  return { registry, records };
}

describe('training the scoring model', () => {
  it('gives the same model twice for the same records, labels and seed, and another for another seed', async () => {
    const { records } = await smallRegistry();
    const labels = [{ leftRecordId: records[0]!.gpid, rightRecordId: records[1]!.gpid, same: false }];
    const first = await trainScoringModel(records, { seed: 42, version: 2, labels, randomPairs: 500 });
    const second = await trainScoringModel([...records].reverse(), { seed: 42, version: 2, labels, randomPairs: 500 });
    expect(JSON.stringify(second)).toBe(JSON.stringify(first));
    expect(first.model.version).toBe(2);
    expect(first.summary).toMatchObject({ records: records.length, randomPairs: 500, labelledPairs: 1, labelsSkipped: 0 });
    const other = await trainScoringModel(records, { seed: 43, version: 2, labels, randomPairs: 500 });
    expect(JSON.stringify(other.model)).not.toBe(JSON.stringify(first.model));
  });

  it('estimates u from random pairs and keeps the base where evidence is too thin', async () => {
    const { records } = await smallRegistry();
    const { model, summary } = await trainScoringModel(records, { seed: 1, version: 2, randomPairs: 1500 });
    expect(summary.estimated.u).toContain('given.exact');
    // 12 given names among 60 people: two random records share one about 1 time in 12.
    expect(model.given.exact.u).toBeGreaterThan(0.04);
    expect(model.given.exact.u).toBeLessThan(0.15);
    // No random pair shares a birth date here: the measured base value stays.
    expect(model.dob.exact.u).toBe(DEFAULT_SCORING_MODEL.dob.exact.u);
    // Smith is a quarter of the registry: an agreement on it weighs less than on a rare name.
    expect(Object.keys(model.termFrequencies?.family ?? {})).toHaveLength(1);
  });

  it('reads labelled pairs as the answer for those pairs', async () => {
    const { records } = await smallRegistry();
    const labels = records.slice(0, 20).map((r, i) => ({ leftRecordId: r.gpid, rightRecordId: records[i + 20]!.gpid, same: true }));
    const { summary } = await trainScoringModel(records, { seed: 1, version: 3, labels: [...labels, { leftRecordId: 'SVC-FFFFFFFF', rightRecordId: records[0]!.gpid, same: true }], randomPairs: 500 });
    expect(summary).toMatchObject({ labelledPairs: 20, labelsSkipped: 1 });
    expect(summary.estimated.m.length).toBeGreaterThan(0);
  });

  it('never links twins automatically, whatever the trained weights say', async () => {
    const twinA = { name: 'Emma Lindqvist', dob: '2015-06-01', phone: '212-867-5309', email: 'family@example.org', address: { lines: ['12 Elm Street'], city: 'Boston', state: 'MA', postal_code: '02118' } };
    const twinB = { ...twinA, name: 'Olivia Lindqvist' };
    const { pipeline: loader, registry } = testPipeline();
    await loader.resolve(twinA, { source: 'pulse' });
    // Adversarial training: an operator labelled a twin pair as the same person, and the base says
    // a given-name disagreement costs nothing.
    const base: ScoringModel = { ...DEFAULT_SCORING_MODEL, given: { ...DEFAULT_SCORING_MODEL.given, exact: { m: 0.0001, u: 0.5 } } };
    const records = [...registry.all()].map((r) => ({ gpid: r.gpid, fields: r.fields, blockingKeys: r.blockingKeys }));
    const { model } = await trainScoringModel(records, { seed: 7, version: 2, base, labels: [] });
    const { pipeline } = testPipeline({ registry, model });
    const match = await pipeline.match(twinB);
    expect(match.candidates[0]?.agreement).toMatchObject({ given: 'disagree', family: 'exact', dob: 'exact', blockedBy: 'twins', modelVersion: 2 });
    expect(match.candidates[0]?.matchType).not.toBe('DETERMINISTIC');
    const resolved = await pipeline.resolve(twinB, { source: 'provider' });
    expect(resolved.created).toBe(true);
    expect(resolved.decision).not.toBe('EXISTING');
  });
});

/**
 * A stream of resolves: 60 (or `count`) people, each resolved twice; the second time, one in three with a new
 * phone. The registry ends with one record per person, the stream keeps both inbound records.
 */
async function resolvedTwice(count = 60): Promise<{ registry: InMemoryIdentityRegistry; records: TrainingRecord[]; observations: TrainingRecord[] }> {
  const { pipeline, registry } = testPipeline();
  const people = Array.from({ length: count }, (_, i) => ({
    name: `${GIVEN[i % GIVEN.length]} ${FAMILY[(i * 7) % FAMILY.length]}`,
    // A birth date of one's own: 23 days apart from 1 January 1950.
    dob: new Date(Date.UTC(1950, 0, 1 + 23 * i)).toISOString().slice(0, 10),
    phone: `617-555-${String(1000 + i).padStart(4, '0')}`,
  }));
  for (const person of people) await pipeline.resolve(person, { source: 'pulse' });
  for (const [i, person] of people.entries()) {
    await pipeline.resolve(i % 3 === 0 ? { ...person, phone: `508-555-${String(2000 + i).padStart(4, '0')}` } : person, { source: 'provider' });
  }
  const records = [...registry.all()].map((r) => ({ gpid: r.gpid, fields: r.fields, blockingKeys: r.blockingKeys }));
  const observations = registry.resolutions.map((r) => ({ gpid: r.gpid, ...r.observed }));
  return { registry, records, observations };
}

describe('training m from the resolves, not from the deduplicated registry', () => {
  it('learns m by EM from the duplicates in the stream of resolves, the same model for the same seed', async () => {
    const { records, observations } = await resolvedTwice();
    expect(records).toHaveLength(60);
    expect(observations).toHaveLength(120);
    const first = await trainScoringModel(records, { seed: 3, version: 2, observations, randomPairs: 800 });
    const { summary, model } = first;
    expect(summary.observations).toBe(120);
    const [byNameAndDob, byDob, byIdentifier] = summary.rounds;
    expect(byNameAndDob).toMatchObject({ rule: 'given name and date of birth exact', converged: true });
    expect(byNameAndDob!.pairs).toBeGreaterThanOrEqual(60);
    expect(byNameAndDob!.matchShare).toBeGreaterThan(0.9);
    expect(byDob).toMatchObject({ rule: 'date of birth exact, not twins', converged: true });
    expect(byDob!.pairs).toBeGreaterThanOrEqual(60);
    // No identifiers in this stream: that round does not run, and the DOB keeps the base m.
    expect(byIdentifier).toMatchObject({ rule: 'identifier exact', pairs: 0, iterations: 0 });
    expect(summary.estimated.m).toEqual(expect.arrayContaining(['given.exact', 'family.exact', 'phone.exact']));
    expect(summary.estimated.m).not.toContain('dob.exact');
    expect(model.dob.exact.m).toBe(DEFAULT_SCORING_MODEL.dob.exact.m);
    // Every duplicate kept both names: m(given exact) near 1, not the base 0.8.
    expect(model.given.exact.m).toBeGreaterThan(0.95);
    // A third of the duplicates came with a new phone: m(phone exact) near 2/3, not the base 0.7 by chance.
    expect(model.phone.exact.m).toBeGreaterThan(0.55);
    expect(model.phone.exact.m).toBeLessThan(0.8);
    expect(model.family.exact.m).toBeGreaterThan(0.95);
    const again = await trainScoringModel(records, { seed: 3, version: 2, observations, randomPairs: 800 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
  });

  it('estimates the prior from the inbound records: the larger the registry, the lower the prior', async () => {
    const small = await resolvedTwice(120);
    const large = await resolvedTwice(400);
    const trainedSmall = await trainScoringModel(small.records, { seed: 3, version: 2, observations: small.observations, randomPairs: 800 });
    const trainedLarge = await trainScoringModel(large.records, { seed: 3, version: 2, observations: large.observations, randomPairs: 800 });
    for (const [{ summary, model }, people] of [[trainedSmall, 120], [trainedLarge, 400]] as const) {
      // Each person's two inbound records agree exactly on both names and the DOB: one pair each.
      expect(summary.prior).toMatchObject({ exactPairs: people, pairs: (2 * people * (2 * people - 1)) / 2 });
      const { exactPairs, recall, pairs } = summary.prior!;
      const expected = Math.log2(exactPairs / recall / pairs / (1 - exactPairs / recall / pairs));
      expect(model.priorLog2Odds).toBe(summary.prior!.log2Odds);
      expect(model.priorLog2Odds).toBeCloseTo(Math.min(Math.max(expected, -30), -8), 5);
    }
    expect(trainedLarge.model.priorLog2Odds).toBeLessThan(trainedSmall.model.priorLog2Odds);
    expect(trainedLarge.model.priorLog2Odds).toBeGreaterThan(DEFAULT_SCORING_MODEL.priorLog2Odds);
    // Trained on the registry alone, there are no inbound pairs to count: the prior is kept.
    const registryOnly = await trainScoringModel(small.records, { seed: 3, version: 2, randomPairs: 800 });
    expect(registryOnly.summary.prior).toBeNull();
    expect(registryOnly.model.priorLog2Odds).toBe(DEFAULT_SCORING_MODEL.priorLog2Odds);
  });

  it('keeps the base m when only the registry is given: its blocked pairs are relatives, not duplicates', async () => {
    const { records } = await resolvedTwice();
    const { summary, model } = await trainScoringModel(records, { seed: 3, version: 2, randomPairs: 800 });
    expect(summary.observations).toBe(0);
    expect(summary.rounds.every((r) => r.iterations === 0)).toBe(true);
    expect(summary.estimated.m).toEqual([]);
    expect(model.phone.exact.m).toBe(DEFAULT_SCORING_MODEL.phone.exact.m);
  });
});

describe('the explanation adds up to the score', () => {
  it('Σ weights + prior = log2 odds, and the pairwise confidence is its logistic, for the default and a trained model', async () => {
    const { records } = await smallRegistry();
    const trained = (await trainScoringModel(records, { seed: 5, version: 2, randomPairs: 800 })).model;
    for (const model of [DEFAULT_SCORING_MODEL, trained]) {
      for (let i = 0; i + 1 < records.length; i += 3) {
        const s = scoreFingerprints(records[i]!.fields, records[i + 1]!.fields, model);
        const a = s.agreement;
        const sum = WEIGHTED_COMPARISONS.reduce((total, key) => total + a.weights[key], 0);
        expect(sum + a.priorLog2Odds).toBeCloseTo(a.log2Odds, 4);
        expect(a.log2Odds).toBeCloseTo(s.weight + model.priorLog2Odds, 5);
        expect(a.pairConfidence).toBeCloseTo(1 / (1 + 2 ** -a.log2Odds), 4);
        expect(a.modelVersion).toBe(model.version);
      }
    }
  });

  it('applies the term frequency of a common family name and says so', async () => {
    const { records } = await smallRegistry();
    const { model } = await trainScoringModel(records, { seed: 5, version: 2, randomPairs: 800 });
    const smiths = records.filter((r) => model.termFrequencies?.family && r.fields.family?.some((v) => v in model.termFrequencies!.family!));
    expect(smiths.length).toBeGreaterThan(5);
    const s = scoreFingerprints(smiths[0]!.fields, smiths[1]!.fields, model);
    expect(s.agreement.family).toBe('exact');
    expect(s.agreement.termFrequency.family).toBeLessThan(0);
    expect(s.agreement.weights.family).toBeCloseTo(Math.log2(model.family.exact.m / model.family.exact.u) + s.agreement.termFrequency.family!, 4);
  });
});

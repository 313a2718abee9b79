/**
 * Training the stage-4 model unsupervised, the way Splink does:
 *
 * - u (P(level | different people)) from random pairs of the registry's records (one per person):
 *   two records drawn at random are almost never the same person, so the share of random pairs
 *   landing on a level estimates u;
 * - m (P(level | same person)) by expectation–maximisation over blocked pairs (records sharing a
 *   blocking key) of the resolves' inbound records, which still hold each person's duplicates (the
 *   registry's own blocked pairs are mostly relatives). EM runs once per blocking rule (see
 *   ROUNDS), over the pairs that agree exactly on the rule's comparisons: with u fixed, it
 *   alternates the posterior of "same" for every pair (E) and the m that best explains the pairs
 *   so weighted (M), until m moves less than `tolerance`; the rule's own comparisons are neither
 *   evidence (their m is set to u, weight 0: the rule selected on them) nor estimated. The rounds'
 *   masses are pooled, with the base m as a prior worth `priorPairs` pairs;
 * - the prior (log2 odds that two records are one person) from the inbound records, as Splink's
 *   `estimate_probability_two_random_records_match`: see `estimatePrior`;
 * - labelled pairs (an operator's decision: same person) join the pooled mass at weight 1;
 * - term frequencies: for given name, family name and address, the share of records holding each
 *   common fingerprint (values more frequent than the level's u), so an agreement on a common value
 *   weighs less (see `ScoringModel.termFrequencies`).
 *
 * Everything is compared on fingerprints, with the scorer's own comparison levels, so the trained
 * parameters mean what the scorer means. A level seen fewer than `minEvidence` times among random
 * pairs keeps the base u (DOB exact, say: too rare to count); a comparison with fewer pairs than
 * that keeps the base m. Member ids, the order-swap penalty and the dependence caps are not
 * trained: pairs of member ids are rare (and shared by family plans), and the caps carry the
 * corrections for relatives. The identifier is trained like the rest: its m of an exact value, of a
 * keying error and of a true conflict from the rounds that do not select on it.
 * Training is deterministic: the records are sorted by GPID, the inbound records are taken in
 * their order, and every random choice comes from `seed`.
 */
import type { FieldSets } from './fields.js';
import {
  DEFAULT_SCORING_MODEL,
  scoreFingerprints,
  TERM_FREQUENCY_FIELDS,
  type Agreement,
  type ProbabilityPair,
  type ScoringModel,
  type TermFrequencyField,
} from './stage4-score.js';
import { seededRandom } from '@svc/platform';

/** A registry record as training reads it: fingerprints only. */
export interface TrainingRecord {
  gpid: string;
  fields: FieldSets;
  blockingKeys: readonly string[];
}

/** An operator's decision on a pair of records: the same person or not. */
/**
 * One inbound record as a resolve saw it: its keyed fingerprints and blocking keys, and the GPID it
 * was resolved to. The registry keeps one record per person, so its own blocked pairs are mostly
 * relatives; the stream of resolves still holds a person's duplicates, and EM learns m from those
 * (as Splink does on raw input).
 */
export type TrainingObservation = TrainingRecord;

export interface TrainingLabel {
  leftRecordId: string;
  rightRecordId: string;
  same: boolean;
}

export interface TrainingOptions {
  /** Seed of every random choice: the same records, labels and seed give the same model. */
  seed: number;
  /** Version number of the trained model. */
  version: number;
  /** Starting point and fallback for what cannot be estimated. Default: the hand-set model. */
  base?: ScoringModel;
  labels?: readonly TrainingLabel[];
  /**
   * The resolves' inbound records, oldest first: EM's blocked pairs are drawn from them when there
   * are any (u and term frequencies still come from the registry's records, one per person).
   */
  observations?: readonly TrainingObservation[];
  /** Random pairs drawn for u. Default 50,000. */
  randomPairs?: number;
  /** Blocked pairs used by EM (a seeded sample when there are more). Default 100,000. */
  maxBlockedPairs?: number;
  /** A blocking key shared by more records than this is skipped (a common name, not a candidate set). Default 20. */
  maxBlockSize?: number;
  /** Most EM iterations. Default 50. */
  maxIterations?: number;
  /** EM stops once no m moves more than this. Default 1e-6. */
  tolerance?: number;
  /** Weight of the base m, in pairs, against EM's pairs (a Dirichlet prior). Default 10. */
  priorPairs?: number;
  /** A blocking rule that selects fewer pairs than this is not run (its comparisons keep the base m). Default 20. */
  minRoundPairs?: number;
  /** Fewer observations than this on a level keep its base u; fewer pairs than this for a comparison keep its base m. Default 5. */
  minEvidence?: number;
  /** Most term-frequency entries per field. Default 1,000. */
  termFrequencyEntries?: number;
}

export interface TrainingSummary {
  records: number;
  /** Inbound records EM's blocked pairs were drawn from (0: the registry's records were). */
  observations: number;
  randomPairs: number;
  blockedPairs: number;
  labelledPairs: number;
  /** Labels naming a record that is not in the training set (merged since, or unknown). */
  labelsSkipped: number;
  /** EM's runs, one per blocking rule (see ROUNDS). */
  rounds: TrainingRound[];
  /** Levels estimated from the data, as `comparison.level` (the others kept the base value). */
  estimated: { m: string[]; u: string[] };
  /** The prior, estimated from the inbound records (see `estimatePrior`), or null when it kept the base value. */
  prior: PriorEstimate | null;
}

export interface PriorEstimate {
  /** Inbound pairs that agree exactly on given name, family name and date of birth. */
  exactPairs: number;
  /** The trained P(all three exact | same person): the share of true pairs those are. */
  recall: number;
  /** Pairs of inbound records in all. */
  pairs: number;
  log2Odds: number;
}

export interface TrainingRound {
  /** The blocking rule: which blocked pairs this round ran over. */
  rule: string;
  pairs: number;
  iterations: number;
  converged: boolean;
  /** EM's share of "same person" among the round's pairs. */
  matchShare: number;
}

export interface TrainedModel {
  model: ScoringModel;
  summary: TrainingSummary;
}

/**
 * The comparisons EM estimates: the scorer's, the personal identifier included (exact and keying
 * error; a true conflict is its disagreement), member ids left out (a family plan shares one).
 */
const TRAINED = ['given', 'family', 'dob', 'email', 'phone', 'sex', 'address', 'identifier'] as const;
type Trained = (typeof TRAINED)[number];

/**
 * EM's blocking rules, the way Splink estimates m without labels. A round runs over the blocked
 * pairs that agree exactly on the rule's comparisons; those agree by construction, so the round
 * neither scores nor estimates them, and the other comparisons' m is learnt from pairs that are
 * mostly one person. Over every blocked pair instead, EM learns households: relatives share
 * family name, address and phone, and outnumber a person's duplicates.
 *
 * - given name and date of birth exact: relatives rarely share both (twins have two names); gives
 *   family name, e-mail, phone, sex and address;
 * - date of birth exact, twins left out (the scorer's twins rule: one family name, different given
 *   names): two free name comparisons, so EM tells a person's misspelt or replaced names from
 *   strangers born the same day; gives given and family name and the rest. With one free
 *   comparison only (a rule on both names, say), EM cannot tell a person's changed DOB from a
 *   namesake's and puts every disagreement on the namesakes;
 * - an identifier exact (SSN, MRN with its authority, …): one person's; gives every comparison,
 *   given name and date of birth included.
 */
const ROUNDS: ReadonlyArray<{ rule: string; fixed: readonly string[]; selects: (a: Agreement) => boolean }> = [
  { rule: 'given name and date of birth exact', fixed: ['given', 'dob'], selects: (a) => a.given === 'exact' && a.dob === 'exact' },
  { rule: 'date of birth exact, not twins', fixed: ['dob'], selects: (a) => a.dob === 'exact' && a.blockedBy !== 'twins' },
  { rule: 'identifier exact', fixed: ['identifier'], selects: (a) => a.identifier === 'exact' },
];

/** Level index per trained comparison: 0..k−1 the model's levels, k disagree, −1 missing. */
type Vector = Int8Array;

function levelNames(model: ScoringModel, c: Trained): string[] {
  return Object.keys(model[c]);
}

function vectorOf(a: FieldSets, b: FieldSets, model: ScoringModel, levels: Record<Trained, string[]>): Vector {
  return vectorOfAgreement(scoreFingerprints(a, b, model).agreement, levels);
}

function vectorOfAgreement(agreement: Agreement, levels: Record<Trained, string[]>): Vector {
  const v = new Int8Array(TRAINED.length);
  TRAINED.forEach((c, i) => {
    const level = agreement[c] as string;
    if (level === 'missing') v[i] = -1;
    else if (level === 'disagree') v[i] = levels[c].length;
    else {
      const at = levels[c].indexOf(level);
      v[i] = at < 0 ? levels[c].length : at;
    }
  });
  return v;
}

function termFrequencies(records: readonly TrainingRecord[], base: ScoringModel, minEvidence: number, maxEntries: number) {
  const out: Partial<Record<TermFrequencyField, Record<string, number>>> = {};
  const n = records.length;
  if (n === 0) return out;
  for (const field of TERM_FREQUENCY_FIELDS) {
    const counts = new Map<string, number>();
    for (const r of records) for (const value of new Set(r.fields[field] ?? [])) counts.set(value, (counts.get(value) ?? 0) + 1);
    const u = base[field].exact.u;
    const common = [...counts]
      .filter(([, count]) => count >= minEvidence && count / n > u)
      .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
      .slice(0, maxEntries);
    if (common.length > 0) out[field] = Object.fromEntries(common.map(([value, count]) => [value, count / n]));
  }
  return out;
}

/** The prior is kept within these log2 odds (a registry of about 250 to 10^9 people). */
const PRIOR_BOUNDS = { min: -30, max: -8 } as const;

/**
 * The prior as Splink estimates "the probability that two random records match": the pairs of
 * inbound records that agree exactly on given name, family name and date of birth, divided by the
 * share of true pairs that do so (the trained m of those three exact levels, multiplied), over all
 * pairs. It follows the registry's size: one in a million for a million people, one in five thousand
 * for five thousand, where a fixed prior would refuse a small registry's sure links or make a large
 * one's chance agreements look certain. Null when the evidence is too thin.
 */
function estimatePrior(exactPairs: number, pool: number, model: ScoringModel, minEvidence: number): PriorEstimate | null {
  const recall = model.given.exact.m * model.family.exact.m * model.dob.exact.m;
  const pairs = (pool * (pool - 1)) / 2;
  if (exactPairs < minEvidence || recall <= 0 || pairs <= 0) return null;
  const lambda = Math.min(exactPairs / recall / pairs, 0.5);
  const log2Odds = Math.round(Math.min(Math.max(Math.log2(lambda / (1 - lambda)), PRIOR_BOUNDS.min), PRIOR_BOUNDS.max) * 1e6) / 1e6;
  return { exactPairs, recall, pairs, log2Odds };
}

/** Trains a model on the registry's records (see the file comment). Pure and deterministic. */
/** Pairs handled between two pauses: training runs in a request, and the process keeps serving others meanwhile. */
const SLICE = 2_000;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function trainScoringModel(input: readonly TrainingRecord[], options: TrainingOptions): Promise<TrainedModel> {
  const base = options.base ?? DEFAULT_SCORING_MODEL;
  const minEvidence = options.minEvidence ?? 5;
  const maxIterations = options.maxIterations ?? 50;
  const tolerance = options.tolerance ?? 1e-6;
  const random = seededRandom(options.seed);
  const records = [...input].sort((x, y) => (x.gpid < y.gpid ? -1 : x.gpid > y.gpid ? 1 : 0));
  const n = records.length;
  const levels = Object.fromEntries(TRAINED.map((c) => [c, levelNames(base, c)])) as Record<Trained, string[]>;
  const vector = (i: number, j: number) => vectorOf(records[i]!.fields, records[j]!.fields, base, levels);

  // ---- u from random pairs.
  const uCounts = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
  const possiblePairs = (n * (n - 1)) / 2;
  const randomPairs = n < 2 ? 0 : Math.min(options.randomPairs ?? 50_000, possiblePairs);
  for (let k = 0; k < randomPairs; k++) {
    if (k % SLICE === SLICE - 1) await pause();
    const i = Math.floor(random() * n);
    let j = Math.floor(random() * (n - 1));
    if (j >= i) j++;
    const v = vector(i, j);
    TRAINED.forEach((_, c) => {
      if (v[c]! >= 0) uCounts[c]![v[c]!]!++;
    });
  }

  // ---- Blocked pairs: records sharing a key, small blocks only, a seeded sample when too many;
  // from the inbound records when there are any, else from the registry's.
  const pool: readonly TrainingRecord[] = options.observations && options.observations.length > 1 ? options.observations : records;
  const size = pool.length;
  const byKey = new Map<string, number[]>();
  pool.forEach((r, i) => {
    for (const key of r.blockingKeys) {
      let list = byKey.get(key);
      if (!list) byKey.set(key, (list = []));
      list.push(i);
    }
  });
  const maxBlockSize = options.maxBlockSize ?? 20;
  const pairSet = new Set<number>();
  for (const list of byKey.values()) {
    if (list.length < 2 || list.length > maxBlockSize) continue;
    for (let a = 0; a < list.length; a++) for (let b = a + 1; b < list.length; b++) pairSet.add(list[a]! * size + list[b]!);
  }
  const index = new Map(records.map((r, i) => [r.gpid, i]));
  const labelled = new Map<number, boolean>();
  let labelsSkipped = 0;
  for (const label of options.labels ?? []) {
    const i = index.get(label.leftRecordId);
    const j = index.get(label.rightRecordId);
    if (i === undefined || j === undefined || i === j) {
      labelsSkipped++;
      continue;
    }
    labelled.set(Math.min(i, j) * n + Math.max(i, j), label.same);
  }
  // A labelled pair is counted once, with its label: in the registry's own pairs it is left out of EM.
  let blocked = [...pairSet].filter((pair) => pool !== records || !labelled.has(pair)).sort((x, y) => x - y);
  const maxBlocked = options.maxBlockedPairs ?? 100_000;
  if (blocked.length > maxBlocked) {
    for (let k = blocked.length - 1; k > 0; k--) {
      const r = Math.floor(random() * (k + 1));
      [blocked[k], blocked[r]] = [blocked[r]!, blocked[k]!];
    }
    blocked = blocked.slice(0, maxBlocked).sort((x, y) => x - y);
  }
  const pairVectors: Vector[] = [];
  const pairAgreements: Agreement[] = [];
  for (const pair of blocked) {
    if (pairVectors.length % SLICE === SLICE - 1) await pause();
    const agreement = scoreFingerprints(pool[Math.floor(pair / size)]!.fields, pool[pair % size]!.fields, base).agreement;
    pairAgreements.push(agreement);
    pairVectors.push(vectorOfAgreement(agreement, levels));
  }
  // Pairs agreeing exactly on both names and the date of birth share the family_given key: each is
  // blocked unless its block is over `maxBlockSize`, and a sample is scaled back up.
  const exactPairs = pool === records ? 0
    : (pairAgreements.filter((a) => a.given === 'exact' && a.family === 'exact' && a.dob === 'exact').length * pairSet.size) / Math.max(blocked.length, 1);
  const labelVectors = [...labelled].sort((x, y) => x[0] - y[0]).map(([pair, same]) => ({ v: vector(Math.floor(pair / n), pair % n), same }));

  // ---- u: the random-pair shares; a level seen too rarely keeps its base value.
  const estimated = { m: [] as string[], u: [] as string[] };
  const u = TRAINED.map((c, ci) => {
    const counts = uCounts[ci]!;
    const total = counts.reduce((s, x) => s + x, 0);
    return levels[c].map((level, li) => {
      if (counts[li]! >= minEvidence && total > 0) {
        estimated.u.push(`${c}.${level}`);
        return counts[li]! / total;
      }
      return (base[c] as Record<string, ProbabilityPair>)[level]!.u;
    });
  });
  const withDisagree = (probabilities: number[]) => [...probabilities, Math.max(1 - probabilities.reduce((s, x) => s + x, 0), 1e-6)];

  // ---- m by EM, u fixed, once per blocking rule (see ROUNDS). The E step scores each pair with
  // the scorer itself (its dependence caps and hard rules included), the rule's own comparisons
  // made neutral (m = u), with the round's share of "same" as the prior; the M step sets each m to
  // the posterior-weighted share of pairs on that level. The rounds' masses are pooled, with the
  // labelled "same" pairs at weight 1.
  const baseM = TRAINED.map((c) => withDisagree(levels[c].map((level) => (base[c] as Record<string, ProbabilityPair>)[level]!.m)));
  const modelWith = (ms: number[][], fixed: ReadonlySet<string>): ScoringModel => {
    const next: ScoringModel = structuredClone({ ...base, version: options.version });
    delete next.termFrequencies;
    TRAINED.forEach((c, ci) => {
      const pairs = next[c] as Record<string, ProbabilityPair>;
      levels[c].forEach((level, li) => (pairs[level] = { m: fixed.has(c) ? u[ci]![li]! : ms[ci]![li]!, u: u[ci]![li]! }));
    });
    return next;
  };
  const pairFields = blocked.map((pair) => [pool[Math.floor(pair / size)]!.fields, pool[pair % size]!.fields] as const);
  const minRoundPairs = options.minRoundPairs ?? 20;
  const mass = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
  const rounds: TrainingRound[] = [];
  for (const round of ROUNDS) {
    const fixed = new Set<string>(round.fixed);
    const selected = pairAgreements.flatMap((agreement, k) => (round.selects(agreement) ? [k] : []));
    if (selected.length < minRoundPairs) {
      rounds.push({ rule: round.rule, pairs: selected.length, iterations: 0, converged: false, matchShare: 0 });
      continue;
    }
    let m = baseM.map((row) => [...row]);
    let share = 0.5;
    let iterations = 0;
    let converged = false;
    let roundMass = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
    while (iterations < maxIterations) {
      iterations++;
      const current = modelWith(m.map((row) => row.slice(0, -1)), fixed);
      roundMass = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
      let sameTotal = 0;
      const logPrior = Math.log2(share / (1 - share));
      for (let at = 0; at < selected.length; at++) {
        if (at % SLICE === SLICE - 1) await pause();
        const k = selected[at]!;
        const [a, b] = pairFields[k]!;
        const scored = scoreFingerprints(a, b, current);
        // The hard rules are not applied here: they keep a pair from an automatic link, they do not
        // say it is two people (one person's record with a given name typo and a nickname meets the
        // twins rule; within a round, the rule's own agreement is the evidence).
        const x = scored.weight + logPrior;
        const posterior = x > 60 ? 1 : x < -60 ? 0 : 1 / (1 + 2 ** -x);
        sameTotal += posterior;
        const v = pairVectors[k]!;
        TRAINED.forEach((c, ci) => {
          if (!fixed.has(c) && v[ci]! >= 0) roundMass[ci]![v[ci]!]! += posterior;
        });
      }
      let delta = 0;
      m = m.map((row, ci) => {
        const total = roundMass[ci]!.reduce((sum, x) => sum + x, 0);
        if (total <= 0) return row;
        const fresh = [...roundMass[ci]!].map((x) => Math.max(x / total, 1e-6));
        fresh.forEach((x, l) => (delta = Math.max(delta, Math.abs(x - row[l]!))));
        return fresh;
      });
      share = Math.min(Math.max(sameTotal / selected.length, 1e-6), 1 - 1e-6);
      if (delta < tolerance) {
        converged = true;
        break;
      }
    }
    roundMass.forEach((row, ci) => row.forEach((x, l) => (mass[ci]![l]! += x)));
    rounds.push({ rule: round.rule, pairs: selected.length, iterations, converged, matchShare: share });
  }
  for (const { v, same } of labelVectors) {
    if (!same) continue;
    TRAINED.forEach((_, ci) => {
      if (v[ci]! >= 0) mass[ci]![v[ci]!]! += 1;
    });
  }
  // The base m is a prior worth `priorPairs` pairs (a Dirichlet prior): a level no pair showed keeps
  // some of its base value, and a large sample outweighs it.
  const priorPairs = options.priorPairs ?? 10;
  const model: ScoringModel = structuredClone({ ...base, version: options.version });
  delete model.termFrequencies;
  TRAINED.forEach((c, ci) => {
    const pairs = model[c] as Record<string, ProbabilityPair>;
    const total = mass[ci]!.reduce((sum, x) => sum + x, 0);
    const learnt = total >= minEvidence;
    if (learnt) estimated.m.push(...levels[c].map((level) => `${c}.${level}`));
    const ms = levels[c].map((level, li) => (learnt ? (mass[ci]![li]! + priorPairs * baseM[ci]![li]!) / (total + priorPairs) : pairs[level]!.m));
    // Room for disagreement: levels never sum past 0.999.
    const sum = ms.reduce((s, x) => s + x, 0);
    const scale = sum > 0.999 ? 0.999 / sum : 1;
    levels[c].forEach((level, li) => {
      pairs[level] = { m: ms[li]! * scale, u: u[ci]![li]! };
    });
  });
  const prior = estimatePrior(exactPairs, pool === records ? 0 : size, model, minEvidence);
  if (prior) model.priorLog2Odds = prior.log2Odds;
  const tf = termFrequencies(records, model, minEvidence, options.termFrequencyEntries ?? 1000);
  if (Object.keys(tf).length > 0) model.termFrequencies = tf;

  return {
    model,
    summary: {
      records: n,
      observations: pool === records ? 0 : size,
      randomPairs,
      blockedPairs: pairVectors.length,
      labelledPairs: labelVectors.length,
      labelsSkipped,
      rounds,
      estimated,
      prior,
    },
  };
}

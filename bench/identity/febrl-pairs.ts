/**
 * FEBRL, pair by pair: why a true pair is not linked, and which pairs of two people would be. Each
 * record is fingerprinted on its own (no registry: a record is never merged with earlier ones), every
 * true pair and every pair of two people sharing a blocking key is scored with one model, and each
 * true pair is classified by the first thing that keeps it from an automatic link:
 *
 *   npx tsx bench/identity/febrl-pairs.ts --data DIR [--dataset 3|4] [--fields names|all]
 *                                         [--model FILE] [--show CLASS] [--limit 20]
 *
 * `--model FILE`: a model saved by `febrl.ts --train --save-model FILE` (default: version 1).
 * Classes: `no_key` (no shared blocking key), `blocked:<rule>` (a hard rule of stage 4),
 * `names_only` (nothing agrees beyond the names), `household_only` (no DOB, and nothing agrees
 * beyond names, address and phone), `below_0.9` (pairwise confidence under the
 * auto-link threshold), `linkable`. Pairs of two people that are linkable are potential false
 * merges. A triage tool: the figures of record are febrl.ts's, which resolves through the pipeline.
 */
import { readFileSync } from 'node:fs';
import { Fingerprinter } from '../../subgraphs/identity/src/domain/fingerprint.js';
import { readDemographics } from '../../subgraphs/identity/src/domain/stage1-demographics.js';
import { extractFeatures, fingerprintFeatures, type DemographicFingerprints } from '../../subgraphs/identity/src/domain/stage2-fingerprint.js';
import { DEFAULT_SCORING_MODEL, DEFAULT_THRESHOLDS, scoreFingerprints, type CandidateScore, type ScoringModel } from '../../subgraphs/identity/src/domain/stage4-score.js';
import { agreesBeyondHousehold, agreesBeyondNames } from '../../subgraphs/identity/src/domain/stage5-assign.js';
import { readFebrl, type FebrlFields, type FebrlRecord } from './febrl-data.js';

function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
}

const DATA = textArg('data', '');
if (DATA === '') throw new Error('--data DIR is required');
const DATASET = textArg('dataset', '4') as '3' | '4';
const FIELDS = textArg('fields', 'names') as FebrlFields;
const MODEL_FILE = textArg('model', '');
const SHOW = textArg('show', '');
const LIMIT = Number(textArg('limit', '20'));
const model: ScoringModel = MODEL_FILE === '' ? DEFAULT_SCORING_MODEL : (JSON.parse(readFileSync(MODEL_FILE, 'utf8')) as ScoringModel);

interface Prepared {
  record: FebrlRecord;
  keys: Set<string>;
  kinds: Map<string, string>;
  fingerprints: DemographicFingerprints;
}

const fingerprinter = new Fingerprinter({ current: 'k1', keys: [{ version: 'k1', secret: 'benchmark-fingerprint-key-0123456789abcdef' }] });
const prepared: Prepared[] = [];
for (const record of readFebrl(DATA, DATASET, FIELDS)) {
  let demographics;
  try {
    demographics = readDemographics(record.payload, { purpose: 'resolve', now: new Date('2026-06-12T00:00:00Z') }).value;
  } catch {
    continue;
  }
  const features = extractFeatures(demographics);
  const kinds = new Map<string, string>();
  for (const { kind, parts } of features.blocking) kinds.set(`${kind}\u001f${parts.join('\u001f')}`, kind);
  prepared.push({ record, keys: new Set(kinds.keys()), kinds, fingerprints: fingerprintFeatures(features, fingerprinter).write });
}

function classify(score: CandidateScore): string {
  const a = score.agreement;
  if (a.blockedBy) return `blocked:${a.blockedBy}`;
  if (!agreesBeyondNames(a)) return 'names_only';
  if (!agreesBeyondHousehold(a)) return 'household_only';
  if (a.pairConfidence < DEFAULT_THRESHOLDS.autoLink) return 'below_0.9';
  return 'linkable';
}

function describe(x: Prepared, y: Prepared, score: CandidateScore | null): string {
  const name = (r: FebrlRecord) => (typeof r.payload.name === 'object' ? r.payload.name : undefined);
  const p = (r: FebrlRecord) => `${name(r)?.given ?? '-'} ${name(r)?.family ?? '-'} ${r.payload.dob ?? '-'}`;
  const a = score?.agreement;
  return `${x.record.id} [${p(x.record)}] ~ ${y.record.id} [${p(y.record)}]${a ? ` given=${a.given} family=${a.family} dob=${a.dob} p=${a.pairConfidence} w=${JSON.stringify(a.weights)}` : ''}`;
}

const byPerson = new Map<string, Prepared[]>();
for (const p of prepared) byPerson.set(p.record.person, [...(byPerson.get(p.record.person) ?? []), p]);
const counts = new Map<string, number>();
const shown: string[] = [];
let truePairs = 0;
for (const group of byPerson.values()) {
  for (let i = 0; i < group.length; i++) {
    for (let j = i + 1; j < group.length; j++) {
      truePairs++;
      const [x, y] = [group[i]!, group[j]!];
      const shared = [...x.keys].some((k) => y.keys.has(k));
      const score = shared ? scoreFingerprints(x.fingerprints.fields, y.fingerprints.fields, model) : null;
      const cls = score ? classify(score) : 'no_key';
      counts.set(cls, (counts.get(cls) ?? 0) + 1);
      if (cls === SHOW && shown.length < LIMIT) shown.push(describe(x, y, score ?? scoreFingerprints(x.fingerprints.fields, y.fingerprints.fields, model)));
    }
  }
}

// Pairs of two people sharing a key.
const index = new Map<string, number[]>();
prepared.forEach((p, i) => {
  for (const k of p.keys) index.set(k, [...(index.get(k) ?? []), i]);
});
const seen = new Set<string>();
const falseLinks: string[] = [];
let falseBlocked = 0;
for (const members of index.values()) {
  for (let a = 0; a < members.length; a++) {
    for (let b = a + 1; b < members.length; b++) {
      const [i, j] = [members[a]!, members[b]!];
      const [x, y] = [prepared[i]!, prepared[j]!];
      if (x.record.person === y.record.person) continue;
      const id = i < j ? `${i}:${j}` : `${j}:${i}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const score = scoreFingerprints(x.fingerprints.fields, y.fingerprints.fields, model);
      const cls = classify(score);
      if (cls === 'linkable') falseLinks.push(describe(x, y, score));
      else if (score.agreement.pairConfidence >= DEFAULT_THRESHOLDS.autoLink) falseBlocked++;
    }
  }
}

console.log(`FEBRL${DATASET} ${FIELDS}, model ${MODEL_FILE || 'version 1'}: ${prepared.length} records, ${truePairs} true pairs`);
for (const [cls, n] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`  ${cls}: ${n}`);
console.log(`pairs of two people sharing a key: ${seen.size}; linkable (potential false merges): ${falseLinks.length}; ≥ 0.9 but held by a rule: ${falseBlocked}`);
for (const line of falseLinks.slice(0, LIMIT)) console.log(`  FALSE ${line}`);
for (const line of shown) console.log(`  ${SHOW} ${line}`);

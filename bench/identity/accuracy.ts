/**
 * Identity-resolution accuracy benchmark.
 *
 *   npx tsx bench/identity/accuracy.ts [--people 10000] [--queries N] [--seed 20260612] [--verbose]
 *                                      [--partial 0.5] [--auto-link 0.95] [--review 0.5]   (threshold overrides, for tuning)
 *                                      [--database memory|sqlite|postgres] [--database-url postgres://…]
 *
 * `--database`: the registry the pipeline runs on: the in-memory reference (default), or the SQL
 * registry of the service (`SqlIdentityRegistry`, migrations applied) on a temporary SQLite file or
 * on a fresh PostgreSQL database (created under `--database-url`, default the test server's
 * postgres://postgres@127.0.0.1:5432/test, and dropped afterwards).
 *                                      [--stream N] (after the load, N resolves drawn like the queries)
 *                                      [--train]   (after the load and the stream, train a model on the resolves'
 *                                                   inbound records, seed --seed, and score the queries with it)
 *                                      [--train-on-registry] (the same, EM over the registry's records)
 *
 * 1. Generates a seeded synthetic population in households (see synthetic.ts): `people` are loaded,
 *    25% more are held out (never loaded; many are relatives of loaded people: hard negatives).
 * 2. Load: every loaded person is resolved from one source origin with clean data in a random
 *    format; 40% are resolved a second time from another origin with up to one corruption
 *    (exercising linking and dual verification).
 * 3. Queries: corrupted variants, 80% of loaded people and 20% of held-out people.
 *    Match is run for every query on the loaded registry (query only), then Resolve is run for
 *    every query in order (it writes: unknown people get new records that later queries may hit).
 *
 * Metrics. A Match answer is positive when its best candidate has a match type other than NONE;
 * a Resolve answer is positive when it returns an existing GPID. True positive: the GPID belongs
 * to the queried person. Precision = TP / positives; recall = TP / queries whose person has a
 * record in the registry at that moment; F1 their harmonic mean. False DETERMINISTIC: any
 * candidate typed DETERMINISTIC that belongs to someone else.
 *
 * Pairwise (record linkage), over every resolve (load and queries): two resolves are a predicted
 * pair when they ended on the same GPID, a true pair when they are the same person; precision,
 * recall and F1 over pairs. "After review" assumes every review-queue item is decided correctly
 * (a queued duplicate merged into the person's record it was linked to). False merges: resolves
 * that returned another person's GPID. Silent duplicates: new records (NEW_SHADOW) for a person
 * who already had one, with no review link; queued duplicates: new records linked for review
 * (the review queue). Review-queue size: resolves that created a record linked for review.
 */
import os from 'node:os';
import { SOURCE_ORIGINS, type SourceOrigin } from '../../subgraphs/identity/src/domain/enums.js';
import type { MatchResult, ResolveResult } from '../../subgraphs/identity/src/domain/pipeline.js';
import { DEFAULT_SCORING_MODEL, DEFAULT_THRESHOLDS, type ScoringModel } from '../../subgraphs/identity/src/domain/stage4-score.js';
import { trainScoringModel, type TrainingSummary } from '../../subgraphs/identity/src/domain/stage4-training.js';
import { resolveThresholds } from '../../subgraphs/identity/src/domain/stage5-assign.js';
import { REGISTRY_KINDS, benchPipeline, openRegistry, pairwise, pairwiseAfterReview, pct, type RegistryKind } from './harness.js';
import {
  CORRUPTIONS,
  Rng,
  cleanPayload,
  corruptedVariant,
  corruptionCount,
  generatePopulation,
  type Corruption,
  type Person,
  type Variant,
} from './synthetic.js';

function arg(name: string, fallback: number, integer = true): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return integer ? Math.floor(value) : value;
}

const PEOPLE = arg('people', 10_000);
const QUERIES = arg('queries', PEOPLE);
const SEED = arg('seed', 20260612);
const VERBOSE = process.argv.includes('--verbose');
function textArg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
}
const DATABASE = textArg('database', 'memory') as RegistryKind;
if (!REGISTRY_KINDS.includes(DATABASE)) throw new Error('--database is memory, sqlite or postgres');
const DATABASE_URL = textArg('database-url', 'postgres://postgres@127.0.0.1:5432/test');
/** Resolves of corrupted variants after the load, drawn like the queries (see "The stream"). */
const STREAM = process.argv.includes('--stream') ? arg('stream', 0) : 0;
const TRAIN = process.argv.includes('--train') || process.argv.includes('--train-on-registry');
/** Train EM on the registry's records alone (the earlier way), not on the resolves' inbound records. */
const TRAIN_ON_REGISTRY = process.argv.includes('--train-on-registry');
const THRESHOLDS = {
  ...DEFAULT_THRESHOLDS,
  partial: arg('partial', DEFAULT_THRESHOLDS.partial, false),
  autoLink: arg('auto-link', DEFAULT_THRESHOLDS.autoLink, false),
};
const REVIEW = process.argv.includes('--review') ? arg('review', 0.5, false) : undefined;
const thresholdOptions = { ...THRESHOLDS, ...(REVIEW !== undefined ? { review: REVIEW } : {}) };

interface Counts {
  positives: number;
  truePositives: number;
  relevant: number;
}

const empty = (): Counts => ({ positives: 0, truePositives: 0, relevant: 0 });

function prf(c: Counts) {
  const precision = c.positives === 0 ? 1 : c.truePositives / c.positives;
  const recall = c.relevant === 0 ? 1 : c.truePositives / c.relevant;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1 };
}

async function main() {
  const started = performance.now();
  const rng = new Rng(SEED ^ 0x5bd1e995);
  const population = generatePopulation(Math.round(PEOPLE * 1.25), SEED);
  const order = population.map((p) => p.id);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const loaded = order.slice(0, PEOPLE).map((id) => population[id]!);
  const heldOut = order.slice(PEOPLE).map((id) => population[id]!);

  const store = await openRegistry(DATABASE, DATABASE_URL);
  const registry = store.registry;
  const pipeline = benchPipeline(registry, { thresholds: thresholdOptions, model: () => activeModel });
  let activeModel: ScoringModel = DEFAULT_SCORING_MODEL;
  let training: { summary: TrainingSummary; ms: number } | null = null;

  /** Ground truth: which person each GPID was created for, and each person's GPIDs. */
  const owner = new Map<string, number>();
  const gpidsOf = new Map<number, Set<string>>();
  /** Every resolve: whose it was, where it ended, and for a new record what it was linked to for review. */
  const assignments: Array<{ person: number; cluster: string }> = [];
  const reviewLinks = new Map<string, readonly string[]>();
  const outcome = { falseMerges: 0, silentDuplicates: 0, queuedDuplicates: 0, queueItems: 0, queuedPairs: 0 };
  const track = (result: ResolveResult, personId: number) => {
    const known = (gpidsOf.get(personId)?.size ?? 0) > 0;
    assignments.push({ person: personId, cluster: result.gpid });
    if (!result.created && owner.get(result.gpid) !== personId) outcome.falseMerges++;
    if (result.created && result.links.length > 0) {
      outcome.queueItems++;
      outcome.queuedPairs += result.links.length;
      reviewLinks.set(result.gpid, result.links);
    }
    if (result.created && known) {
      const own = gpidsOf.get(personId)!;
      if (result.links.some((g) => own.has(g))) outcome.queuedDuplicates++;
      else if (result.decision === 'NEW_SHADOW') outcome.silentDuplicates++;
    }
    if (!result.created) return;
    owner.set(result.gpid, personId);
    let set = gpidsOf.get(personId);
    if (!set) gpidsOf.set(personId, (set = new Set()));
    set.add(result.gpid);
  };

  // ---- Load.
  const loadStart = performance.now();
  const firstSource = new Map<number, SourceOrigin>();
  /** The load's false merges (with --verbose): what was sent, and whose record it was linked to. */
  const loadFailures: string[] = [];
  const noteLoadFalseMerge = (payload: object, result: ResolveResult, personId: number) => {
    if (!VERBOSE || result.created || owner.get(result.gpid) === personId) return;
    const linked = result.candidates.find((c) => c.gpid === result.gpid);
    loadFailures.push(`LOAD FALSE MERGE person=${personId} ${JSON.stringify(payload)} → ${result.gpid} (person ${owner.get(result.gpid)}) ${result.confidence} ${JSON.stringify(linked?.agreement ?? null)}`);
  };
  for (const person of loaded) {
    const source = rng.pick(SOURCE_ORIGINS);
    firstSource.set(person.id, source);
    const payload = cleanPayload(rng, person);
    const result = await pipeline.resolve(payload, { source });
    noteLoadFalseMerge(payload, result, person.id);
    track(result, person.id);
  }
  const second = { total: 0, linked: 0, wrong: 0, created: 0 };
  for (const person of loaded) {
    if (!rng.chance(0.4)) continue;
    let source: SourceOrigin;
    do source = rng.pick(SOURCE_ORIGINS); while (source === firstSource.get(person.id));
    const variant = corruptedVariant(rng, person, rng.chance(0.5) ? 0 : 1);
    const result = await pipeline.resolve(variant.payload, { source });
    noteLoadFalseMerge(variant.payload, result, person.id);
    second.total++;
    if (result.created) second.created++;
    else if (owner.get(result.gpid) === person.id) second.linked++;
    else second.wrong++;
    track(result, person.id);
  }
  // The stream: resolves drawn like the queries (corrupted variants, 80% of loaded people), from an
  // RNG of its own so the queries stay the same with or without it. It is the raw input a trained
  // model learns from; the run without --train resolves it too, so both score the same registry.
  const streamRng = new Rng(SEED ^ 0x2545f491);
  for (let i = 0; i < STREAM; i++) {
    const known = streamRng.chance(0.8) || heldOut.length === 0;
    const person = known ? streamRng.pick(loaded) : streamRng.pick(heldOut);
    const variant = corruptedVariant(streamRng, person, corruptionCount(streamRng));
    track(await pipeline.resolve(variant.payload, { source: streamRng.pick(SOURCE_ORIGINS) }), person.id);
  }
  const loadMs = performance.now() - loadStart;
  const statusCounts = new Map<string, number>();
  for (const r of await store.all()) statusCounts.set(r.status, (statusCounts.get(r.status) ?? 0) + 1);

  if (TRAIN) {
    const trainStart = performance.now();
    const trained = await trainScoringModel((await store.all()).filter((r) => r.status !== 'MERGED'), {
      seed: SEED,
      version: 2,
      ...(TRAIN_ON_REGISTRY ? {} : { observations: await store.observations() }),
    });
    activeModel = trained.model;
    training = { summary: trained.summary, ms: performance.now() - trainStart };
    if (VERBOSE) {
      const { termFrequencies: _tf, ...params } = trained.model;
      console.error(JSON.stringify(params));
    }
  }

  // ---- Queries.
  const queries: Array<Variant & { person: Person; known: boolean }> = [];
  for (let i = 0; i < QUERIES; i++) {
    const known = rng.chance(0.8) || heldOut.length === 0;
    const person = known ? rng.pick(loaded) : rng.pick(heldOut);
    queries.push({ ...corruptedVariant(rng, person, corruptionCount(rng)), person, known });
  }

  // Match: query only, on the loaded registry.
  const matchStart = performance.now();
  const match = empty();
  const deterministic = { answers: 0, false: 0 };
  const byCorruption = new Map<Corruption, Counts>(CORRUPTIONS.map((c) => [c, empty()]));
  const falseByTag = new Map<string, number>();
  const matchTypes = new Map<string, number>();
  const failures: string[] = [];
  for (const q of queries) {
    const result: MatchResult = await pipeline.match(q.payload);
    const relevant = (gpidsOf.get(q.personId)?.size ?? 0) > 0;
    const top = result.candidates[0];
    const positive = top !== undefined && top.matchType !== 'NONE';
    const correct = positive && owner.get(top.gpid) === q.personId;
    matchTypes.set(result.matchType, (matchTypes.get(result.matchType) ?? 0) + 1);
    if (relevant) match.relevant++;
    if (positive) match.positives++;
    if (correct) match.truePositives++;
    for (const c of result.candidates) {
      if (c.matchType !== 'DETERMINISTIC') continue;
      deterministic.answers++;
      if (owner.get(c.gpid) !== q.personId) deterministic.false++;
    }
    for (const c of q.corruptions) {
      const counts = byCorruption.get(c)!;
      if (relevant) counts.relevant++;
      if (positive) counts.positives++;
      if (correct) counts.truePositives++;
    }
    if (positive && !correct) {
      const other = population[owner.get(top.gpid) ?? -1];
      const tag = other && other.household === q.person.household ? `same household (${q.person.tag ?? other.tag ?? 'relative'})` : 'unrelated';
      falseByTag.set(tag, (falseByTag.get(tag) ?? 0) + 1);
      if (VERBOSE) failures.push(`FP ${JSON.stringify(q.payload)} [${q.corruptions}] → ${top.gpid} ${top.confidence} ${JSON.stringify(top.agreement)} person=${JSON.stringify(other)}`);
    } else if (relevant && !correct && VERBOSE) {
      failures.push(`FN ${JSON.stringify(q.payload)} [${q.corruptions}] → ${top ? `${top.confidence} ${JSON.stringify(top.agreement)}` : 'no candidate'} truth=${JSON.stringify(q.person)}`);
    }
  }
  const matchMs = performance.now() - matchStart;

  // Resolve: writes, in order.
  const resolveStart = performance.now();
  const resolve = empty();
  const decisions = new Map<string, number>();
  const silentByCorruption = new Map<Corruption | 'none', number>();
  let duplicatesCreated = 0;
  for (const q of queries) {
    const relevant = (gpidsOf.get(q.personId)?.size ?? 0) > 0;
    const source: SourceOrigin = rng.pick(SOURCE_ORIGINS);
    const result = await pipeline.resolve(q.payload, { source });
    decisions.set(result.decision, (decisions.get(result.decision) ?? 0) + 1);
    if (relevant && result.created && result.decision === 'NEW_SHADOW') {
      for (const c of q.corruptions.length ? q.corruptions : ['none' as const]) silentByCorruption.set(c, (silentByCorruption.get(c) ?? 0) + 1);
    }
    if (relevant) resolve.relevant++;
    if (!result.created) {
      resolve.positives++;
      if (owner.get(result.gpid) === q.personId) resolve.truePositives++;
      else if (VERBOSE) failures.push(`RFP ${JSON.stringify(q.payload)} [${q.corruptions}] → ${result.gpid} ${result.confidence}`);
    } else if (relevant) {
      duplicatesCreated++;
      if (VERBOSE) {
        const again = await pipeline.match(q.payload);
        const seen = again.candidates.map((c) => `${c.gpid}${c.gpid === result.gpid ? '(new)' : owner.get(c.gpid) === q.personId ? '(true)' : ''} ${c.confidence} ${JSON.stringify(c.agreement)}`);
        const own = await Promise.all([...(gpidsOf.get(q.personId) ?? [])].map(async (g) => {
          const rec = await registry.get(g);
          return `${g}:${rec?.status}:keys=${rec?.blockingKeys.length}:given=${rec?.fields.given?.length}`;
        }));
        failures.push(`RFN ${result.decision} ${JSON.stringify(q.payload)} [${q.corruptions}] best=${result.confidence} own=${own.join(',')} truth=${JSON.stringify(q.person)} | ${seen.join(' | ')}`);
      }
    }
    track(result, q.personId);
  }
  const resolveMs = performance.now() - resolveStart;

  const m = prf(match);
  const r = prf(resolve);
  const pairsBefore = pairwise(assignments);
  // An ideal reviewer: a queued record that is a duplicate is merged into the person's record it was linked to.
  const pairsReviewed = pairwiseAfterReview(assignments, reviewLinks, owner);
  await store.close();
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const lines: string[] = [];
  lines.push(`# Identity resolution accuracy`);
  lines.push('');
  lines.push(`- Date: ${new Date().toISOString()}`);
  lines.push(`- Machine: ${cpu}, ${os.cpus().length} cores, Node ${process.version}, ${os.platform()} ${os.arch()}`);
  const overrides = THRESHOLDS.partial !== DEFAULT_THRESHOLDS.partial || THRESHOLDS.autoLink !== DEFAULT_THRESHOLDS.autoLink
    ? ` --partial ${THRESHOLDS.partial} --auto-link ${THRESHOLDS.autoLink}` : '';
  const more = `${REVIEW !== undefined ? ` --review ${REVIEW}` : ''}${DATABASE !== 'memory' ? ` --database ${DATABASE}` : ''}${STREAM > 0 ? ` --stream ${STREAM}` : ''}`;
  lines.push(`- Command: \`npx tsx bench/identity/accuracy.ts --people ${PEOPLE} --queries ${QUERIES} --seed ${SEED}${overrides}${more}${TRAIN_ON_REGISTRY ? ' --train-on-registry' : TRAIN ? ' --train' : ''}\``);
  lines.push(`- Population: ${population.length} synthetic people in households; ${loaded.length} loaded, ${heldOut.length} held out`);
  lines.push(`- Registry: ${DATABASE === 'memory' ? 'in memory (InMemoryIdentityRegistry)' : `${DATABASE === 'sqlite' ? 'SQLite' : 'PostgreSQL'} (SqlIdentityRegistry)`}`);
  lines.push(`- Thresholds: PARTIAL ≥ ${THRESHOLDS.partial}, auto-link ≥ ${THRESHOLDS.autoLink}, candidate floor ${THRESHOLDS.candidateFloor}, review ≥ ${resolveThresholds(thresholdOptions).review}`);
  lines.push('');
  lines.push('| Operation | Queries | Precision | Recall | F1 | False DETERMINISTIC |');
  lines.push('|---|---:|---:|---:|---:|---:|');
  lines.push(`| Match | ${queries.length} | ${pct(m.precision)} | ${pct(m.recall)} | ${pct(m.f1)} | ${deterministic.false} of ${deterministic.answers} (${pct(deterministic.answers ? deterministic.false / deterministic.answers : 0)}) |`);
  lines.push(`| Resolve | ${queries.length} | ${pct(r.precision)} | ${pct(r.recall)} | ${pct(r.f1)} | – |`);
  lines.push('');
  lines.push(`Pairwise over all ${assignments.length} resolves (${pairsBefore.truth} true pairs):`);
  lines.push('');
  lines.push('| | Precision | Recall | F1 | False merges | Silent duplicates | Queued duplicates | Review-queue items (pairs) |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|');
  lines.push(`| As resolved | ${pct(pairsBefore.precision)} | ${pct(pairsBefore.recall)} | ${pct(pairsBefore.f1)} | ${outcome.falseMerges} | ${outcome.silentDuplicates} | ${outcome.queuedDuplicates} | ${outcome.queueItems} (${outcome.queuedPairs}) |`);
  lines.push(`| After an ideal review of the queue | ${pct(pairsReviewed.precision)} | ${pct(pairsReviewed.recall)} | ${pct(pairsReviewed.f1)} | ${outcome.falseMerges} | ${outcome.silentDuplicates} | 0 | 0 |`);
  lines.push('');
  lines.push('| Phase | Operations | Time | Throughput |');
  lines.push('|---|---:|---:|---:|');
  const loadOps = loaded.length + second.total + STREAM;
  lines.push(`| Load (resolve) | ${loadOps} | ${(loadMs / 1000).toFixed(1)} s | ${Math.round(loadOps / (loadMs / 1000))}/s |`);
  lines.push(`| Match | ${queries.length} | ${(matchMs / 1000).toFixed(1)} s | ${Math.round(queries.length / (matchMs / 1000))}/s |`);
  lines.push(`| Resolve | ${queries.length} | ${(resolveMs / 1000).toFixed(1)} s | ${Math.round(queries.length / (resolveMs / 1000))}/s |`);
  lines.push('');
  lines.push(`Load: ${second.total} second registrations from another source: ${second.linked} linked correctly, ${second.wrong} linked wrongly, ${second.created} created a duplicate. Registry after load: ${[...statusCounts].map(([s, n]) => `${s} ${n}`).join(', ')}.`);
  lines.push('');
  lines.push(`Match answers: ${[...matchTypes].map(([t, n]) => `${t} ${n}`).join(', ')}. False positives: ${falseByTag.size ? [...falseByTag].map(([t, n]) => `${t} ${n}`).join(', ') : 'none'}.`);
  lines.push('');
  lines.push(`Resolve decisions: ${[...decisions].map(([d, n]) => `${d} ${n}`).join(', ')}; ${duplicatesCreated} new records for people already registered.`);
  lines.push('');
  const silentTags = [...silentByCorruption].sort((a, b) => b[1] - a[1]);
  lines.push(`Silent duplicates of the queries by corruption present: ${silentTags.length ? silentTags.map(([c, n]) => `${c} ${n}`).join(', ') : 'none'}.`);
  lines.push('');
  if (training) {
    const t = training.summary;
    lines.push(
      `Trained model (version ${activeModel.version}) after the load in ${(training.ms / 1000).toFixed(1)} s: ${t.records} registry records, ${t.randomPairs} random pairs of them (u), ${t.blockedPairs} blocked pairs of ${t.observations > 0 ? `the ${t.observations} resolves' inbound records` : 'registry records'} (m by EM: ${t.rounds.map((r) => `${r.rule}: ${r.pairs} pairs, ${r.iterations} iterations${r.converged ? ', converged' : ''}, match share ${(r.matchShare * 100).toFixed(2)}%`).join('; ')}; ${t.labelledPairs} labelled pairs); estimated m: ${t.estimated.m.join(' ')}; u: ${t.estimated.u.join(' ')}; term frequencies: ${Object.entries(activeModel.termFrequencies ?? {}).map(([f, table]) => `${f} ${Object.keys(table).length}`).join(', ') || 'none'}; prior: ${t.prior ? `${t.prior.log2Odds.toFixed(2)} log2 odds (${Math.round(t.prior.exactPairs)} exact pairs, recall ${t.prior.recall.toFixed(3)})` : 'kept'}.`,
    );
    lines.push('');
  }
  lines.push('Match recall by corruption present in the query (a query may carry up to three):');
  lines.push('');
  lines.push('| Corruption | Queries of registered people | Recall | Precision |');
  lines.push('|---|---:|---:|---:|');
  for (const [c, counts] of byCorruption) {
    const x = prf(counts);
    lines.push(`| ${c} | ${counts.relevant} | ${pct(x.recall)} | ${pct(x.precision)} |`);
  }
  lines.push('');
  lines.push(`Total run time ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  console.log(lines.join('\n'));
  if (VERBOSE) console.error([...loadFailures, ...failures].join('\n'));
  if (deterministic.false > 0) process.exitCode = 1;
}

await main();

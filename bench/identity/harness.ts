/**
 * What the identity accuracy benches share: the registry under test (in memory, or the service's
 * SQL registry on a temporary SQLite file or a fresh PostgreSQL database), a pipeline over it with
 * a fixed key ring and clock, and pairwise linkage metrics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { freshDatabase } from '../fresh-database.js';
import { createIdentityPipeline, type IdentityPipeline } from '../../subgraphs/identity/src/domain/pipeline.js';
import { InMemoryIdentityRegistry, type IdentityRecord, type IdentityRegistry } from '../../subgraphs/identity/src/domain/registry.js';
import type { ScoringModel } from '../../subgraphs/identity/src/domain/stage4-score.js';
import type { TrainingObservation } from '../../subgraphs/identity/src/domain/stage4-training.js';
import type { ResolveThresholds } from '../../subgraphs/identity/src/domain/stage5-assign.js';

export type RegistryKind = 'memory' | 'sqlite' | 'postgres';
export const REGISTRY_KINDS: readonly RegistryKind[] = ['memory', 'sqlite', 'postgres'];

/** The registry under test, and how to let it go. */
export interface OpenRegistry {
  registry: IdentityRegistry;
  all(): Promise<IdentityRecord[]>;
  /** The resolves' inbound records, oldest first (what the service's trainer reads). */
  observations(): Promise<TrainingObservation[]>;
  close(): Promise<void>;
}

/** `databaseUrl`: the server a fresh PostgreSQL database is created on (and dropped from afterwards). */
export async function openRegistry(kind: RegistryKind, databaseUrl = 'postgres://postgres@127.0.0.1:5432/test'): Promise<OpenRegistry> {
  if (kind === 'memory') {
    const registry = new InMemoryIdentityRegistry();
    const observations = async () => registry.resolutions.map((r) => ({ gpid: r.gpid, ...r.observed }));
    return { registry, all: async () => [...registry.all()], observations, close: async () => {} };
  }
  const { loadConfig, openDatabase } = await import('@svc/platform');
  const { migrations } = await import('../../subgraphs/identity/src/migrations/index.js');
  const { SqlIdentityRegistry } = await import('../../subgraphs/identity/src/entities/sql-registry.js');
  const { Sql } = await import('../../subgraphs/identity/src/entities/sql.js');
  const { recordObservation, trainingObservations } = await import('../../subgraphs/identity/src/entities/resolve-observations.js');
  const { recordFromRow, RECORD_COLUMNS, RECORDS } = await import('../../subgraphs/identity/src/entities/identity-record.js');
  const dataDir = mkdtempSync(join(os.tmpdir(), 'svc-identity-accuracy-'));
  const env: Record<string, string> = { SVC_DATA_DIR: dataDir, SVC_LOG_LEVEL: 'silent' };
  let drop = async () => {};
  if (kind === 'postgres') {
    const database = await freshDatabase(databaseUrl, 'svc_accuracy');
    env['SVC_DATABASE_URL'] = database.url;
    drop = database.drop;
  }
  const orm = await openDatabase({ config: loadConfig(env), owner: 'identity', entities: [], migrations });
  const sql = Sql.of(orm);
  if (kind === 'sqlite') await sql.rows('pragma cache_size = -65536');
  return {
    registry: new SqlIdentityRegistry(sql, { effects: (tx, change) => (change.resolution ? recordObservation(tx, change.resolution) : Promise.resolve()) }),
    observations: () => trainingObservations(sql, Number.MAX_SAFE_INTEGER),
    all: async () => ((await sql.table(RECORDS).select(...RECORD_COLUMNS)) as Parameters<typeof recordFromRow>[0][]).map(recordFromRow),
    close: async () => {
      await orm.close();
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A pipeline over `registry` with a fixed fingerprint key, sequential GPIDs and a fixed clock, so
 * that a run is reproducible. `model` is read on every call: a bench may train and switch.
 */
export function benchPipeline(registry: IdentityRegistry, options: { model: () => ScoringModel; thresholds?: Partial<ResolveThresholds> }): IdentityPipeline {
  let sequence = 0;
  return createIdentityPipeline({
    registry,
    keyRing: { current: 'k1', keys: [{ version: 'k1', secret: 'benchmark-fingerprint-key-0123456789abcdef' }] },
    newGpid: () => `SVC-${(++sequence).toString(16).toUpperCase().padStart(8, '0')}`,
    // Birth dates are generated up to 2025.
    now: () => new Date('2026-06-12T00:00:00Z'),
    ...(options.thresholds ? { thresholds: options.thresholds } : {}),
    model: options.model,
  });
}

/** Pairs within groups: Σ n(n−1)/2. */
function pairsOf(counts: Iterable<number>): number {
  let total = 0;
  for (const n of counts) total += (n * (n - 1)) / 2;
  return total;
}

export interface Pairwise {
  precision: number;
  recall: number;
  f1: number;
  /** Predicted pairs, true pairs, and the predicted pairs that are true. */
  predicted: number;
  truth: number;
  tp: number;
}

/** Pairwise precision, recall and F1 of an assignment of records (true entity, predicted cluster). */
export function pairwise<P>(assignments: ReadonlyArray<{ person: P; cluster: string }>): Pairwise {
  const byCluster = new Map<string, number>();
  const byPerson = new Map<P, number>();
  const byBoth = new Map<string, Map<P, number>>();
  for (const { person, cluster } of assignments) {
    byCluster.set(cluster, (byCluster.get(cluster) ?? 0) + 1);
    byPerson.set(person, (byPerson.get(person) ?? 0) + 1);
    let inCluster = byBoth.get(cluster);
    if (!inCluster) byBoth.set(cluster, (inCluster = new Map()));
    inCluster.set(person, (inCluster.get(person) ?? 0) + 1);
  }
  const predicted = pairsOf(byCluster.values());
  const truth = pairsOf(byPerson.values());
  let tp = 0;
  for (const inCluster of byBoth.values()) tp += pairsOf(inCluster.values());
  const precision = predicted === 0 ? 1 : tp / predicted;
  const recall = truth === 0 ? 1 : tp / truth;
  return { precision, recall, f1: precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall), predicted, truth, tp };
}

/**
 * Pairwise metrics after an ideal review of the queue: every new record linked for review to a
 * record of the same person (`owner`: the person each GPID was created for) is merged into it.
 */
export function pairwiseAfterReview<P>(
  assignments: ReadonlyArray<{ person: P; cluster: string }>,
  reviewLinks: ReadonlyMap<string, readonly string[]>,
  owner: ReadonlyMap<string, P>,
): Pairwise {
  const mergedInto = new Map<string, string>();
  for (const [gpid, links] of reviewLinks) {
    const same = links.find((g) => owner.get(g) === owner.get(gpid));
    if (same) mergedInto.set(gpid, same);
  }
  const survivorOf = (gpid: string): string => {
    let g = gpid;
    for (let i = 0; i < 64 && mergedInto.has(g); i++) g = mergedInto.get(g)!;
    return g;
  };
  return pairwise(assignments.map((a) => ({ person: a.person, cluster: survivorOf(a.cluster) })));
}

export const pct = (x: number) => `${(x * 100).toFixed(2)}%`;

/**
 * The stored versions of the scoring model (`identity_scoring_models`) and the records training
 * reads. Parameters are the domain's `ScoringModel` as JSON: probabilities and term frequencies of
 * keyed fingerprints, never clear demographics. Parameters written by an older version are
 * upgraded when read (`upgradeScoringModel`), never rewritten, so a rollback restores them as trained.
 */
import { storedDate, storedJson } from '@svc/platform';
import { DEFAULT_SCORING_MODEL, upgradeScoringModel, type ScoringModel, type TrainingRecord, type TrainingSummary } from '../domain/index.js';
import { RECORDS } from './identity-record.js';
import { type Sql } from './sql.js';

export const SCORING_MODELS = 'identity_scoring_models';

export interface StoredScoringModel {
  version: number;
  active: boolean;
  seed: number;
  /** Null for the built-in version 1. */
  trainedBy: string | null;
  createdAt: Date | null;
  summary: TrainingSummary | null;
  model: ScoringModel;
}

/** The built-in hand-set model, as the store shows it before any training. */
export const BUILT_IN_MODEL: StoredScoringModel = { version: DEFAULT_SCORING_MODEL.version, active: true, seed: 0, trainedBy: null, createdAt: null, summary: null, model: DEFAULT_SCORING_MODEL };

function fromRow(row: Record<string, unknown>): StoredScoringModel {
  return {
    version: Number(row['version']),
    active: row['active'] === true || row['active'] === 1 || row['active'] === '1',
    seed: Number(row['seed']),
    trainedBy: (row['trained_by'] as string | null) ?? null,
    createdAt: storedDate(row['created_at']),
    summary: storedJson<TrainingSummary>(row['summary']),
    // A model stored before identifiers had a keying-error level is read with the level added.
    model: row['parameters'] === null ? (null as unknown as ScoringModel) : upgradeScoringModel(storedJson<ScoringModel>(row['parameters'])),
  };
}

/** The active model version (the built-in one when none was trained). */
export async function activeScoringModel(sql: Sql): Promise<StoredScoringModel> {
  const row = (await sql.table(SCORING_MODELS).where('active', true).orderBy('version', 'desc').first()) as Record<string, unknown> | undefined;
  return row ? fromRow(row) : BUILT_IN_MODEL;
}

/** The active version number only (a cheap check for a model trained by another replica). */
export async function activeScoringModelVersion(sql: Sql): Promise<number> {
  const row = (await sql.table(SCORING_MODELS).where('active', true).max('version as version').first()) as { version: number | string | null } | undefined;
  return row?.version === null || row?.version === undefined ? BUILT_IN_MODEL.version : Number(row.version);
}

/** One stored version, the built-in one included; null when unknown. */
export async function scoringModelVersion(sql: Sql, version: number): Promise<StoredScoringModel | null> {
  const row = (await sql.table(SCORING_MODELS).where('version', version).first()) as Record<string, unknown> | undefined;
  if (row) return fromRow(row);
  return version === BUILT_IN_MODEL.version ? { ...BUILT_IN_MODEL, active: (await activeScoringModelVersion(sql)) === BUILT_IN_MODEL.version } : null;
}

/** The next version number (2 for the first trained model). */
export async function nextScoringModelVersion(sql: Sql): Promise<number> {
  const row = (await sql.table(SCORING_MODELS).max('version as version').first()) as { version: number | string | null } | undefined;
  return Math.max(Number(row?.version ?? 0), BUILT_IN_MODEL.version) + 1;
}

/**
 * Serializes the transactions that change which model is active, so that two of them at the same
 * time cannot leave two active rows or pick the same version (PostgreSQL; SQLite's writers are one
 * at a time already). Reads are not blocked. Call first inside the transaction.
 */
export async function lockScoringModels(tx: Sql): Promise<void> {
  if (tx.postgres) await tx.rows(`lock table ${SCORING_MODELS} in share row exclusive mode`);
}

/** Stores a trained model and makes it the active one. Call inside a transaction. */
export async function insertActiveScoringModel(
  tx: Sql,
  entry: { version: number; seed: number; trainedBy: string | null; summary: TrainingSummary; model: ScoringModel; at: Date },
): Promise<void> {
  await tx.table(SCORING_MODELS).where('active', true).update({ active: false });
  await tx.table(SCORING_MODELS).insert({
    version: entry.version,
    active: true,
    seed: entry.seed,
    parameters: JSON.stringify(entry.model),
    summary: JSON.stringify(entry.summary),
    trained_by: entry.trainedBy,
    created_at: tx.date(entry.at),
  });
}

/**
 * Makes a stored version the active one (the built-in version 1 by leaving no row active). Call
 * inside a transaction, after checking that the version exists.
 */
export async function activateScoringModel(tx: Sql, version: number): Promise<void> {
  await tx.table(SCORING_MODELS).where('active', true).update({ active: false });
  if (version !== BUILT_IN_MODEL.version) await tx.table(SCORING_MODELS).where('version', version).update({ active: true });
}

/** Every version, newest first, the built-in one last (without their parameters). */
export async function listScoringModels(sql: Sql): Promise<Omit<StoredScoringModel, 'model'>[]> {
  const rows = (await sql.table(SCORING_MODELS).orderBy('version', 'desc').select('version', 'active', 'seed', 'trained_by', 'created_at', 'summary')) as Record<string, unknown>[];
  const trained = rows.map((row) => {
    const { model: _model, ...rest } = fromRow({ ...row, parameters: null });
    return rest;
  });
  const { model: _builtIn, ...builtIn } = BUILT_IN_MODEL;
  return [...trained, { ...builtIn, active: !trained.some((m) => m.active) }];
}

/**
 * The records training reads: not MERGED, in GPID order, at most `limit` (fingerprints and blocking
 * keys only). Read in pages so a large registry does not need one huge result.
 */
export async function trainingRecords(sql: Sql, limit: number): Promise<TrainingRecord[]> {
  const out: TrainingRecord[] = [];
  let after = '';
  const page = 2000;
  while (out.length < limit) {
    const rows = (await sql
      .table(RECORDS)
      .whereNot('status', 'MERGED')
      .andWhere('gpid', '>', after)
      .orderBy('gpid')
      .limit(Math.min(page, limit - out.length))
      .select('gpid', 'fields', 'blocking_keys')) as Array<{ gpid: string; fields: unknown; blocking_keys: unknown }>;
    if (rows.length === 0) break;
    for (const row of rows) out.push({ gpid: row.gpid, fields: storedJson(row.fields), blockingKeys: storedJson<string[]>(row.blocking_keys) });
    after = rows[rows.length - 1]!.gpid;
  }
  return out;
}

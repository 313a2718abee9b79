/**
 * The resolves' inbound records (`identity_resolve_observations`): keyed fingerprints and blocking
 * keys only, as the resolve read them, with the GPID it ended on. Written in the resolve's
 * transaction; read by the scoring model's trainer (see domain/stage4-training.ts).
 */
import { chunks, storedJson } from '@svc/platform';
import type { ResolutionOutcome, TrainingObservation } from '../domain/index.js';
import type { Sql } from './sql.js';

export const RESOLVE_OBSERVATIONS = 'identity_resolve_observations';

export async function recordObservation(tx: Sql, r: ResolutionOutcome): Promise<void> {
  await recordObservations(tx, [r]);
}

/** The observations of several resolves, in their order, with multi-row INSERTs. */
export async function recordObservations(tx: Sql, resolutions: readonly ResolutionOutcome[]): Promise<void> {
  for (const part of chunks(resolutions, 100)) {
    await tx.table(RESOLVE_OBSERVATIONS).insert(
      part.map((r) => ({ gpid: r.gpid, fields: JSON.stringify(r.observed.fields), blocking_keys: JSON.stringify(r.observed.blockingKeys), created_at: tx.date(new Date(r.at)) })),
    );
  }
}

export async function trainingObservations(sql: Sql, limit: number): Promise<TrainingObservation[]> {
  const out: TrainingObservation[] = [];
  let before: number | null = null;
  const page = 2000;
  while (out.length < limit) {
    let query = sql.table(RESOLVE_OBSERVATIONS);
    if (before !== null) query = query.where('seq', '<', before);
    const rows = (await query
      .orderBy('seq', 'desc')
      .limit(Math.min(page, limit - out.length))
      .select('seq', 'gpid', 'fields', 'blocking_keys')) as Array<{ seq: number | string; gpid: string; fields: unknown; blocking_keys: unknown }>;
    if (rows.length === 0) break;
    for (const row of rows) out.push({ gpid: row.gpid, fields: storedJson(row.fields), blockingKeys: storedJson<string[]>(row.blocking_keys) });
    before = Number(rows[rows.length - 1]!.seq);
  }
  return out.reverse();
}

import { chunks, storedDate } from '@svc/platform';
import type { SourceOrigin } from '../domain/index.js';
import { SOURCES } from './identity-record.js';
import type { Sql } from './sql.js';

/** One source origin's confirmations of a GPID. */
export interface SourceConfirmation {
  gpid: string;
  source: SourceOrigin;
  firstConfirmedAt: Date;
  lastConfirmedAt: Date;
  confirmations: number;
}

/** Records that `source` confirmed each of `gpids` at `at` (first time, or once more). */
export async function confirmSources(tx: Sql, gpids: readonly string[], source: SourceOrigin, at: Date): Promise<void> {
  const when = tx.date(at);
  for (const gpid of new Set(gpids)) {
    await tx
      .table(SOURCES)
      .insert({ gpid, source, first_confirmed_at: when, last_confirmed_at: when, confirmations: 1 })
      .onConflict(['gpid', 'source'])
      .merge({ last_confirmed_at: when, confirmations: tx.knex.raw(`${SOURCES}.confirmations + 1`) });
  }
}

/** Confirmations per GPID, first confirmed first. */
/** A source's confirmations of one GPID gathered over several resolves: the first and last time, and how many. */
export interface ConfirmationCount {
  gpid: string;
  source: SourceOrigin;
  first: Date;
  last: Date;
  count: number;
}

/** `confirmSources` for many resolves at once: one multi-row upsert that adds each count. */
export async function confirmSourceCounts(tx: Sql, counts: readonly ConfirmationCount[]): Promise<void> {
  for (const part of chunks(counts, 100)) {
    await tx
      .table(SOURCES)
      .insert(part.map((c) => ({ gpid: c.gpid, source: c.source, first_confirmed_at: tx.date(c.first), last_confirmed_at: tx.date(c.last), confirmations: c.count })))
      .onConflict(['gpid', 'source'])
      .merge({ last_confirmed_at: tx.knex.raw('excluded.last_confirmed_at'), confirmations: tx.knex.raw(`${SOURCES}.confirmations + excluded.confirmations`) });
  }
}

export async function sourcesOf(sql: Sql, gpids: readonly string[]): Promise<Map<string, SourceConfirmation[]>> {
  const out = new Map<string, SourceConfirmation[]>(gpids.map((g) => [g, []]));
  for (const part of chunks([...new Set(gpids)], 500)) {
    const rows = (await sql.table(SOURCES).whereIn('gpid', part).orderBy([{ column: 'gpid' }, { column: 'first_confirmed_at' }, { column: 'source' }])) as Array<Record<string, unknown>>;
    for (const row of rows) {
      out.get(String(row['gpid']))?.push({
        gpid: String(row['gpid']),
        source: row['source'] as SourceOrigin,
        firstConfirmedAt: storedDate(row['first_confirmed_at']),
        lastConfirmedAt: storedDate(row['last_confirmed_at']),
        confirmations: Number(row['confirmations']),
      });
    }
  }
  return out;
}

/**
 * A merge: the survivor inherits the confirmations of the merged records (earliest first time,
 * latest last time, counts added), so its history says who ever confirmed the identity.
 */
export async function inheritConfirmations(tx: Sql, fromGpids: readonly string[], toGpid: string): Promise<void> {
  const inherited = (await sourcesOf(tx, fromGpids)).values();
  const current = (await sourcesOf(tx, [toGpid])).get(toGpid) ?? [];
  const merged = new Map(current.map((c) => [c.source, { ...c }]));
  for (const list of inherited) {
    for (const c of list) {
      const mine = merged.get(c.source);
      if (!mine) merged.set(c.source, { ...c, gpid: toGpid });
      else {
        if (c.firstConfirmedAt < mine.firstConfirmedAt) mine.firstConfirmedAt = c.firstConfirmedAt;
        if (c.lastConfirmedAt > mine.lastConfirmedAt) mine.lastConfirmedAt = c.lastConfirmedAt;
        mine.confirmations += c.confirmations;
      }
    }
  }
  for (const c of merged.values()) {
    const row = { gpid: toGpid, source: c.source, first_confirmed_at: tx.date(c.firstConfirmedAt), last_confirmed_at: tx.date(c.lastConfirmedAt), confirmations: c.confirmations };
    await tx.table(SOURCES).insert(row).onConflict(['gpid', 'source']).merge(['first_confirmed_at', 'last_confirmed_at', 'confirmations']);
  }
}

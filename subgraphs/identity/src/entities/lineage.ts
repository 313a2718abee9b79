import { chunks, storedDate, storedJson } from '@svc/platform';
import type { MergeContribution } from '../domain/index.js';
import { LINEAGE } from './identity-record.js';
import type { Sql } from './sql.js';

/** A merge or split between two GPIDs: `gpid` was merged into, or split from, `survivorGpid`. */
export interface LineageEvent {
  id: number;
  kind: 'merge' | 'split';
  survivorGpid: string;
  gpid: string;
  requestId: string;
  reason: string;
  at: Date;
}

export async function addLineage(tx: Sql, event: Omit<LineageEvent, 'id'> & { contribution?: MergeContribution | null }): Promise<void> {
  await tx.table(LINEAGE).insert({
    kind: event.kind,
    survivor_gpid: event.survivorGpid,
    gpid: event.gpid,
    request_id: event.requestId,
    reason: event.reason,
    contribution: event.contribution ? JSON.stringify(event.contribution) : null,
    created_at: tx.date(event.at),
  });
}

/** Every lineage event a GPID takes part in (either side), oldest first. */
export async function lineageOf(sql: Sql, gpids: readonly string[]): Promise<Map<string, LineageEvent[]>> {
  const out = new Map<string, LineageEvent[]>(gpids.map((g) => [g, []]));
  for (const part of chunks([...new Set(gpids)], 250)) {
    const rows = (await sql
      .table(LINEAGE)
      .where((q) => q.whereIn('gpid', part).orWhereIn('survivor_gpid', part))
      .orderBy('id')
      .select('id', 'kind', 'survivor_gpid', 'gpid', 'request_id', 'reason', 'created_at')) as Array<Record<string, unknown>>;
    for (const row of rows) {
      const event: LineageEvent = {
        id: Number(row['id']),
        kind: row['kind'] as LineageEvent['kind'],
        survivorGpid: String(row['survivor_gpid']),
        gpid: String(row['gpid']),
        requestId: String(row['request_id']),
        reason: String(row['reason']),
        at: storedDate(row['created_at']),
      };
      for (const side of new Set([event.gpid, event.survivorGpid])) out.get(side)?.push(event);
    }
  }
  return out;
}

/** What `gpid` contributed at its latest merge into `survivorGpid`. */
export async function latestContribution(tx: Sql, gpid: string, survivorGpid: string): Promise<MergeContribution | null> {
  const row = (await tx.table(LINEAGE).where({ gpid, survivor_gpid: survivorGpid, kind: 'merge' }).orderBy('id', 'desc').first('contribution')) as { contribution: unknown } | undefined;
  return row?.contribution ? storedJson<MergeContribution>(row.contribution) : null;
}

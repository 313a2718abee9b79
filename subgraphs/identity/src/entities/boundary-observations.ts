import type { SourceOrigin } from '../domain/index.js';
import { BOUNDARY_OBSERVATIONS } from './identity-record.js';
import type { Sql } from './sql.js';

/**
 * Notes that `partnerGpid` called a write path with a valid X-Svc-Source on the (UTC) day of `at`.
 * Returns true only for the first observation of that partner, path and day: the insert is
 * ignored on conflict and returns a row only when it wrote one (idempotent across replicas).
 */
export async function observeBoundaryHeader(tx: Sql, partnerGpid: string, path: string, source: SourceOrigin, at: Date): Promise<boolean> {
  const rows = await tx.rows(
    `insert into ${BOUNDARY_OBSERVATIONS} (partner_gpid, path, day, source, observed_at) values (?, ?, ?, ?, ?) ` +
      'on conflict (partner_gpid, path, day) do nothing returning day',
    [partnerGpid, path, at.toISOString().slice(0, 10), source, tx.date(at)],
  );
  return rows.length === 1;
}

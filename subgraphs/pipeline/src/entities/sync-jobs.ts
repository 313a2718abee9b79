import { knexOf, rowsOf, storedDate, storedDateOrNull, storedJson } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { SyncJobEntity, type SyncJob } from './sync-job.js';

const TABLE = 'pipeline_sync_jobs';

/** What the metrics query answers for one partner. */
export interface PartnerJobMetrics {
  /** Jobs created in the window, by status. */
  byStatus: Record<string, number>;
  /** Records of the completed jobs in the window. */
  recordsCompleted: number;
  errorCodes: { code: string; count: number }[];
  lastCompletedAt: Date | null;
  lastFailedAt: Date | null;
}

const num = (value: unknown): number => (typeof value === 'number' ? value : Number(value));
const numOrNull = (value: unknown): number | null => (value === null || value === undefined ? null : num(value));
const strOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

type Decode = (value: unknown) => unknown;

/** Each property of a sync job: its column, and how a stored value of it is read. */
const PROPERTIES: { readonly [P in keyof SyncJob]-?: readonly [column: string, decode: Decode] } = {
  id: ['id', String],
  partnerGpid: ['partner_gpid', String],
  kind: ['kind', strOrNull],
  entries: ['entries', numOrNull],
  sequence: ['sequence', num],
  startedAt: ['started_at', storedDateOrNull],
  updatedAt: ['updated_at', storedDateOrNull],
  nextAttemptAt: ['next_attempt_at', storedDateOrNull],
  resourceTypes: ['resource_types', (v) => storedJson<string[] | null>(v) ?? []],
  status: ['status', String],
  recordsProcessed: ['records_processed', num],
  attempts: ['attempts', num],
  createdAt: ['created_at', storedDate],
  completedAt: ['completed_at', storedDateOrNull],
  failedAt: ['failed_at', storedDateOrNull],
  errorCode: ['error_code', strOrNull],
  message: ['message', strOrNull],
};
export type SyncJobProperty = keyof SyncJob;
const ALL_PROPERTIES = Object.keys(PROPERTIES) as SyncJobProperty[];

export function isSyncJobProperty(name: string): name is SyncJobProperty {
  return Object.hasOwn(PROPERTIES, name);
}

/**
 * A row of the sync-job table as the plain value the schema reads (json is text on SQLite, parsed
 * on PostgreSQL). A row of some columns only gives a job of those properties only: the caller
 * asked for no others and reads no others.
 */
function syncJobOfRow(row: Record<string, unknown>, properties: readonly SyncJobProperty[]): SyncJob {
  const job: Record<string, unknown> = {};
  for (const property of properties) {
    const [column, decode] = PROPERTIES[property];
    job[property] = decode(row[column]);
  }
  return job as unknown as SyncJob;
}

/** Sync job queries. */
export const syncJobs = {
  byId(em: EntityManager, id: string): Promise<SyncJob | null> {
    return em.findOne(SyncJobEntity, { id });
  },

  /**
   * The newest jobs of many partners in ONE statement (the DataLoader batch behind
   * `Partner.syncJobs`), grouped back per partner in key order, with the given properties only
   * (the id and partner are always read): on the gateway's hottest pipeline read a query asks for
   * two of the seventeen, and reading, parsing and decoding the other columns was a sixth of the
   * subgraph's CPU time (bench/RESULTS.md).
   */
  async newestByPartners(knex: Knex, partnerGpids: readonly string[], perPartner: number, properties: readonly SyncJobProperty[] = ALL_PROPERTIES): Promise<SyncJob[][]> {
    if (partnerGpids.length === 0) return [];
    const wanted = [...new Set<SyncJobProperty>(['id', 'partnerGpid', ...properties])];
    const columns = wanted.map((p) => `"${PROPERTIES[p][0]}"`).join(', ');
    // Rank in the database, so a partner's long history is never read just to keep its newest
    // jobs. Written as SQL text, not built: the query builder's compiling was 5 % of this read.
    const sql =
      `select ${columns} from (select ${columns}, row_number() over (partition by partner_gpid order by id desc) as rank_in_partner ` +
      `from ${TABLE} where partner_gpid in (${partnerGpids.map(() => '?').join(', ')})) as ranked where rank_in_partner <= ? order by id desc`;
    const rows = rowsOf<Record<string, unknown>>(await knex.raw(sql, [...partnerGpids, perPartner]));
    const grouped = new Map<string, SyncJob[]>(partnerGpids.map((g) => [g, []]));
    // Plain read-only values, not managed entities: the ORM's hydration, identity map and
    // change-tracking snapshot were a third of this subgraph's CPU time on this read (bench/RESULTS.md).
    for (const row of rows) grouped.get(String(row['partner_gpid']))?.push(syncJobOfRow(row, wanted));
    return partnerGpids.map((g) => grouped.get(g) ?? []);
  },

  /**
   * Windowed metrics of many partners in three grouped statements (the DataLoader batch behind
   * `Partner.pipelineMetrics`): jobs created since `since` by status, their records, the error
   * codes of the failed ones; and each partner's last completion and failure of all time.
   */
  async metricsByPartners(em: EntityManager, partnerGpids: readonly string[], since: Date): Promise<PartnerJobMetrics[]> {
    const knex = knexOf(em);
    const gpids = [...partnerGpids];
    const from = em.getPlatform().processDateProperty(since);
    const [byStatus, byCode, last] = await Promise.all([
      knex(TABLE)
        .select('partner_gpid', 'status')
        .count({ n: '*' })
        .sum({ records: 'records_processed' })
        .whereIn('partner_gpid', gpids)
        .where('created_at', '>=', from)
        .groupBy('partner_gpid', 'status') as unknown as Promise<{ partner_gpid: string; status: string; n: number | string; records: number | string | null }[]>,
      knex(TABLE)
        .select('partner_gpid', 'error_code')
        .count({ n: '*' })
        .whereIn('partner_gpid', gpids)
        .where('created_at', '>=', from)
        .where('status', 'failed')
        .whereNotNull('error_code')
        .groupBy('partner_gpid', 'error_code') as unknown as Promise<{ partner_gpid: string; error_code: string; n: number | string }[]>,
      knex(TABLE)
        .select('partner_gpid')
        .max({ completed: 'completed_at', failed: 'failed_at' })
        .whereIn('partner_gpid', gpids)
        .groupBy('partner_gpid') as unknown as Promise<{ partner_gpid: string; completed: unknown; failed: unknown }[]>,
    ]);
    const metrics = new Map<string, PartnerJobMetrics>(gpids.map((g) => [g, { byStatus: {}, recordsCompleted: 0, errorCodes: [], lastCompletedAt: null, lastFailedAt: null }]));
    for (const row of byStatus) {
      const m = metrics.get(row.partner_gpid);
      if (!m) continue;
      m.byStatus[row.status] = Number(row.n);
      if (row.status === 'completed') m.recordsCompleted = Number(row.records ?? 0);
    }
    for (const row of byCode) metrics.get(row.partner_gpid)?.errorCodes.push({ code: row.error_code, count: Number(row.n) });
    for (const row of last) {
      const m = metrics.get(row.partner_gpid);
      if (!m) continue;
      m.lastCompletedAt = storedDateOrNull(row.completed);
      m.lastFailedAt = storedDateOrNull(row.failed);
    }
    for (const m of metrics.values()) m.errorCodes.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    return gpids.map((g) => metrics.get(g)!);
  },

  /** Jobs not finished whose last change is older than `before` (a stuck worker or queue). */
  async stuckSince(em: EntityManager, before: Date, partnerGpid: string | null): Promise<number> {
    const query = knexOf(em)(TABLE)
      .count({ n: '*' })
      .whereIn('status', ['queued', 'running'])
      .where('updated_at', '<', em.getPlatform().processDateProperty(before));
    if (partnerGpid) query.where('partner_gpid', partnerGpid);
    const rows = (await query) as unknown as { n: number | string }[];
    return Number(rows[0]?.n ?? 0);
  },

  /** Counts by status since `since`, for pipeline health. */
  async countsSince(em: EntityManager, since: Date, partnerGpid: string | null): Promise<Record<string, number>> {
    const query = knexOf(em)(TABLE)
      .select('status')
      .count({ n: '*' })
      .where('created_at', '>=', em.getPlatform().processDateProperty(since))
      .groupBy('status');
    if (partnerGpid) query.where('partner_gpid', partnerGpid);
    const rows = (await query) as unknown as { status: string; n: number | string }[];
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  },
};

import type { EntityManager } from '@mikro-orm/core';
import { knexOf, storedDate, type CredentialKind, type RequestLogEntry } from '@svc/platform';

const TABLE = 'partner_request_log';
/** Rows per multi-row INSERT (10 columns each: far under either dialect's parameter limit). */
const INSERT_CHUNK = 200;

/** One stored entry of a partner's request log. */
export interface StoredRequest {
  id: string;
  partnerGpid: string;
  occurredAt: Date;
  method: string;
  route: string;
  status: number;
  requestId: string;
  latencyMs: number;
  credentialId: string | null;
  credentialKind: CredentialKind;
}

/** What a partner narrows its log to; every bound is optional. */
export interface RequestLogFilter {
  partnerGpid: string;
  /** Inclusive status range (a status class: 200–299 for 2xx). */
  status?: { min: number; max: number };
  method?: string;
  credentialId?: string;
  since?: Date;
  until?: Date;
  /** Entries older than this id (the cursor). */
  beforeId?: string;
  limit: number;
}

interface Row {
  id: number | string;
  partner_gpid: string;
  occurred_at_ms: number | string;
  method: string;
  route: string;
  status: number | string;
  request_id: string;
  latency_ms: number | string;
  credential_id: string | null;
  credential_kind: string;
}

function fromRow(r: Row): StoredRequest {
  return {
    id: String(r.id),
    partnerGpid: r.partner_gpid,
    occurredAt: storedDate(r.occurred_at_ms),
    method: r.method,
    route: r.route,
    status: Number(r.status),
    requestId: r.request_id,
    latencyMs: Number(r.latency_ms),
    credentialId: r.credential_id,
    credentialKind: r.credential_kind as CredentialKind,
  };
}

/** The request log's queries: written in batches, read newest first, pruned by age and count. */
export const requestLog = {
  async insertMany(em: EntityManager, entries: readonly RequestLogEntry[]): Promise<void> {
    const knex = knexOf(em);
    for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
      await knex(TABLE).insert(
        entries.slice(i, i + INSERT_CHUNK).map((e) => ({
          partner_gpid: e.partnerGpid,
          occurred_at_ms: Date.parse(e.occurredAt),
          method: e.method,
          route: e.route,
          status: e.status,
          request_id: e.requestId,
          latency_ms: e.latencyMs,
          credential_id: e.credentialId,
          credential_kind: e.credentialKind,
        })),
      );
    }
  },

  /** A page of one partner's entries, newest first (`limit` rows; the caller asks one more to learn whether more follow). */
  async page(em: EntityManager, filter: RequestLogFilter): Promise<StoredRequest[]> {
    const q = knexOf(em)(TABLE).where('partner_gpid', filter.partnerGpid);
    if (filter.status) q.whereBetween('status', [filter.status.min, filter.status.max]);
    if (filter.method) q.where('method', filter.method);
    if (filter.credentialId) q.where('credential_id', filter.credentialId);
    if (filter.since) q.where('occurred_at_ms', '>=', filter.since.getTime());
    if (filter.until) q.where('occurred_at_ms', '<', filter.until.getTime());
    if (filter.beforeId) q.where('id', '<', filter.beforeId);
    const rows = (await q.orderBy('id', 'desc').limit(filter.limit)) as Row[];
    return rows.map(fromRow);
  },

  /**
   * Delete what is beyond either bound: entries older than `olderThan`, and each partner's entries
   * beyond its newest `maxPerPartner`. Answers how many were deleted.
   */
  async prune(em: EntityManager, olderThan: Date, maxPerPartner: number): Promise<number> {
    const knex = knexOf(em);
    let deleted = Number(await knex(TABLE).where('occurred_at_ms', '<', olderThan.getTime()).delete());
    const over = (await knex(TABLE).select('partner_gpid').groupBy('partner_gpid').havingRaw('count(*) > ?', [maxPerPartner])) as { partner_gpid: string }[];
    for (const { partner_gpid } of over) {
      // The oldest entry still kept: everything of this partner older than it goes.
      const [kept] = (await knex(TABLE).select('id').where('partner_gpid', partner_gpid).orderBy('id', 'desc').offset(maxPerPartner - 1).limit(1)) as { id: number | string }[];
      if (kept) deleted += Number(await knex(TABLE).where('partner_gpid', partner_gpid).where('id', '<', kept.id).delete());
    }
    return deleted;
  },
};

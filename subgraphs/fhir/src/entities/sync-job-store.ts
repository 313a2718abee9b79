import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';

export const SYNC_JOBS = 'fhir_sync_jobs';
export const SYNC_PAYLOADS = 'fhir_sync_payloads';
export const SYNC_ENTRIES = 'fhir_sync_entries';

export type SyncJobKind = 'transaction' | 'batch' | 'ndjson';
export type SyncJobState = 'queued' | 'running' | 'retrying' | 'completed' | 'failed';

/** What the job keeps of the submitting credential: it runs with exactly these rights. */
export interface StoredPrincipal {
  kind: 'partner' | 'service' | 'portal';
  partnerGpid: string;
  scopes: string[];
  tokenId?: string;
  clientId?: string;
  /** The SMART patient context of the submitting credential: the job stays narrowed to it. */
  patient?: string;
}

export interface SyncJobRecord {
  id: string;
  partnerGpid: string;
  principal: StoredPrincipal;
  kind: SyncJobKind;
  state: SyncJobState;
  resourceTypes: string[];
  entriesTotal: number;
  entriesDone: number;
  recordsProcessed: number;
  attempts: number;
  sequence: number;
  returnResources: boolean;
  source: string | null;
  requestId: string;
  workerId: string | null;
  heartbeatAt: string | null;
  nextAttemptAt: string | null;
  errorCode: string | null;
  message: string | null;
  result: string | null;
  resultStatus: number | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** The W3C traceparent of the request that enqueued the job (tracing on): each run is a span of that trace. */
  traceParent: string | null;
}

interface Row {
  id: string;
  partner_gpid: string;
  principal: string;
  kind: string;
  state: string;
  resource_types: string;
  entries_total: number | string;
  entries_done: number | string;
  records_processed: number | string;
  attempts: number | string;
  sequence: number | string;
  return_resources: boolean | number;
  source: string | null;
  request_id: string;
  worker_id: string | null;
  heartbeat_at: string | null;
  next_attempt_at: string | null;
  error_code: string | null;
  message: string | null;
  result: string | null;
  result_status: number | string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  trace_parent?: string | null;
}

function toJob(r: Row): SyncJobRecord {
  return {
    id: r.id,
    partnerGpid: r.partner_gpid,
    principal: JSON.parse(r.principal) as StoredPrincipal,
    kind: r.kind as SyncJobKind,
    state: r.state as SyncJobState,
    resourceTypes: JSON.parse(r.resource_types) as string[],
    entriesTotal: Number(r.entries_total),
    entriesDone: Number(r.entries_done),
    recordsProcessed: Number(r.records_processed),
    attempts: Number(r.attempts),
    sequence: Number(r.sequence),
    returnResources: Boolean(r.return_resources),
    source: r.source,
    requestId: r.request_id,
    workerId: r.worker_id,
    heartbeatAt: r.heartbeat_at,
    nextAttemptAt: r.next_attempt_at,
    errorCode: r.error_code,
    message: r.message,
    result: r.result,
    resultStatus: r.result_status === null ? null : Number(r.result_status),
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    traceParent: r.trace_parent ?? null,
  };
}

/** The final state of a job, written with its event by the worker that holds it. */
export interface SyncJobOutcome {
  state: 'completed' | 'failed';
  recordsProcessed: number;
  errorCode: string | null;
  message: string | null;
  result: string;
  resultStatus: number;
  now: string;
}

/**
 * The durable sync jobs of asynchronous submissions. Every change a worker makes is conditional on
 * it still holding the job (`worker_id`, state `running`), so a worker that lost its lease (taken
 * over after a crash or a stall) can never write over the one that took it.
 */
export const syncJobStore = {
  async insert(em: EntityManager, job: SyncJobRecord, body: string): Promise<void> {
    const knex = knexOf(em);
    await knex(SYNC_JOBS).insert({
      id: job.id,
      partner_gpid: job.partnerGpid,
      principal: JSON.stringify(job.principal),
      kind: job.kind,
      state: job.state,
      resource_types: JSON.stringify(job.resourceTypes),
      entries_total: job.entriesTotal,
      entries_done: 0,
      records_processed: 0,
      attempts: 0,
      sequence: job.sequence,
      return_resources: job.returnResources ? 1 : 0,
      source: job.source,
      request_id: job.requestId,
      worker_id: null,
      heartbeat_at: null,
      next_attempt_at: null,
      error_code: null,
      message: null,
      result: null,
      result_status: null,
      created_at: job.createdAt,
      started_at: null,
      finished_at: null,
      trace_parent: job.traceParent,
    });
    await knex(SYNC_PAYLOADS).insert({ job_id: job.id, body });
  },

  async get(em: EntityManager, id: string): Promise<SyncJobRecord | null> {
    const row = (await knexOf(em)(SYNC_JOBS).where({ id }).first()) as Row | undefined;
    return row ? toJob(row) : null;
  },

  async payload(em: EntityManager, id: string): Promise<string> {
    const row = (await knexOf(em)(SYNC_PAYLOADS).where({ job_id: id }).first('body')) as { body: string } | undefined;
    return row?.body ?? '';
  },

  /**
   * Take the oldest job that is queued, due for a retry, or running with a heartbeat older than
   * `staleBefore` (its worker died): a conditional update, so two workers never hold the same job.
   * Each claim is one more attempt.
   */
  async claim(em: EntityManager, workerId: string, now: string, staleBefore: string): Promise<SyncJobRecord | null> {
    const knex = knexOf(em);
    // Fair between partners: the partner whose last job started longest ago (or never) goes first,
    // then its oldest job. A partner with a hundred queued batches and another with one are served
    // in turn, not in order of arrival.
    const claimable = knex(SYNC_JOBS)
      .select('id', 'sequence', 'created_at', 'partner_gpid')
      .where('state', 'queued')
      .orWhere((w) => w.where('state', 'retrying').where('next_attempt_at', '<=', now))
      .orWhere((w) => w.where('state', 'running').where('heartbeat_at', '<', staleBefore));
    const lastStart = knex(`${SYNC_JOBS} as s`).max('s.started_at').where('s.partner_gpid', knex.ref('c.partner_gpid'));
    const candidates = (await knex
      .select('c.id', 'c.sequence')
      .from(claimable.as('c'))
      .orderByRaw(`coalesce((${lastStart.toQuery()}), ''), c.created_at, c.id`)
      .limit(5)) as { id: string; sequence: number | string }[];
    for (const c of candidates) {
      const taken = await knex(SYNC_JOBS)
        .where({ id: c.id, sequence: Number(c.sequence) })
        .whereIn('state', ['queued', 'retrying', 'running'])
        .update({
          state: 'running',
          worker_id: workerId,
          heartbeat_at: now,
          next_attempt_at: null,
          attempts: knex.raw('attempts + 1'),
          sequence: knex.raw('sequence + 1'),
          started_at: knex.raw('coalesce(started_at, ?)', [now]),
        });
      if (taken === 1) return this.get(em, c.id);
    }
    return null;
  },

  /** Jobs not finished yet (queued, running or waiting to retry): of one partner, and of everyone. */
  async backlog(em: EntityManager, partnerGpid: string): Promise<{ partner: number; total: number }> {
    const knex = knexOf(em);
    const unfinished = ['queued', 'running', 'retrying'];
    const [total] = (await knex(SYNC_JOBS).count({ n: '*' }).whereIn('state', unfinished)) as { n: number | string }[];
    const [own] = (await knex(SYNC_JOBS).count({ n: '*' }).whereIn('state', unfinished).where('partner_gpid', partnerGpid)) as { n: number | string }[];
    return { partner: Number(own?.n ?? 0), total: Number(total?.n ?? 0) };
  },

  /** Jobs left running by this (single) process before it stopped: back to queued, one sequence step each. */
  async requeueRunning(em: EntityManager): Promise<SyncJobRecord[]> {
    const knex = knexOf(em);
    const rows = (await knex(SYNC_JOBS).where('state', 'running')) as Row[];
    const requeued: SyncJobRecord[] = [];
    for (const row of rows) {
      const moved = await knex(SYNC_JOBS)
        .where({ id: row.id, state: 'running', sequence: Number(row.sequence) })
        .update({ state: 'queued', worker_id: null, sequence: Number(row.sequence) + 1 });
      if (moved === 1) requeued.push({ ...toJob(row), state: 'queued', workerId: null, sequence: Number(row.sequence) + 1 });
    }
    return requeued;
  },

  /** Give a job back (graceful stop): not counted as an attempt; the next worker resumes after its last entry. */
  async release(em: EntityManager, job: SyncJobRecord, workerId: string): Promise<SyncJobRecord | null> {
    const knex = knexOf(em);
    const moved = await knex(SYNC_JOBS)
      .where({ id: job.id, worker_id: workerId, state: 'running' })
      .update({ state: 'queued', worker_id: null, attempts: knex.raw('attempts - 1'), sequence: knex.raw('sequence + 1') });
    return moved === 1 ? this.get(em, job.id) : null;
  },

  /** Indexes of the entries already processed (a resumed batch or NDJSON job skips them). */
  async doneEntries(em: EntityManager, jobId: string): Promise<Set<number>> {
    const rows = (await knexOf(em)(SYNC_ENTRIES).where({ job_id: jobId }).select('entry_index')) as { entry_index: number | string }[];
    return new Set(rows.map((r) => Number(r.entry_index)));
  },

  async entries(em: EntityManager, jobId: string): Promise<{ index: number; status: number; response: Record<string, unknown> }[]> {
    const rows = (await knexOf(em)(SYNC_ENTRIES).where({ job_id: jobId }).orderBy('entry_index')) as { entry_index: number | string; status: number | string; response: string }[];
    return rows.map((r) => ({ index: Number(r.entry_index), status: Number(r.status), response: JSON.parse(r.response) as Record<string, unknown> }));
  },

  /**
   * Record one processed entry and move the job's counters and heartbeat, in the caller's
   * transaction (the one that wrote the entry); false, and nothing recorded, when the job is no
   * longer this worker's.
   */
  async saveEntry(em: EntityManager, jobId: string, workerId: string, entry: { index: number; status: number; response: Record<string, unknown>; now: string }): Promise<boolean> {
    const knex = knexOf(em);
    const ok = entry.status < 400 ? 1 : 0;
    const moved = await knex(SYNC_JOBS)
      .where({ id: jobId, worker_id: workerId, state: 'running' })
      .update({ entries_done: knex.raw('entries_done + 1'), records_processed: knex.raw('records_processed + ?', [ok]), heartbeat_at: entry.now });
    if (moved !== 1) return false;
    await knex(SYNC_ENTRIES).insert({ job_id: jobId, entry_index: entry.index, status: entry.status, response: JSON.stringify(entry.response) });
    return true;
  },

  /** Keep the lease of a long job; false when it is no longer this worker's. */
  async heartbeat(em: EntityManager, jobId: string, workerId: string, now: string): Promise<boolean> {
    return (await knexOf(em)(SYNC_JOBS).where({ id: jobId, worker_id: workerId, state: 'running' }).update({ heartbeat_at: now })) === 1;
  },

  /** A transient failure: wait until `nextAttemptAt`; false when the job is no longer this worker's. */
  async scheduleRetry(em: EntityManager, jobId: string, workerId: string, retry: { nextAttemptAt: string; errorCode: string; now: string }): Promise<SyncJobRecord | null> {
    const knex = knexOf(em);
    const moved = await knex(SYNC_JOBS)
      .where({ id: jobId, worker_id: workerId, state: 'running' })
      .update({ state: 'retrying', worker_id: null, next_attempt_at: retry.nextAttemptAt, error_code: retry.errorCode, heartbeat_at: retry.now, sequence: knex.raw('sequence + 1') });
    return moved === 1 ? this.get(em, jobId) : null;
  },

  /** The job's final state; false when it is no longer this worker's (the caller rolls back). */
  async finish(em: EntityManager, jobId: string, workerId: string, outcome: SyncJobOutcome): Promise<boolean> {
    const knex = knexOf(em);
    const moved = await knex(SYNC_JOBS)
      .where({ id: jobId, worker_id: workerId, state: 'running' })
      .update({
        state: outcome.state,
        records_processed: outcome.recordsProcessed,
        error_code: outcome.errorCode,
        message: outcome.message,
        result: outcome.result,
        result_status: outcome.resultStatus,
        finished_at: outcome.now,
        heartbeat_at: outcome.now,
        worker_id: null,
        sequence: knex.raw('sequence + 1'),
      });
    if (moved !== 1) return false;
    // The payload is no longer needed once the job has its answer.
    await knex(SYNC_PAYLOADS).where({ job_id: jobId }).delete();
    return true;
  },
};

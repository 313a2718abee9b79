import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { INDEX_TABLES, RESOURCES, whereVisible, type ResourceView, type TenancyView } from './resource-store.js';
import { selectLinkedGpid } from './gpid-link-store.js';
import { projectGpidOnText } from '../domain/gpid-identifier.js';

export const JOBS = 'fhir_export_jobs';
export const FILES = 'fhir_export_files';
export const CHUNKS = 'fhir_export_chunks';

export type ExportLevel = 'system' | 'patient' | 'group';
export type ExportState = 'accepted' | 'running' | 'completed' | 'failed';

/** Where the next page of a job starts. */
export interface ExportCursor {
  typeIndex: number;
  lastUpdated: string | null;
  id: string | null;
}

export interface ExportJob {
  id: string;
  partnerGpid: string;
  coversAll: boolean;
  level: ExportLevel;
  groupId: string | null;
  types: string[];
  since: string | null;
  outputFormat: string;
  requestUrl: string;
  transactionTime: string;
  state: ExportState;
  cursor: ExportCursor;
  exported: number;
  workerId: string | null;
  heartbeatAt: string | null;
  error: string | null;
  createdAt: string;
  completedAt: string | null;
  /** _typeFilter: per type, search queries (OR) a resource must match to be exported. */
  typeFilters: Record<string, string[]>;
  /** When the finished job and its files expire (null while it runs). */
  expiresAt: string | null;
  /** The SMART patient context of the credential that asked: the export stays in that patient's compartment. */
  patientContext: string | null;
  /** _elements: per type, the root elements each resource keeps (null: whole resources). */
  elements: Record<string, string[]> | null;
  /** patient: the Patient ids whose compartments a Patient or Group level export keeps (null: all). */
  patients: string[] | null;
  /** The W3C traceparent of the request that started the export (tracing on): each run is a span of that trace. */
  traceParent: string | null;
}

export interface ExportFile {
  fileIndex: number;
  resourceType: string;
  count: number;
}

interface JobRow {
  id: string;
  partner_gpid: string;
  covers_all: boolean | number;
  level: string;
  group_id: string | null;
  types: string;
  since: string | null;
  output_format: string;
  request_url: string;
  transaction_time: string;
  state: string;
  cursor: string | null;
  exported: number | string;
  worker_id: string | null;
  heartbeat_at: string | null;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  type_filters: string | null;
  expires_at: string | null;
  patient_context: string | null;
  elements: string | null;
  patients: string | null;
  trace_parent?: string | null;
}

function toJob(row: JobRow): ExportJob {
  return {
    id: row.id,
    partnerGpid: row.partner_gpid,
    coversAll: Boolean(row.covers_all),
    level: row.level as ExportLevel,
    groupId: row.group_id,
    types: JSON.parse(row.types) as string[],
    since: row.since,
    outputFormat: row.output_format,
    requestUrl: row.request_url,
    transactionTime: row.transaction_time,
    state: row.state as ExportState,
    cursor: row.cursor ? (JSON.parse(row.cursor) as ExportCursor) : { typeIndex: 0, lastUpdated: null, id: null },
    exported: Number(row.exported),
    workerId: row.worker_id,
    heartbeatAt: row.heartbeat_at,
    error: row.error,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    typeFilters: row.type_filters ? (JSON.parse(row.type_filters) as Record<string, string[]>) : {},
    expiresAt: row.expires_at,
    patientContext: row.patient_context ?? null,
    elements: row.elements ? (JSON.parse(row.elements) as Record<string, string[]>) : null,
    patients: row.patients ? (JSON.parse(row.patients) as string[]) : null,
    traceParent: row.trace_parent ?? null,
  };
}

/** The patients of a Group (its `member` references to Patient), as a subquery. */
function groupMembers(knex: Knex, groupId: string): Knex.QueryBuilder {
  return knex(`${INDEX_TABLES.reference} as g`).select('g.target_id').where({ 'g.resource_type': 'Group', 'g.resource_id': groupId, 'g.param': 'member', 'g.target_type': 'Patient' });
}

/** One page of what a job exports from one type: what a query for it selects. */
export interface PageRequest {
  job: ExportJob;
  resourceType: string;
  /** Patient-compartment reference parameters of the type (patient and group levels). */
  compartmentParams: readonly string[];
  /** _typeFilter of this type: adds `where` conditions (the search engine's) to the query. */
  filter?: (q: Knex.QueryBuilder, knex: Knex) => void;
  after: { lastUpdated: string; id: string } | null;
  limit: number;
  /** Whose resources the job reads: the asking partner's read view (undefined: everyone's). */
  view: ResourceView;
}

/** The durable $export jobs, their output files and chunks. */
export const exportStore = {
  async insert(em: EntityManager, job: ExportJob): Promise<void> {
    await knexOf(em)(JOBS).insert({
      id: job.id,
      partner_gpid: job.partnerGpid,
      covers_all: job.coversAll ? 1 : 0,
      level: job.level,
      group_id: job.groupId,
      types: JSON.stringify(job.types),
      since: job.since,
      output_format: job.outputFormat,
      request_url: job.requestUrl,
      transaction_time: job.transactionTime,
      state: job.state,
      cursor: null,
      exported: 0,
      worker_id: null,
      heartbeat_at: null,
      error: null,
      created_at: job.createdAt,
      completed_at: null,
      type_filters: Object.keys(job.typeFilters).length > 0 ? JSON.stringify(job.typeFilters) : null,
      expires_at: null,
      patient_context: job.patientContext,
      elements: job.elements === null ? null : JSON.stringify(job.elements),
      patients: job.patients === null ? null : JSON.stringify(job.patients),
      trace_parent: job.traceParent,
    });
  },

  async get(em: EntityManager, id: string): Promise<ExportJob | null> {
    const row = (await knexOf(em)(JOBS).where({ id }).first()) as JobRow | undefined;
    return row ? toJob(row) : null;
  },

  async files(em: EntityManager, jobId: string): Promise<ExportFile[]> {
    const rows = (await knexOf(em)(FILES).where({ job_id: jobId }).orderBy('file_index')) as { file_index: number | string; resource_type: string; count: number | string }[];
    return rows.map((r) => ({ fileIndex: Number(r.file_index), resourceType: r.resource_type, count: Number(r.count) }));
  },

  /** The first chunk of a file after `afterSeq` (-1 for the first), or null past the end. */
  async chunkAfter(em: EntityManager, jobId: string, fileIndex: number, afterSeq: number): Promise<{ seq: number; data: string } | null> {
    const row = (await knexOf(em)(CHUNKS).where({ job_id: jobId, file_index: fileIndex }).where('seq', '>', afterSeq).orderBy('seq').first('seq', 'data')) as { seq: number | string; data: string } | undefined;
    return row ? { seq: Number(row.seq), data: row.data } : null;
  },

  /** A job and its output, gone. */
  async remove(em: EntityManager, jobId: string): Promise<void> {
    const knex = knexOf(em);
    await knex(CHUNKS).where({ job_id: jobId }).delete();
    await knex(FILES).where({ job_id: jobId }).delete();
    await knex(JOBS).where({ id: jobId }).delete();
  },

  /** The resource types present among what a job may export (for a default _type). */
  async presentTypes(em: EntityManager, view: TenancyView): Promise<string[]> {
    const q = knexOf(em)(RESOURCES).distinct('resource_type').where('deleted', 0);
    whereVisible(q, 'partner_gpid', view);
    return ((await q) as { resource_type: string }[]).map((r) => r.resource_type);
  },

  /**
   * Take the oldest job that is waiting, or running with a heartbeat older than `staleBefore` (its
   * worker died): a conditional update, so two workers never take the same job.
   */
  async claim(em: EntityManager, workerId: string, now: string, staleBefore: string): Promise<ExportJob | null> {
    const knex = knexOf(em);
    const candidates = (await knex(JOBS)
      .select('id', 'state', 'heartbeat_at')
      .where('state', 'accepted')
      .orWhere((w) => w.where('state', 'running').where('heartbeat_at', '<', staleBefore))
      .orderBy('created_at')
      .limit(5)) as { id: string; state: string; heartbeat_at: string | null }[];
    for (const c of candidates) {
      const q = knex(JOBS).where({ id: c.id, state: c.state });
      if (c.heartbeat_at === null) q.whereNull('heartbeat_at');
      else q.where('heartbeat_at', c.heartbeat_at);
      if ((await q.update({ state: 'running', worker_id: workerId, heartbeat_at: now })) === 1) return this.get(em, c.id);
    }
    return null;
  },

  /** Every job left running (embedded mode at start: no other process can be running it). */
  async requeueRunning(em: EntityManager): Promise<number> {
    return knexOf(em)(JOBS).where('state', 'running').update({ state: 'accepted', worker_id: null });
  },

  /** Give a job back (graceful stop): the next worker resumes at its cursor. */
  async release(em: EntityManager, jobId: string, workerId: string): Promise<void> {
    await knexOf(em)(JOBS).where({ id: jobId, worker_id: workerId, state: 'running' }).update({ state: 'accepted', worker_id: null });
  },

  /**
   * One page of resources, in (last_updated, id) order, read straight from the store; Patients with
   * their current GPID link projected (as every read shows them).
   */
  async page(em: EntityManager, p: PageRequest): Promise<{ id: string; last_updated: string; content: string }[]> {
    const knex = knexOf(em);
    const { job } = p;
    const q = knex(`${RESOURCES} as r`).select('r.id', 'r.last_updated', 'r.content').where('r.resource_type', p.resourceType).where('r.deleted', 0).where('r.last_updated', '<=', job.transactionTime);
    whereVisible(q, 'r.partner_gpid', p.view, p.resourceType);
    if (job.since) q.where('r.last_updated', '>', job.since);
    if (p.after) {
      const after = p.after;
      q.where((w) => w.where('r.last_updated', '>', after.lastUpdated).orWhere((x) => x.where('r.last_updated', after.lastUpdated).where('r.id', '>', after.id)));
    }
    if (job.level !== 'system') {
      if (p.resourceType === 'Patient') {
        if (job.level === 'group') q.whereIn('r.id', groupMembers(knex, job.groupId!));
        if (job.patients) q.whereIn('r.id', job.patients);
      } else {
        const sub = knex(`${INDEX_TABLES.reference} as s`)
          .select(knex.raw('1'))
          .whereRaw('s.resource_type = r.resource_type and s.resource_id = r.id')
          .whereIn('s.param', [...p.compartmentParams])
          .where('s.target_type', 'Patient');
        if (job.level === 'group') sub.whereIn('s.target_id', groupMembers(knex, job.groupId!));
        if (job.patients) sub.whereIn('s.target_id', job.patients);
        q.whereExists(sub);
      }
    }
    p.filter?.(q, knex);
    if (p.resourceType === 'Patient') selectLinkedGpid(q, 'r');
    const rows = (await q.orderBy('r.last_updated').orderBy('r.id').limit(p.limit)) as { id: string; last_updated: string; content: string; linked_gpid?: string | null }[];
    return rows.map((r) => ({ id: r.id, last_updated: r.last_updated, content: r.linked_gpid === undefined ? r.content : projectGpidOnText(r.content, r.linked_gpid) }));
  },

  /**
   * Append one chunk to a job's file and move its cursor, in the caller's transaction; false (and
   * nothing written) when the job is no longer this worker's (cancelled, or taken over).
   */
  async appendChunk(em: EntityManager, job: ExportJob, workerId: string, chunk: { fileIndex: number; resourceType: string; data: string; count: number; cursor: ExportCursor; exported: number; now: string }): Promise<boolean> {
    const knex = knexOf(em);
    const moved = await knex(JOBS).where({ id: job.id, worker_id: workerId, state: 'running' }).update({ cursor: JSON.stringify(chunk.cursor), exported: chunk.exported, heartbeat_at: chunk.now });
    if (moved !== 1) return false;
    const file = (await knex(FILES).where({ job_id: job.id, file_index: chunk.fileIndex }).first()) as { count: number | string; chunks: number | string } | undefined;
    const seq = file ? Number(file.chunks) : 0;
    await knex(CHUNKS).insert({ job_id: job.id, file_index: chunk.fileIndex, seq, data: chunk.data });
    if (file) await knex(FILES).where({ job_id: job.id, file_index: chunk.fileIndex }).update({ count: Number(file.count) + chunk.count, chunks: seq + 1 });
    else await knex(FILES).insert({ job_id: job.id, file_index: chunk.fileIndex, resource_type: chunk.resourceType, count: chunk.count, chunks: 1 });
    return true;
  },

  async finish(em: EntityManager, jobId: string, workerId: string, outcome: { state: 'completed' | 'failed'; error?: string; now: string; expiresAt: string }): Promise<void> {
    await knexOf(em)(JOBS)
      .where({ id: jobId, worker_id: workerId, state: 'running' })
      .update({ state: outcome.state, error: outcome.error ?? null, completed_at: outcome.now, heartbeat_at: outcome.now, expires_at: outcome.expiresAt });
  },

  /** Delete finished jobs whose output expired before `now`, with their files, a few at a time. */
  async sweepExpired(em: EntityManager, now: string): Promise<number> {
    const expired = ((await knexOf(em)(JOBS).select('id').whereNotNull('expires_at').where('expires_at', '<', now).limit(50)) as { id: string }[]).map((r) => r.id);
    for (const id of expired) await em.transactional((tx) => this.remove(tx, id));
    return expired.length;
  },
};

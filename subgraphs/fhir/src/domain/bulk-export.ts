import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { DomainError, eventLoopSlices, failSpan, hasAnyScope, inStoredTrace, isOperator, stoppableSleep, currentTraceparent, type Logger } from '@svc/platform';
import { exportStore, type ExportCursor, type ExportJob, type ExportLevel } from '../entities/export-store.js';
import { inView, resourceStore, type ResourceView } from '../entities/resource-store.js';
import { isFhirResourceType, patientCompartment } from './definitions.js';
import { partnerReadView } from './sharing-rules.js';
import { queryFromString, type FhirCall } from './interactions.js';
import { parseSearchRequest } from './search-request.js';
import { parseExportElements, subsetForExport } from './export-elements.js';
import { applyCriteria } from '../entities/search-query.js';
import type { Knex } from '@mikro-orm/knex';

/**
 * FHIR Bulk Data Access ($export, https://hl7.org/fhir/uv/bulkdata/): kick-off, status, cancel and
 * the NDJSON files, as functions of a FhirCall; the durable job runs in {@link ExportWorker}.
 */

/** Scopes of the spec's FHIR table that allow a kick-off (SMART Backend Services). */
export const EXPORT_SCOPES = ['system/*.read', 'system/Patient.read'] as const;

/** _outputFormat values accepted (all mean NDJSON of FHIR JSON resources). */
export const OUTPUT_FORMATS = ['application/fhir+ndjson', 'application/ndjson', 'ndjson'] as const;

const KNOWN_PARAMS = new Set(['_outputFormat', '_since', '_type', '_typeFilter', '_elements', 'patient']);

/** At most this many patients in one kick-off's `patient` parameter. */
export const MAX_EXPORT_PATIENTS = 1000;

/** Search result parameters that mean nothing in a _typeFilter (it selects resources, it does not page them). */
const RESULT_PARAMS = ['_count', '_offset', '_cursor', '_sort', '_total', '_summary', '_elements', '_include', '_revinclude', '_contained', '_containedType'];

export interface KickoffRequest {
  level: ExportLevel;
  groupId: string | null;
  /** The kick-off URL's query string. */
  query: string;
  /** The kick-off URL relative to the FHIR base (`Patient/$export?_type=…`), echoed in full in the manifest's `request`. */
  requestPath: string;
  /** Prefer: respond-async was sent (required). */
  respondAsync: boolean;
  /** Prefer: handling=lenient: ignore parameters this server does not support instead of 400. */
  lenient: boolean;
  /** POST kick-off: the Parameters resource of the body (its parameters join the query's). */
  parameters?: unknown;
}

/** Parameters value[x] a kick-off parameter may carry, by parameter (Bulk Data IG, POST kick-off). */
const PARAMETER_VALUES: Record<string, readonly string[]> = {
  _outputFormat: ['valueString', 'valueCode'],
  _since: ['valueInstant', 'valueDateTime'],
  _type: ['valueString', 'valueCode'],
  _typeFilter: ['valueString'],
  _elements: ['valueString'],
  patient: ['valueReference'],
};

/**
 * A POST kick-off's Parameters body as query parameters: `{ name: '_type', valueString: 'Patient' }`
 * is `_type=Patient`. Each issue names `Parameters.parameter[i]`; unknown names are 400 unless lenient.
 */
export function parametersToQuery(body: unknown, lenient: boolean): URLSearchParams {
  const out = new URLSearchParams();
  const resource = body as { resourceType?: unknown; parameter?: unknown } | null;
  if (typeof resource !== 'object' || resource === null || resource.resourceType !== 'Parameters') throw bad('Parameters', 'a POST kick-off body must be a Parameters resource');
  if (resource.parameter !== undefined && !Array.isArray(resource.parameter)) throw bad('Parameters.parameter', 'must be an array');
  ((resource.parameter ?? []) as unknown[]).forEach((raw, i) => {
    const field = `Parameters.parameter[${i}]`;
    const p = raw as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || typeof p['name'] !== 'string') throw bad(field, 'must be an object with a name');
    const name = p['name'];
    const kinds = PARAMETER_VALUES[name];
    if (!kinds) {
      if (lenient) return;
      throw bad(`${field}.name`, `${JSON.stringify(name)} is not supported by this server's $export (supported: ${Object.keys(PARAMETER_VALUES).join(', ')})`);
    }
    if (kinds.includes('valueReference')) {
      // `patient`: a Reference to a Patient (Bulk Data IG, POST kick-off).
      const reference = (p['valueReference'] as { reference?: unknown } | undefined)?.reference;
      if (typeof reference !== 'string') throw bad(field, `${name} needs valueReference with a reference`);
      out.append(name, reference);
      return;
    }
    const kind = kinds.find((k) => typeof p[k] === 'string');
    if (!kind) throw bad(field, `${name} needs one of ${kinds.join(', ')}`);
    out.append(name, p[kind] as string);
  });
  return out;
}

/** `Observation?code=x` values of _typeFilter (repeated, or comma-separated before each `Type?`). */
function parseTypeFilters(values: string[], types: readonly string[]): Record<string, string[]> {
  const filters: Record<string, string[]> = {};
  for (const value of values.flatMap((v) => v.split(/,(?=[A-Z][A-Za-z]+\?)/))) {
    const m = /^([A-Z][A-Za-z]+)\?(.+)$/.exec(value.trim());
    if (!m || !isFhirResourceType(m[1]!)) throw bad('_typeFilter', `${JSON.stringify(value.slice(0, 80))} is not Type?search-query`);
    const [, type = '', query = ''] = m;
    if (!types.includes(type)) throw bad('_typeFilter', `${type} is not one of the exported types (${types.join(', ') || 'none'})`);
    const params = queryFromString(query);
    const refused = Object.keys(params).filter((k) => RESULT_PARAMS.includes(k.split(':')[0] ?? k));
    if (refused.length > 0) throw bad('_typeFilter', `${refused.join(', ')} cannot be used in a _typeFilter`);
    try {
      parseSearchRequest(type, params, true);
    } catch (error) {
      throw bad('_typeFilter', `${type}?${query.slice(0, 80)}: ${error instanceof Error ? error.message : 'not a valid search'}`);
    }
    (filters[type] ??= []).push(query);
  }
  return filters;
}

/**
 * `patient` (Patient and Group level): `Patient/{id}` references, repeated or comma-separated; the
 * export keeps only these patients' compartments. Patients the caller cannot see simply add nothing.
 */
function parsePatients(values: readonly string[], level: ExportLevel): string[] | null {
  const references = values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  if (values.length === 0) return null;
  if (level === 'system') throw bad('patient', 'applies to Patient and Group level exports only (Bulk Data IG)');
  if (references.length === 0) throw bad('patient', 'needs at least one Patient reference');
  if (references.length > MAX_EXPORT_PATIENTS) throw bad('patient', `at most ${MAX_EXPORT_PATIENTS} patients`);
  const ids = references.map((reference) => {
    const m = /^Patient\/([A-Za-z0-9\-.]{1,64})$/.exec(reference);
    if (!m) throw bad('patient', `${JSON.stringify(reference.slice(0, 80))} is not a reference Patient/[id]`);
    return m[1]!;
  });
  return [...new Set(ids)];
}

function bad(field: string, message: string): DomainError {
  return new DomainError('BAD_REQUEST', `${field}: ${message}`, { fieldErrors: [{ field, message }] });
}

/**
 * The job, when it exists, has not expired and belongs to the caller's partner; anything else is
 * the same 404 (an expired job answers as the sweep will leave it: gone without a trace).
 */
async function ownJob(call: FhirCall, jobId: string): Promise<ExportJob> {
  const job = /^[0-9a-f-]{36}$/.test(jobId) ? await exportStore.get(call.em, jobId) : null;
  const expired = job?.expiresAt !== null && job?.expiresAt !== undefined && job.expiresAt < new Date().toISOString();
  // A patient-context credential sees only exports made in the same context (the files hold resources).
  const outsideContext = call.principal.patient !== undefined && job?.patientContext !== call.principal.patient;
  if (!job || expired || call.principal.partnerGpid === null || job.partnerGpid !== call.principal.partnerGpid || outsideContext) throw new DomainError('NOT_FOUND', `There is no export job ${jobId}.`);
  return job;
}

/** The manifest's `request`: the kick-off path, with a POST body's parameters as its query. */
function requestPathWith(request: KickoffRequest, params: URLSearchParams): string {
  const path = request.requestPath.replace(/^\/+/, '');
  if (request.parameters === undefined || request.parameters === null) return path;
  const query = params.toString();
  return query ? `${path.split('?')[0]}?${query}` : path;
}

/** Kick-off: validate, record the job (state accepted) and answer its id; the worker runs it. */
export async function kickoff(call: FhirCall, request: KickoffRequest): Promise<{ jobId: string; statusUrl: string }> {
  const { principal } = call;
  if (!hasAnyScope(principal.scopes, [...EXPORT_SCOPES])) {
    throw new DomainError('INSUFFICIENT_SCOPE', `$export needs one of: ${EXPORT_SCOPES.join(', ')}.`, { details: { required_scopes: [...EXPORT_SCOPES] } });
  }
  if (!request.respondAsync) throw bad('Prefer', '$export is asynchronous: send Prefer: respond-async');
  if (principal.partnerGpid === null) throw new DomainError('FORBIDDEN', '$export needs a credential of a partner (the files are served to that partner only).');
  // A SMART patient context reaches one patient's compartment: exactly what a Patient-level export is.
  if (principal.patient !== undefined && request.level !== 'patient') {
    throw new DomainError('FORBIDDEN', `A credential with a patient context exports at Patient level only (GET [base]/Patient/$export): the export holds the compartment of Patient/${principal.patient}.`, { details: { patient_context: principal.patient } });
  }

  const params = new URLSearchParams(request.query);
  if (request.parameters !== undefined && request.parameters !== null) for (const [k, v] of parametersToQuery(request.parameters, request.lenient)) params.append(k, v);
  for (const key of new Set(params.keys())) {
    if (!KNOWN_PARAMS.has(key) && !request.lenient) throw bad(key, `is not supported by this server's $export (supported: ${[...KNOWN_PARAMS].join(', ')}; Prefer: handling=lenient ignores others)`);
  }
  const outputFormat = params.get('_outputFormat') ?? 'application/fhir+ndjson';
  if (!(OUTPUT_FORMATS as readonly string[]).includes(outputFormat)) throw bad('_outputFormat', `must be one of ${OUTPUT_FORMATS.join(', ')}`);
  let since: string | null = null;
  const sinceText = params.get('_since');
  if (sinceText) {
    const parsed = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(sinceText) ? new Date(sinceText) : new Date(NaN);
    if (Number.isNaN(parsed.getTime())) throw bad('_since', 'must be a FHIR instant such as 2024-01-01T00:00:00Z');
    since = parsed.toISOString();
  }

  const compartment = patientCompartment();
  const inLevel = (type: string) => request.level === 'system' || compartment.has(type);
  const mayRead = (type: string) => hasAnyScope(principal.scopes, [`system/${type}.r`]);
  const typeText = params.getAll('_type').join(',');
  let types: string[];
  if (typeText) {
    types = [...new Set(typeText.split(',').map((x) => x.trim()).filter(Boolean))];
    for (const type of types) {
      if (!isFhirResourceType(type)) throw bad('_type', `${type} is not an R4 resource type`);
      if (!inLevel(type)) throw bad('_type', `${type} is not in the Patient compartment, so a ${request.level}-level export has none`);
      if (!mayRead(type)) throw new DomainError('INSUFFICIENT_SCOPE', `The credential may not export ${type} (needs system/${type}.read or system/*.read).`, { details: { required_scopes: [`system/${type}.read`] } });
    }
  } else {
    const coversAll = isOperator(principal);
    types = (await exportStore.presentTypes(call.em, coversAll ? undefined : await partnerReadView(call.em, principal.partnerGpid))).filter((type) => inLevel(type) && mayRead(type)).sort();
  }

  const typeFilters = parseTypeFilters(params.getAll('_typeFilter'), types);
  const elements = parseExportElements(params.getAll('_elements'), types);
  const patients = parsePatients(params.getAll('patient'), request.level);

  let groupId: string | null = null;
  if (request.level === 'group') {
    groupId = request.groupId ?? '';
    const group = /^[A-Za-z0-9\-.]{1,64}$/.test(groupId) ? await resourceStore.current(call.em, 'Group', groupId) : null;
    if (!group || group.deleted || !inView(isOperator(principal) ? undefined : await partnerReadView(call.em, principal.partnerGpid), group.partnerGpid, 'Group')) throw new DomainError('NOT_FOUND', `Group/${groupId} does not exist.`);
  }

  const now = new Date().toISOString();
  const job: ExportJob = {
    id: randomUUID(),
    partnerGpid: principal.partnerGpid,
    coversAll: isOperator(principal),
    level: request.level,
    groupId,
    types,
    since,
    outputFormat,
    requestUrl: `${call.fhirBase}/${requestPathWith(request, params)}`,
    // Resources changed after this instant are left to the next export (_since = this instant).
    transactionTime: now,
    state: 'accepted',
    cursor: { typeIndex: 0, lastUpdated: null, id: null },
    exported: 0,
    workerId: null,
    heartbeatAt: null,
    error: null,
    createdAt: now,
    completedAt: null,
    typeFilters,
    expiresAt: null,
    patientContext: principal.patient ?? null,
    elements,
    patients,
    traceParent: currentTraceparent() ?? null,
  };
  await exportStore.insert(call.em, job);
  return { jobId: job.id, statusUrl: `${call.fhirBase}/$export-status/${job.id}` };
}

export interface ExportStatus {
  state: 'in-progress' | 'completed' | 'failed';
  /** X-Progress while in progress. */
  progress: string | null;
  /** The completion manifest. */
  manifest: Record<string, unknown> | null;
  error: string | null;
}

/** Status of the caller's job: in progress (with progress text), its manifest, or its failure. */
export async function exportStatus(call: FhirCall, jobId: string): Promise<ExportStatus> {
  const job = await ownJob(call, jobId);
  if (job.state === 'accepted' || job.state === 'running') {
    const type = job.types[job.cursor.typeIndex];
    const progress =
      job.state === 'accepted' && job.exported === 0
        ? 'queued'
        : `exporting${type ? ` ${type} (type ${job.cursor.typeIndex + 1} of ${job.types.length})` : ''}, ${job.exported} resources written`;
    return { state: 'in-progress', progress, manifest: null, error: null };
  }
  if (job.state === 'failed') return { state: 'failed', progress: null, manifest: null, error: job.error ?? 'The export failed.' };
  const files = await exportStore.files(call.em, job.id);
  return {
    state: 'completed',
    progress: null,
    error: null,
    manifest: {
      transactionTime: job.transactionTime,
      request: job.requestUrl,
      requiresAccessToken: true,
      output: files.map((f) => ({ type: f.resourceType, url: `${call.fhirBase}/$export-file/${job.id}/${f.fileIndex}-${f.resourceType}.ndjson`, count: f.count })),
      error: [],
    },
  };
}

/** DELETE on the status URL: the job stops and its files are deleted; afterwards it is a 404. */
export async function cancelExport(call: FhirCall, jobId: string): Promise<void> {
  const job = await ownJob(call, jobId);
  await call.em.transactional((em) => exportStore.remove(em, job.id));
}

/** `3-Observation.ndjson` (or `3`) → 3. */
export function fileIndexOf(file: string): number {
  const m = /^(\d{1,6})(?:-[A-Za-z]+)?(?:\.ndjson)?$/.exec(file);
  return m ? Number(m[1]) : -1;
}

/** The chunk of an output file after `afterSeq`: the download streams them one by one. */
export async function exportChunk(call: FhirCall, jobId: string, file: string, afterSeq: number): Promise<{ seq: number; data: string } | null> {
  const job = await ownJob(call, jobId);
  const index = fileIndexOf(file);
  const chunk = job.state === 'completed' && index >= 0 ? await exportStore.chunkAfter(call.em, job.id, index, afterSeq) : null;
  if (!chunk && afterSeq < 0) throw new DomainError('NOT_FOUND', `Export job ${jobId} has no file ${file}.`);
  return chunk;
}

/**
 * A job's _typeFilter for one type as a page filter: the resource matches any of the queries, each
 * run by the search engine in the view of the partner that asked (an operator's: everyone's).
 */
function typeFilterOf(job: ExportJob, resourceType: string, visible: ResourceView): { filter?: (q: Knex.QueryBuilder, knex: Knex) => void } {
  const queries = job.typeFilters[resourceType];
  if (!queries || queries.length === 0) return {};
  const criteria = queries.map((query) => parseSearchRequest(resourceType, queryFromString(query), true).criteria);
  return { filter: (q, knex) => q.where((w) => criteria.forEach((c) => w.orWhere((x) => applyCriteria(knex, x, resourceType, c, visible)))) };
}

export interface ExportWorkerOptions {
  pageSize: number;
  pagePauseMs: number;
  /** How often an idle worker looks for jobs (kick-offs in this process also wake it). */
  pollMs: number;
  /** SQLite (embedded): one process, so a job left running at start is this process's own and is resumed at once. */
  singleProcess: boolean;
  /** How long a finished job's output stays (SVC_FHIR_EXPORT_EXPIRY_SECONDS); the sweep then deletes it. */
  expirySeconds: number;
}

/** A running job whose heartbeat is older than this belongs to a dead worker and is taken over. */
export const EXPORT_LEASE_MS = 120_000;

/**
 * The background worker of the fhir subgraph that runs $export jobs, one at a time: it reads each
 * type in pages of `pageSize` in (lastUpdated, id) order and, per page, appends one NDJSON chunk
 * and moves the job's cursor in one transaction, so memory stays flat and a restart resumes at the
 * last committed page. A graceful stop gives the job back; a job whose worker died is taken over
 * after EXPORT_LEASE_MS (at once in the single-process embedded mode).
 */
export class ExportWorker {
  private readonly workerId = `w-${randomUUID()}`;
  private stopped = false;
  private readonly pause = stoppableSleep();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly fork: () => EntityManager,
    private readonly options: ExportWorkerOptions,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Look for work now (after a kick-off in this process). */
  wake(): void {
    this.pause.wakeAll();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    if (this.options.singleProcess) {
      try {
        await exportStore.requeueRunning(this.fork());
      } catch (err) {
        this.log.error({ err }, 'export worker could not requeue running jobs');
      }
    }
    while (!this.stopped) {
      let job: ExportJob | null = null;
      try {
        const now = new Date();
        job = await exportStore.claim(this.fork(), this.workerId, now.toISOString(), new Date(now.getTime() - EXPORT_LEASE_MS - this.options.pagePauseMs).toISOString());
      } catch (err) {
        this.log.error({ err }, 'export job failed');
      }
      if (job) await this.attempt(job);
      if (!job && !this.stopped) await this.pause.sleep(this.options.pollMs);
    }
  }

  /**
   * One run of a claimed job (to its end, its release or its failure). With tracing on, it is a span
   * in the trace of the request that started the export (its statements are children).
   */
  private attempt(job: ExportJob): Promise<void> {
    return inStoredTrace(job.traceParent, `job fhir-export ${job.level}`, { attributes: { 'svc.job.name': 'fhir-export', 'svc.job.kind': job.level } }, async (span) => {
      try {
        await this.runJob(job);
      } catch (err) {
        if (span) failSpan(span, err);
        this.log.error({ err, jobId: job.id }, 'export job failed');
        await exportStore.finish(this.fork(), job.id, this.workerId, { state: 'failed', error: 'The export failed on the server; start a new one.', ...this.finishedNow() }).catch(() => undefined);
      }
    });
  }

  private async runJob(job: ExportJob): Promise<void> {
    const compartment = patientCompartment();
    // The asking partner's read view (its own resources plus what sharing rules give it) as it is
    // when the job runs; an operator's export covers everyone's.
    // A patient context narrows it to that patient's compartment.
    const tenancy = job.coversAll ? undefined : await partnerReadView(this.fork(), job.partnerGpid);
    const view: ResourceView = job.patientContext === null ? tenancy : { tenancy, patient: job.patientContext };
    let cursor: ExportCursor = job.cursor;
    let exported = job.exported;
    // Pages on SQLite are synchronous work behind promises: the thread's other callers get a turn.
    const slice = eventLoopSlices();
    for (let typeIndex = cursor.typeIndex; typeIndex < job.types.length; typeIndex++) {
      const resourceType = job.types[typeIndex]!;
      let after = typeIndex === cursor.typeIndex && cursor.lastUpdated && cursor.id ? { lastUpdated: cursor.lastUpdated, id: cursor.id } : null;
      for (;;) {
        await slice();
        if (this.stopped) {
          await exportStore.release(this.fork(), job.id, this.workerId);
          return;
        }
        const rows = await exportStore.page(this.fork(), { job, resourceType, compartmentParams: compartment.get(resourceType) ?? [], after, limit: this.options.pageSize, view, ...typeFilterOf(job, resourceType, view) });
        if (rows.length === 0) break;
        const last = rows[rows.length - 1]!;
        cursor = { typeIndex, lastUpdated: last.last_updated, id: last.id };
        exported += rows.length;
        const elements = job.elements;
        const lines = rows.map((r) => (elements ? subsetForExport(r.content, resourceType, elements) : r.content));
        const chunk = { fileIndex: typeIndex, resourceType, data: `${lines.join('\n')}\n`, count: rows.length, cursor, exported, now: new Date().toISOString() };
        const em = this.fork();
        const kept = await em.transactional((tx) => exportStore.appendChunk(tx, job, this.workerId, chunk));
        // Cancelled (deleted) or taken over: stop without writing anything more.
        if (!kept) return;
        after = { lastUpdated: last.last_updated, id: last.id };
        if (rows.length < this.options.pageSize) break;
        if (this.options.pagePauseMs > 0) await this.pause.sleep(this.options.pagePauseMs);
      }
    }
    await exportStore.finish(this.fork(), job.id, this.workerId, { state: 'completed', ...this.finishedNow() });
  }

  private finishedNow(): { now: string; expiresAt: string } {
    const now = Date.now();
    return { now: new Date(now).toISOString(), expiresAt: new Date(now + this.options.expirySeconds * 1000).toISOString() };
  }

}

/**
 * Deletes expired export jobs and their files, at most once a minute (or once per expiry period,
 * if shorter). A delete of a few rows: it runs on the event loop of a process that serves the
 * subgraph (or the worker), apart from the export worker, which may be on a job thread or not
 * started at all.
 */
export class ExportSweeper {
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> = Promise.resolve();

  constructor(
    private readonly fork: () => EntityManager,
    private readonly expirySeconds: number,
    private readonly log: Logger,
    pollMs = 1000,
  ) {
    let lastSweep = 0;
    this.timer = setInterval(() => {
      const now = Date.now();
      if (now - lastSweep < Math.min(60_000, this.expirySeconds * 1000)) return;
      lastSweep = now;
      this.running = this.sweep(now);
    }, pollMs);
    this.timer.unref();
  }

  private async sweep(now: number): Promise<void> {
    try {
      const removed = await exportStore.sweepExpired(this.fork(), new Date(now).toISOString());
      if (removed > 0) this.log.info({ removed }, 'expired export jobs deleted');
    } catch (err) {
      this.log.error({ err }, 'export sweep failed');
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}

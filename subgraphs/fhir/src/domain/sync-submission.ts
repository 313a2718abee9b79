import type { EntityManager } from '@mikro-orm/core';
import { DomainError, isId, knexOf, limitExceeded, MAX_NDJSON_LINE_LENGTH, MAX_NDJSON_LINES, newId, currentTraceparent, type Principal } from '@svc/platform';
import { dialectOf } from '../entities/resource-store.js';
import { syncJobStore, type StoredPrincipal, type SyncJobKind, type SyncJobRecord } from '../entities/sync-job-store.js';
import { assertMayIngest, parseBundle, resourceTypesOf, type Entry } from './bundle.js';
import { isFhirResourceType } from './definitions.js';
import type { FhirCall } from './interactions.js';
import { recordQueued } from './sync-job-events.js';
import { parseExactJson, stringifyExactJson } from './exact-json.js';

/**
 * Asynchronous submissions: a transaction or batch Bundle sent with `Prefer: respond-async`, or an
 * NDJSON push (one resource per line). The submission is checked for shape, stored with its job
 * (`job_…`, state queued) and answered at once; the {@link SyncJobWorker} runs it.
 */

/** A submission as it arrives: a Bundle (parsed JSON, or its text with numbers kept as written) or an NDJSON push. */
export type SubmissionToCheck = { bundle: unknown } | { bundleText: string } | { ndjson: string };

/** A submission whose shape was checked: what its job records, and the body the worker runs. */
export interface CheckedSubmission {
  kind: SyncJobKind;
  resourceTypes: string[];
  entriesTotal: number;
  body: string;
}

function bad(field: string, message: string): DomainError {
  return new DomainError('BAD_REQUEST', `${field}: ${message}`, { fieldErrors: [{ field, message }] });
}

/** An NDJSON push as batch entries: a line without `id` is a create (POST), with `id` an update (PUT). */
export interface NdjsonEntries {
  entries: Entry[];
  /** 1-based line number of each entry in the pushed text (blank lines are skipped). */
  lines: number[];
}

/**
 * `ndjson.lines` and `ndjson.line_length`, checked over the raw text before any line is parsed:
 * one pass that looks for line breaks (and, on a line, for anything but white space), so a push
 * over a limit costs no JSON parsing (413 PAYLOAD_TOO_LARGE naming the limit and the line).
 * Checked where a push is accepted; the worker reads what was accepted without judging it again.
 */
export function checkNdjsonLimits(text: string): void {
  let resources = 0;
  for (let start = 0, line = 1; start <= text.length; line++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (end - start > MAX_NDJSON_LINE_LENGTH) {
      const message = `a line (one resource) may be at most ${MAX_NDJSON_LINE_LENGTH} characters, this one is ${end - start} (limit ndjson.line_length); send a larger resource on its own`;
      throw limitExceeded('PAYLOAD_TOO_LARGE', { name: 'ndjson.line_length', max: MAX_NDJSON_LINE_LENGTH, field: `line ${line}` }, `line ${line}: ${message}.`, message);
    }
    if (!BLANK.test(text.slice(start, end)) && ++resources > MAX_NDJSON_LINES) {
      const message = `an NDJSON push may carry at most ${MAX_NDJSON_LINES} resources, one a line (limit ndjson.lines; line ${line} holds one more); send several pushes`;
      throw limitExceeded('PAYLOAD_TOO_LARGE', { name: 'ndjson.lines', max: MAX_NDJSON_LINES, field: 'body' }, `${message[0]!.toUpperCase()}${message.slice(1)}.`, message);
    }
    start = end + 1;
  }
}

const BLANK = /^\s*$/;

/** Parse an NDJSON push; 400 naming `line N` when a line is not a JSON resource of an R4 type. */
export function ndjsonEntries(text: string): NdjsonEntries {
  const entries: Entry[] = [];
  const lines: number[] = [];
  const raw = text.split(/\r?\n/);
  for (let n = 0; n < raw.length; n++) {
    const line = raw[n]!.trim();
    if (line === '') continue;
    const at = `line ${n + 1}`;
    let value: unknown;
    try {
      value = parseExactJson(line, at);
    } catch {
      throw bad(at, 'is not a JSON object');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw bad(at, 'is not a JSON object');
    const resource = value as Record<string, unknown> & { resourceType: string };
    if (typeof resource['resourceType'] !== 'string' || !isFhirResourceType(resource['resourceType'])) throw bad(`${at}.resourceType`, 'must name an R4 resource type');
    const id = resource['id'];
    if (id !== undefined && (typeof id !== 'string' || !/^[A-Za-z0-9\-.]{1,64}$/.test(id))) throw bad(`${at}.id`, 'is not a FHIR id');
    const type = resource.resourceType;
    entries.push({
      index: entries.length,
      method: id === undefined ? 'POST' : 'PUT',
      url: id === undefined ? type : `${type}/${id as string}`,
      fullUrl: undefined,
      resource,
      ifNoneExist: undefined,
      ifMatch: undefined,
    });
    lines.push(n + 1);
  }
  if (entries.length === 0) throw bad('body', 'an NDJSON push needs at least one resource (one JSON resource per line)');
  return { entries, lines };
}

function storedPrincipal(principal: Principal): StoredPrincipal {
  if (principal.partnerGpid === null || principal.kind === 'anonymous') {
    throw new DomainError('FORBIDDEN', 'An asynchronous submission needs a credential of a partner (the job is shown to that partner only).');
  }
  return {
    kind: principal.kind,
    partnerGpid: principal.partnerGpid,
    scopes: [...principal.scopes],
    ...(principal.tokenId ? { tokenId: principal.tokenId } : {}),
    ...(principal.clientId ? { clientId: principal.clientId } : {}),
    ...(principal.patient ? { patient: principal.patient } : {}),
  };
}

/**
 * Check a submission's shape (the NDJSON limits, every line or entry) without storing anything: CPU
 * work on up to 5 MiB of text, which the subgraph runs on its job thread (see jobs.ts).
 */
export function checkSubmission(submission: SubmissionToCheck, fhirBase: string): CheckedSubmission {
  if ('ndjson' in submission) {
    checkNdjsonLimits(submission.ndjson);
    const { entries } = ndjsonEntries(submission.ndjson);
    return { kind: 'ndjson', resourceTypes: resourceTypesOf(entries), entriesTotal: entries.length, body: submission.ndjson };
  }
  const bundle = 'bundleText' in submission ? parseExactJson(submission.bundleText, 'bundleText') : submission.bundle;
  const parsed = parseBundle(bundle, fhirBase);
  return { kind: parsed.type, resourceTypes: resourceTypesOf(parsed.entries), entriesTotal: parsed.entries.length, body: stringifyExactJson(bundle) };
}

/**
 * Accept a submission: once the caller may ingest at all, `check` it (see checkSubmission, wherever
 * the subgraph runs it), store it with a queued job and its queued event; answer the job and its
 * status URL.
 */
export async function submitSyncJob(call: FhirCall, check: () => Promise<CheckedSubmission>, options: { returnResources: boolean; limits: SyncQueueLimits }): Promise<{ jobId: string; statusUrl: string }> {
  assertMayIngest(call.principal);
  const principal = storedPrincipal(call.principal);
  const { kind, resourceTypes, entriesTotal, body } = await check();
  const job = await queueSyncJob(call, principal, { kind, resourceTypes, entriesTotal, returnResources: options.returnResources, source: call.source }, body, options.limits);
  return { jobId: job.id, statusUrl: syncStatusUrl(call.fhirBase, job.id) };
}

/** What differs between the kinds of submission; the rest of a new job is always the same. */
export interface NewSyncJob {
  kind: SyncJobKind;
  resourceTypes: string[];
  entriesTotal: number;
  returnResources: boolean;
  source: string | null;
}

/** Store a queued job with its submission body and its queued event, in one transaction. */
/** How many unfinished jobs the queue holds: per partner (429 beyond) and in all (503 beyond). */
export interface SyncQueueLimits {
  queuePerPartner: number;
  queueMax: number;
}

/** Seconds a partner whose share of the queue is full is asked to wait: about one job's run. */
const QUEUE_FULL_RETRY_AFTER_SECONDS = 30;

/**
 * Back pressure: the queue is bounded, so a partner that submits faster than its jobs run is told
 * to slow down (429 JOB_QUEUE_FULL) instead of growing a backlog without end, and a full queue
 * (everyone's) answers 503. Counted in the submission's own transaction; on PostgreSQL under the
 * partner's advisory lock, so parallel submissions of one partner count each other.
 */
async function assertQueueRoom(em: EntityManager, partnerGpid: string, limits: SyncQueueLimits): Promise<void> {
  const knex = knexOf(em);
  if (dialectOf(knex) === 'postgresql') await knex.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`fhir.sync-queue|${partnerGpid}`]);
  const backlog = await syncJobStore.backlog(em, partnerGpid);
  if (backlog.partner >= limits.queuePerPartner) {
    throw new DomainError('JOB_QUEUE_FULL', `This partner already has ${backlog.partner} asynchronous jobs waiting or running, its share of the queue (${limits.queuePerPartner}); retry after ${QUEUE_FULL_RETRY_AFTER_SECONDS} seconds, or once some have finished.`, {
      details: { limit: limits.queuePerPartner, retry_after: QUEUE_FULL_RETRY_AFTER_SECONDS },
    });
  }
  if (backlog.total >= limits.queueMax) {
    throw new DomainError('SERVER_BUSY', `The job queue is full (${limits.queueMax} jobs waiting or running); retry after ${QUEUE_FULL_RETRY_AFTER_SECONDS} seconds.`, {
      details: { retry_after: QUEUE_FULL_RETRY_AFTER_SECONDS },
    });
  }
}

export async function queueSyncJob(call: FhirCall, principal: StoredPrincipal, fields: NewSyncJob, body: string, limits: SyncQueueLimits): Promise<SyncJobRecord> {
  const now = new Date();
  const job: SyncJobRecord = {
    id: newId('job'),
    partnerGpid: principal.partnerGpid,
    principal,
    state: 'queued',
    ...fields,
    entriesDone: 0,
    recordsProcessed: 0,
    attempts: 0,
    sequence: 1,
    requestId: call.requestId,
    workerId: null,
    heartbeatAt: null,
    nextAttemptAt: null,
    errorCode: null,
    message: null,
    result: null,
    resultStatus: null,
    createdAt: now.toISOString(),
    startedAt: null,
    finishedAt: null,
    traceParent: currentTraceparent() ?? null,
  };
  await call.em.transactional(async (em) => {
    await assertQueueRoom(em, principal.partnerGpid, limits);
    await syncJobStore.insert(em, job, body);
    recordQueued(em, job, 'submitted', now);
  });
  return job;
}

export function syncStatusUrl(fhirBase: string, jobId: string): string {
  return `${fhirBase}/$sync-status/${jobId}`;
}

export interface SyncJobStatus {
  jobId: string;
  state: 'in-progress' | 'completed' | 'failed';
  /** X-Progress while in progress. */
  progress: string | null;
  /** When finished: the HTTP status of the answer (200, or the failure's own status). */
  httpStatus: number | null;
  /** When finished: the transaction-response / batch-response Bundle, or an OperationOutcome. */
  body: Record<string, unknown> | null;
  /** The same body as stored: JSON text with numbers exactly as written. */
  bodyText: string | null;
}

/** Where the caller's partner's job stands; any other job (or none) is the same 404. */
export async function syncJobStatus(call: FhirCall, jobId: string): Promise<SyncJobStatus> {
  const job = isId('job', jobId) ? await syncJobStore.get(call.em, jobId) : null;
  // A patient-context credential sees only jobs submitted in the same context (their answers hold resources).
  const outsideContext = call.principal.patient !== undefined && job?.principal.patient !== call.principal.patient;
  if (!job || call.principal.partnerGpid === null || job.partnerGpid !== call.principal.partnerGpid || outsideContext) throw new DomainError('NOT_FOUND', `There is no sync job ${jobId}.`);
  if (job.state === 'completed' || job.state === 'failed') {
    return { jobId: job.id, state: job.state, progress: null, httpStatus: job.resultStatus ?? 500, body: job.result ? (JSON.parse(job.result) as Record<string, unknown>) : null, bodyText: job.result };
  }
  const of = `${job.entriesDone} of ${job.entriesTotal} entries processed`;
  const progress =
    job.state === 'queued'
      ? job.attempts === 0 && job.entriesDone === 0
        ? 'queued'
        : `queued to resume, ${of}`
      : job.state === 'retrying'
        ? `retrying after a transient failure (attempt ${job.attempts + 1} at ${job.nextAttemptAt ?? 'once possible'}), ${of}`
        : `running (attempt ${job.attempts}), ${of}`;
  return { jobId: job.id, state: 'in-progress', progress, httpStatus: null, body: null, bodyText: null };
}

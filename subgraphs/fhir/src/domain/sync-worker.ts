import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { DomainError, eventLoopSlices, failSpan, inStoredTrace, isSourceOrigin, operationOutcomeFor, stoppableSleep, type FieldError, type Logger } from '@svc/platform';
import { syncJobStore, type SyncJobRecord } from '../entities/sync-job-store.js';
import { batchFailureEntry, bundleOutcome, entryError, parseBundle, processBundle, runBatchEntry, type Entry } from './bundle.js';
import { isFhirResourceType } from './definitions.js';
import type { FhirCall } from './interactions.js';
import { ndjsonEntries } from './sync-submission.js';
import { recordCompleted, recordFailed, recordQueued, recordRetrying, recordStarted } from './sync-job-events.js';
import { validateFhirResource, type FhirResource } from './validation.js';
import { parseExactJson, stringifyExactJson } from './exact-json.js';

/**
 * The durable worker of asynchronous submissions (sync jobs), one job at a time per process, on the
 * pattern of the $export worker: a conditional-update claim, a heartbeat with every committed
 * entry, a graceful stop that gives the job back, a takeover of jobs whose worker went silent for
 * longer than the lease, and (embedded mode) a requeue of jobs left running at start.
 *
 * - transaction: every entry is validated first (the failure names each invalid entry), then the
 *   Bundle runs in ONE database transaction together with the job's final state and its
 *   pipeline.sync.completed event: all or nothing, and exactly once even across a takeover.
 * - batch and NDJSON: each entry commits in its own transaction together with its recorded
 *   response, so a resumed job skips what is done and never writes an entry twice.
 * - A transient failure (database or other infrastructure errors, never a refused entry) ends the
 *   attempt; the job waits `retryBaseMs · 2^(attempt-1)` (with jitter, at most 10 minutes) and runs
 *   again, up to `maxAttempts` attempts, then fails with PROCESSING_ERROR.
 */

export interface SyncWorkerOptions {
  maxAttempts: number;
  retryBaseMs: number;
  leaseMs: number;
  entryPauseMs: number;
  /** How often an idle worker looks for jobs (submissions in this process also wake it). */
  pollMs: number;
  /** SQLite (embedded): one process, so a job left running at start is this process's own. */
  singleProcess: boolean;
  fhirBase: string;
}

const MAX_RETRY_DELAY_MS = 10 * 60_000;

/** Delay before the attempt after `attempt` failed: exponential, capped, with "equal jitter" (half fixed, half random). */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exponential / 2 + (exponential / 2) * random());
}

const TRANSIENT_CODES = new Set(['INTERNAL', 'UPSTREAM_UNAVAILABLE', 'NOT_READY', 'SERVER_BUSY']);

/** Infrastructure failures are retried; a refused entry or Bundle is final. */
export function isTransient(err: unknown): boolean {
  return !(err instanceof DomainError) || TRANSIENT_CODES.has(err.code);
}

/** The error_code of a refused submission: VALIDATION_ERROR for anything invalid in it, else the entry's own code. */
function jobErrorCode(code: string): string {
  return code === 'BAD_REQUEST' || code === 'VALIDATION_ERROR' ? 'VALIDATION_ERROR' : code;
}

/** The job no longer belongs to this worker (taken over, or finished elsewhere): stop without writing. */
class LostJob extends Error {}

/** `Bundle.entry[2].resource.gender` → `line 3: Patient.gender` for an NDJSON push. */
function lineNamed(text: string, entries: readonly Entry[], lines: readonly number[]): string {
  return text.replace(/Bundle\.entry\[(\d+)\](\.resource)?(\.[^\s:;,]*)?/g, (_m, i: string, resource: string | undefined, rest: string | undefined) => {
    const index = Number(i);
    const line = `line ${lines[index] ?? index + 1}`;
    if (!resource) return `${line}${rest ?? ''}`;
    return `${line}: ${entries[index]?.resource?.resourceType ?? 'resource'}${rest ?? ''}`;
  });
}

function renameFailure(failure: DomainError, entries: readonly Entry[], lines: readonly number[] | null): DomainError {
  if (!lines) return failure;
  const fieldErrors: FieldError[] = failure.fieldErrors.map((f) => ({ field: lineNamed(f.field, entries, lines), message: f.message }));
  return new DomainError(failure.code, lineNamed(failure.message, entries, lines), { fieldErrors, details: failure.details });
}

/** The first problem of a failure as `path: message`, the way pipeline.sync.failed names the entry. */
function firstProblem(failure: DomainError): string {
  const f = failure.fieldErrors[0];
  return f ? `${f.field}: ${f.message}` : failure.message;
}

export class SyncJobWorker {
  private readonly workerId = `s-${randomUUID()}`;
  private stopped = false;
  private readonly pause = stoppableSleep();
  private loop: Promise<void> | undefined;

  constructor(
    private readonly fork: () => EntityManager,
    private readonly options: SyncWorkerOptions,
    private readonly log: Logger,
    /** Publish committed outbox events now. */
    private readonly publish: () => void,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Look for work now (after a submission in this process). */
  wake(): void {
    this.pause.wakeAll();
  }

  /** Stop after the current entry (a transaction job runs to its end); the job is given back. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loop;
  }

  private async run(): Promise<void> {
    if (this.options.singleProcess) {
      try {
        const now = new Date();
        await this.fork().transactional(async (tx) => {
          for (const job of await syncJobStore.requeueRunning(tx)) recordQueued(tx, job, 'requeued', now);
        });
        this.publish();
      } catch (err) {
        this.log.error({ err }, 'sync worker could not requeue running jobs');
      }
    }
    while (!this.stopped) {
      let job: SyncJobRecord | null = null;
      try {
        job = await this.claim();
      } catch (err) {
        this.log.error({ err }, 'sync job attempt failed');
      }
      if (job) await this.attempt(job);
      if (!job && !this.stopped) await this.pause.sleep(this.options.pollMs);
    }
  }

  /**
   * One attempt at a claimed job, and its rescheduling when it fails. With tracing on, it is a span
   * in the trace of the request that enqueued the job (its statements and events are children).
   */
  private attempt(job: SyncJobRecord): Promise<void> {
    const attributes = { 'svc.job.name': 'fhir-sync', 'svc.job.kind': job.kind, 'svc.job.attempt': job.attempts };
    return inStoredTrace(job.traceParent, `job fhir-sync ${job.kind}`, { attributes }, async (span) => {
      try {
        await this.runJob(job);
      } catch (err) {
        if (span) failSpan(span, err);
        this.log.error({ err, jobId: job.id }, 'sync job attempt failed');
        await this.retryOrFail(job, err).catch((e: unknown) => this.log.error({ err: e, jobId: job.id }, 'sync job could not be rescheduled'));
      }
    });
  }

  private async claim(): Promise<SyncJobRecord | null> {
    const now = new Date();
    const staleBefore = new Date(now.getTime() - this.options.leaseMs - this.options.entryPauseMs).toISOString();
    const job = await this.fork().transactional(async (tx) => {
      const claimed = await syncJobStore.claim(tx, this.workerId, now.toISOString(), staleBefore);
      if (claimed) recordStarted(tx, claimed, now);
      return claimed;
    });
    if (job) this.publish();
    return job;
  }

  private callFor(job: SyncJobRecord, em: EntityManager): FhirCall {
    const p = job.principal;
    return {
      em,
      principal: { kind: p.kind, partnerGpid: p.partnerGpid, scopes: p.scopes, ...(p.tokenId ? { tokenId: p.tokenId } : {}), ...(p.clientId ? { clientId: p.clientId } : {}), ...(p.patient ? { patient: p.patient } : {}) },
      requestId: job.requestId,
      source: job.source !== null && isSourceOrigin(job.source) ? job.source : null,
      fhirBase: this.options.fhirBase,
    };
  }

  private async runJob(job: SyncJobRecord): Promise<void> {
    if (job.attempts > this.options.maxAttempts) {
      // Claimed again after its last attempt died with its process: give up rather than loop.
      await this.fail(job, 'PROCESSING_ERROR', `The job was abandoned after ${this.options.maxAttempts} attempts that did not finish.`, 500, null);
      return;
    }
    if (job.kind === 'transaction') await this.runTransaction(job);
    else await this.runEntries(job);
  }

  private async runTransaction(job: SyncJobRecord): Promise<void> {
    const bundle = parseExactJson(await syncJobStore.payload(this.fork(), job.id), 'bundle');
    const { entries } = parseBundle(bundle, this.options.fhirBase);
    const invalid = validateEntries(entries);
    if (invalid.length > 0) {
      const first = firstProblem(invalid[0]!);
      const more = invalid.length > 1 ? ` (${invalid.length} entries are invalid: ${invalid.map((f) => `Bundle.entry[${String(f.details['entry'])}]`).join(', ')}; nothing was written)` : ' (nothing was written)';
      const fieldErrors = invalid.flatMap((f) => f.fieldErrors);
      await this.fail(job, 'VALIDATION_ERROR', `${first}${more}`.slice(0, 2000), 422, operationOutcomeFor('VALIDATION_ERROR', first, fieldErrors));
      return;
    }
    try {
      await this.fork().transactional(async (tx) => {
        const outcome = await processBundle(this.callFor(job, tx), bundle, { returnResources: job.returnResources });
        const now = new Date();
        const done = await syncJobStore.finish(tx, job.id, this.workerId, {
          state: 'completed',
          recordsProcessed: entries.length,
          errorCode: null,
          message: null,
          result: stringifyExactJson(outcome.resource),
          resultStatus: 200,
          now: now.toISOString(),
        });
        if (!done) throw new LostJob();
        recordCompleted(tx, job, entries.length, now);
      });
      this.publish();
    } catch (err) {
      if (err instanceof LostJob) return;
      if (isTransient(err)) throw err;
      const failure = err as DomainError;
      // All or nothing: the transaction rolled back; the job fails with the entry named.
      await this.fail(job, jobErrorCode(failure.code), `${firstProblem(failure)} (nothing was written)`.slice(0, 2000), failure.status, operationOutcomeFor(failure.code, failure.message, failure.fieldErrors));
    }
  }

  private async runEntries(job: SyncJobRecord): Promise<void> {
    const payload = await syncJobStore.payload(this.fork(), job.id);
    const { entries, lines } = job.kind === 'ndjson' ? ndjsonEntries(payload) : { entries: parseBundle(parseExactJson(payload, 'bundle'), this.options.fhirBase).entries, lines: null };
    const done = await syncJobStore.doneEntries(this.fork(), job.id);
    // Entries on SQLite are synchronous work behind promises: the thread's other callers (request
    // work handed to it, wake-ups, the stop) get a turn between them.
    const slice = eventLoopSlices();
    for (const entry of entries) {
      if (done.has(entry.index)) continue;
      await slice();
      if (this.stopped) {
        await this.release(job);
        return;
      }
      try {
        await this.fork().transactional(async (tx) => {
          const response = await runBatchEntry(this.callFor(job, tx), entry, job.returnResources);
          const status = Number(/^\d{3}/.exec(String((response['response'] as { status?: string } | undefined)?.status ?? '200'))?.[0] ?? 200);
          if (!(await syncJobStore.saveEntry(tx, job.id, this.workerId, { index: entry.index, status, response, now: new Date().toISOString() }))) throw new LostJob();
        });
      } catch (err) {
        if (err instanceof LostJob) return;
        if (isTransient(err)) throw err;
        // A refused entry is that entry's answer (batch semantics); the others go on.
        const failure = renameFailure(entryError(entry.index, err), entries, lines);
        const saved = await this.fork().transactional((tx) => syncJobStore.saveEntry(tx, job.id, this.workerId, { index: entry.index, status: failure.status, response: batchFailureEntry(failure), now: new Date().toISOString() }));
        if (!saved) return;
      }
      if (this.options.entryPauseMs > 0) await this.pause.sleep(this.options.entryPauseMs);
    }
    await this.finishEntries(job);
  }

  /** Every entry has its answer: completed when none was refused, else failed naming the first refused one. */
  private async finishEntries(job: SyncJobRecord): Promise<void> {
    const rows = await syncJobStore.entries(this.fork(), job.id);
    const refused = rows.filter((r) => r.status >= 400);
    const result = bundleOutcome('batch-response', rows.map((r) => r.response)).resource;
    if (refused.length === 0) {
      const now = new Date();
      const finished = await this.fork().transactional(async (tx) => {
        const ok = await syncJobStore.finish(tx, job.id, this.workerId, { state: 'completed', recordsProcessed: rows.length, errorCode: null, message: null, result: stringifyExactJson(result), resultStatus: 200, now: now.toISOString() });
        if (ok) recordCompleted(tx, job, rows.length, now);
        return ok;
      });
      if (finished) this.publish();
      return;
    }
    const issue = ((refused[0]!.response['response'] as { outcome?: { issue?: { diagnostics?: string; details?: { coding?: { code?: string }[] } }[] } }).outcome?.issue ?? [])[0];
    const code = jobErrorCode(issue?.details?.coding?.[0]?.code ?? 'ENTRY_FAILED');
    const written = rows.length - refused.length;
    const message = `${issue?.diagnostics ?? 'an entry was refused'} (${refused.length} of ${rows.length} entries refused; the other ${written} were written)`;
    await this.fail(job, code, message.slice(0, 2000), 200, result, written);
  }

  /** Final failure with its pipeline.sync.failed event, in one transaction. */
  private async fail(job: SyncJobRecord, errorCode: string, message: string, status: number, body: Record<string, unknown> | null, recordsProcessed = 0): Promise<void> {
    const now = new Date();
    const result = body ?? operationOutcomeFor('INTERNAL', message);
    const finished = await this.fork().transactional(async (tx) => {
      const ok = await syncJobStore.finish(tx, job.id, this.workerId, { state: 'failed', recordsProcessed, errorCode, message, result: stringifyExactJson(result), resultStatus: status, now: now.toISOString() });
      if (ok) recordFailed(tx, job, errorCode, message, now);
      return ok;
    });
    if (finished) this.publish();
  }

  private async release(job: SyncJobRecord): Promise<void> {
    const now = new Date();
    const released = await this.fork().transactional(async (tx) => {
      const back = await syncJobStore.release(tx, job, this.workerId);
      if (back) recordQueued(tx, back, 'released', now);
      return back;
    });
    if (released) this.publish();
  }

  /** After a transient failure: retry with backoff, or fail for good once the attempts are spent. */
  private async retryOrFail(job: SyncJobRecord, err: unknown): Promise<void> {
    const code = err instanceof DomainError ? err.code : 'STORAGE_ERROR';
    if (job.attempts >= this.options.maxAttempts) {
      await this.fail(job, 'PROCESSING_ERROR', `The job failed after ${job.attempts} attempts (last error: ${code}); nothing more will be tried.`, 500, null);
      return;
    }
    const now = new Date();
    const nextAttemptAt = new Date(now.getTime() + retryDelayMs(job.attempts, this.options.retryBaseMs)).toISOString();
    const retrying = await this.fork().transactional(async (tx) => {
      const back = await syncJobStore.scheduleRetry(tx, job.id, this.workerId, { nextAttemptAt, errorCode: code, now: now.toISOString() });
      if (back) recordRetrying(tx, back, code, now);
      return back;
    });
    if (retrying) this.publish();
  }
}

/**
 * Validate the resource of every POST and PUT entry against the R4 definitions before a
 * transaction runs, so the failure names every invalid entry, not only the first one reached.
 */
function validateEntries(entries: readonly Entry[]): DomainError[] {
  const failures: DomainError[] = [];
  const now = new Date().toISOString();
  for (const entry of entries) {
    if ((entry.method !== 'POST' && entry.method !== 'PUT') || !entry.resource || !isFhirResourceType(String(entry.resource.resourceType))) continue;
    // A create ignores the body's id (the server assigns one), so only an update's id is checked.
    const resource: FhirResource = { ...entry.resource, id: entry.method === 'PUT' && entry.resource.id !== undefined ? entry.resource.id : randomUUID(), meta: { ...(entry.resource.meta ?? {}), versionId: '1', lastUpdated: now } };
    try {
      validateFhirResource(resource);
    } catch (err) {
      if (err instanceof DomainError) failures.push(entryError(entry.index, err));
    }
  }
  return failures;
}

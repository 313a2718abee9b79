import type { EntityManager } from '@mikro-orm/core';
import { makeEvent, recordEvent } from '@svc/platform';
import type { SyncJobRecord } from '../entities/sync-job-store.js';

/**
 * The lifecycle events of a sync job, staged in the fhir outbox in the same transaction as the
 * state they describe. pipeline.sync.completed and pipeline.sync.failed carry exactly the spec's
 * payload fields; the intermediate ones (queued, started, retrying) are ours and carry `sequence`,
 * the job's count of state changes, so a projection applies them in order and ignores a stale one.
 * No event carries resource content: ids, counts, type names and codes only.
 */

/** pipeline.sync.queued: accepted, or given back to the queue (graceful stop, restart). */
export function recordQueued(em: EntityManager, job: SyncJobRecord, reason: 'submitted' | 'released' | 'requeued', at: Date): void {
  recordEvent(
    em,
    makeEvent('pipeline.sync.queued', job.partnerGpid, {
      event: 'pipeline.sync.queued',
      job_id: job.id,
      partner_gpid: job.partnerGpid,
      kind: job.kind,
      resource_types: job.resourceTypes,
      entries: job.entriesTotal,
      reason,
      sequence: job.sequence,
      queued_at: at.toISOString(),
    }, at),
  );
}

/** pipeline.sync.started: a worker took the job for one more attempt. */
export function recordStarted(em: EntityManager, job: SyncJobRecord, at: Date): void {
  recordEvent(
    em,
    makeEvent('pipeline.sync.started', job.partnerGpid, {
      event: 'pipeline.sync.started',
      job_id: job.id,
      partner_gpid: job.partnerGpid,
      attempt: job.attempts,
      sequence: job.sequence,
      started_at: at.toISOString(),
    }, at),
  );
}

/** pipeline.sync.retrying: an attempt hit a transient failure; the next one starts at next_attempt_at. */
export function recordRetrying(em: EntityManager, job: SyncJobRecord, errorCode: string, at: Date): void {
  recordEvent(
    em,
    makeEvent('pipeline.sync.retrying', job.partnerGpid, {
      event: 'pipeline.sync.retrying',
      job_id: job.id,
      partner_gpid: job.partnerGpid,
      attempt: job.attempts,
      error_code: errorCode,
      next_attempt_at: job.nextAttemptAt,
      sequence: job.sequence,
      retrying_at: at.toISOString(),
    }, at),
  );
}

/** pipeline.sync.completed, exactly the spec's fields. */
export function recordCompleted(em: EntityManager, job: SyncJobRecord, recordsProcessed: number, at: Date): void {
  recordEvent(
    em,
    makeEvent('pipeline.sync.completed', job.partnerGpid, {
      event: 'pipeline.sync.completed',
      job_id: job.id,
      partner_gpid: job.partnerGpid,
      resource_types: job.resourceTypes,
      records_processed: recordsProcessed,
      completed_at: at.toISOString(),
    }, at),
  );
}

/** pipeline.sync.failed, exactly the spec's fields (the partner is the envelope's partner_gpid). */
export function recordFailed(em: EntityManager, job: SyncJobRecord, errorCode: string, message: string, at: Date): void {
  recordEvent(
    em,
    makeEvent('pipeline.sync.failed', job.partnerGpid, {
      event: 'pipeline.sync.failed',
      job_id: job.id,
      error_code: errorCode,
      message,
      failed_at: at.toISOString(),
    }, at),
  );
}

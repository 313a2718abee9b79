import type { EntityManager } from '@mikro-orm/core';
import { DomainError, makeEvent, newId, recordEvent, validationError } from '@svc/platform';
import { SyncJobEntity, type SyncJob, type SyncJobStatus } from '../entities/sync-job.js';

/**
 * Allowed moves of a sync job. A job fails for good only after its retries are spent; a running job
 * goes back to queued when its worker gives it back (graceful stop, restart).
 */
const TRANSITIONS: Record<SyncJobStatus, readonly SyncJobStatus[]> = {
  queued: ['running', 'failed'],
  running: ['completed', 'retrying', 'failed', 'queued'],
  retrying: ['running', 'failed'],
  completed: [],
  failed: [],
};

export function assertSyncJobTransition(from: SyncJobStatus, to: SyncJobStatus): void {
  if (!TRANSITIONS[from].includes(to)) {
    throw new DomainError('CONFLICT', `A sync job cannot go from ${from} to ${to}.`, { details: { from, to } });
  }
}

/** The sequence a final state is recorded with: above any intermediate event's. */
export const FINAL_SEQUENCE = 2_000_000_000;

const RESOURCE_TYPE = /^[A-Z][A-Za-z]{1,63}$/;

/** Queue a new sync job for a partner. */
export function queueSyncJob(em: EntityManager, partnerGpid: string, resourceTypes: readonly string[]): SyncJob {
  const bad = resourceTypes.filter((t) => !RESOURCE_TYPE.test(t));
  if (resourceTypes.length === 0 || bad.length > 0) {
    throw validationError([{ field: 'resourceTypes', message: resourceTypes.length === 0 ? 'must name at least one FHIR resource type' : `not FHIR type names: ${bad.join(', ')}` }]);
  }
  const now = new Date();
  return em.create(SyncJobEntity, {
    id: newId('job'),
    partnerGpid,
    kind: 'external',
    entries: null,
    sequence: 0,
    startedAt: null,
    updatedAt: now,
    nextAttemptAt: null,
    resourceTypes: [...new Set(resourceTypes)],
    status: 'queued',
    recordsProcessed: 0,
    attempts: 0,
    createdAt: now,
    completedAt: null,
    failedAt: null,
    errorCode: null,
    message: null,
  });
}

/** Finish a job successfully and stage pipeline.sync.completed with it. */
export function completeSyncJob(em: EntityManager, job: SyncJob, recordsProcessed: number, at = new Date()): void {
  if (!Number.isInteger(recordsProcessed) || recordsProcessed < 0) {
    throw validationError([{ field: 'recordsProcessed', message: 'must be a non-negative integer' }]);
  }
  if (job.status === 'queued' || job.status === 'retrying') moveTo(job, 'running');
  moveTo(job, 'completed');
  job.recordsProcessed = recordsProcessed;
  job.completedAt = at;
  job.updatedAt = at;
  job.sequence = FINAL_SEQUENCE;
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

/** Fail a job for good and stage pipeline.sync.failed with it. */
export function failSyncJob(em: EntityManager, job: SyncJob, errorCode: string, message: string, at = new Date()): void {
  if (!/^[A-Z][A-Z0-9_]{1,59}$/.test(errorCode)) {
    throw validationError([{ field: 'errorCode', message: 'must be UPPER_SNAKE_CASE, e.g. VALIDATION_ERROR' }]);
  }
  moveTo(job, 'failed');
  job.failedAt = at;
  job.updatedAt = at;
  job.sequence = FINAL_SEQUENCE;
  job.errorCode = errorCode;
  job.message = message;
  recordEvent(
    em,
    makeEvent('pipeline.sync.failed', job.partnerGpid, {
      event: 'pipeline.sync.failed',
      job_id: job.id,
      partner_gpid: job.partnerGpid,
      error_code: errorCode,
      message,
      failed_at: at.toISOString(),
    }, at),
  );
}

function moveTo(job: SyncJob, to: SyncJobStatus): void {
  assertSyncJobTransition(job.status, to);
  job.status = to;
}

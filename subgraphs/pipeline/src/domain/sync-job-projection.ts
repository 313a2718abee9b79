import type { EntityManager } from '@mikro-orm/core';
import { isId, type EventEnvelope } from '@svc/platform';
import { SyncJobEntity, SYNC_JOB_KINDS, type SyncJob, type SyncJobKind } from '../entities/sync-job.js';
import { FINAL_SEQUENCE } from './sync-job-lifecycle.js';

/**
 * pipeline_sync_jobs as the projection of every sync job's lifecycle events (the fhir subgraph runs
 * the jobs and records pipeline.sync.queued / started / retrying / completed / failed in its
 * outbox). Applying an event is idempotent and monotonic, because delivery is at least once and
 * not necessarily in order:
 *
 * - a final event (completed, failed) wins over everything and nothing moves a job after it;
 * - an intermediate event applies only when its `sequence` (the job's count of state changes) is
 *   higher than the last one applied, so a duplicate or a late event changes nothing;
 * - the first event seen of a job creates its row, whichever it is.
 */

const PREFIX = 'pipeline.sync.';

function str(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}
function int(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) ? value : null;
}
function date(value: unknown): Date | null {
  const text = str(value);
  const d = text ? new Date(text) : null;
  return d && !Number.isNaN(d.getTime()) ? d : null;
}
function strings(value: unknown): string[] | null {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : null;
}

/** Is this an event the projection reads? */
export function isSyncJobEvent(event: EventEnvelope): boolean {
  return isSyncJobEventType(event.type) && isId('job', event.data['job_id']);
}

/** The event types the projection reads (`pipeline.sync.*`). */
export const isSyncJobEventType = (type: string): boolean => type.startsWith(PREFIX);

/** Apply one event to the projection and commit; throws when it could not be stored (the event is then redelivered). */
export async function projectSyncJobEvent(em: EntityManager, event: EventEnvelope): Promise<void> {
  if (!isSyncJobEvent(event)) return;
  try {
    await apply(em, event);
  } catch (err) {
    // Two deliveries racing to create the same row: the loser applies its event to the winner's row.
    const retry = em.fork();
    if (!(await retry.findOne(SyncJobEntity, { id: String(event.data['job_id']) }))) throw err;
    await apply(retry, event);
  }
}

async function apply(em: EntityManager, event: EventEnvelope): Promise<void> {
  const d = event.data;
  const id = String(d['job_id']);
  const at = new Date(event.occurred_at);
  let job = await em.findOne(SyncJobEntity, { id });
  if (!job) {
    const partnerGpid = event.partner_gpid ?? str(d['partner_gpid']);
    if (!partnerGpid) return;
    job = em.create(SyncJobEntity, {
      id,
      partnerGpid,
      kind: null,
      entries: null,
      sequence: 0,
      resourceTypes: [],
      status: 'queued',
      recordsProcessed: 0,
      attempts: 0,
      createdAt: at,
      startedAt: null,
      updatedAt: at,
      nextAttemptAt: null,
      completedAt: null,
      failedAt: null,
      errorCode: null,
      message: null,
    });
  }
  if (job.status === 'completed' || job.status === 'failed') return;
  const phase = event.type.slice(PREFIX.length);
  if (phase === 'completed' || phase === 'failed') {
    applyFinal(job, phase, d, at);
  } else {
    const sequence = int(d['sequence']);
    if (sequence === null || sequence <= job.sequence) {
      await em.flush();
      return;
    }
    job.sequence = sequence;
    applyIntermediate(job, phase, d, at);
  }
  job.updatedAt = at;
  await em.flush();
}

function applyIntermediate(job: SyncJob, phase: string, d: Record<string, unknown>, at: Date): void {
  switch (phase) {
    case 'queued': {
      job.status = 'queued';
      const kind = str(d['kind']);
      if (kind && (SYNC_JOB_KINDS as readonly string[]).includes(kind)) job.kind = kind as SyncJobKind;
      job.resourceTypes = strings(d['resource_types']) ?? job.resourceTypes;
      job.entries = int(d['entries']) ?? job.entries;
      if (d['reason'] === 'submitted') job.createdAt = date(d['queued_at']) ?? job.createdAt;
      job.nextAttemptAt = null;
      return;
    }
    case 'started':
      job.status = 'running';
      job.attempts = int(d['attempt']) ?? job.attempts;
      job.startedAt ??= date(d['started_at']) ?? at;
      job.nextAttemptAt = null;
      return;
    case 'retrying':
      job.status = 'retrying';
      job.attempts = int(d['attempt']) ?? job.attempts;
      job.errorCode = str(d['error_code']);
      job.nextAttemptAt = date(d['next_attempt_at']);
      return;
    default:
      // An intermediate event this projection does not know yet: keep its sequence, change nothing else.
      return;
  }
}

function applyFinal(job: SyncJob, phase: 'completed' | 'failed', d: Record<string, unknown>, at: Date): void {
  job.sequence = FINAL_SEQUENCE;
  job.nextAttemptAt = null;
  if (phase === 'completed') {
    job.status = 'completed';
    job.resourceTypes = strings(d['resource_types']) ?? job.resourceTypes;
    job.recordsProcessed = int(d['records_processed']) ?? job.recordsProcessed;
    job.completedAt = date(d['completed_at']) ?? at;
    job.errorCode = null;
    return;
  }
  job.status = 'failed';
  job.errorCode = str(d['error_code']);
  job.message = str(d['message']);
  job.failedAt = date(d['failed_at']) ?? at;
}

import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/**
 * queued → running → completed | failed; running → retrying → running between attempts after a
 * transient failure; running → queued when a worker gives the job back (graceful stop, restart).
 */
export const SYNC_JOB_STATUSES = ['queued', 'running', 'retrying', 'completed', 'failed'] as const;
export type SyncJobStatus = (typeof SYNC_JOB_STATUSES)[number];

/** How the job came: an asynchronous FHIR submission, or recorded by an operator for an external pipeline. */
export const SYNC_JOB_KINDS = ['transaction', 'batch', 'ndjson', 'external'] as const;
export type SyncJobKind = (typeof SYNC_JOB_KINDS)[number];

/**
 * A FHIR or batch sync job of one partner: the projection of the job's pipeline.sync.* events
 * (asynchronous FHIR submissions), or a job an operator records by hand (`external`).
 */
export interface SyncJob {
  id: string;
  partnerGpid: string;
  kind: SyncJobKind | null;
  /** Entries (Bundle entries or NDJSON lines) the job carries; null when unknown. */
  entries: number | null;
  /** The sequence of the last applied lifecycle event (final events rank above every other). */
  sequence: number;
  startedAt: Date | null;
  updatedAt: Date | null;
  nextAttemptAt: Date | null;
  resourceTypes: string[];
  status: SyncJobStatus;
  recordsProcessed: number;
  attempts: number;
  createdAt: Date;
  completedAt: Date | null;
  failedAt: Date | null;
  errorCode: string | null;
  message: string | null;
}

export const SyncJobEntity = new EntitySchema<SyncJob>({
  name: 'SyncJob',
  tableName: 'pipeline_sync_jobs',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    kind: { type: 'string', nullable: true },
    entries: { type: 'integer', nullable: true },
    sequence: { type: 'integer' },
    startedAt: { type: DateTimeType, nullable: true },
    updatedAt: { type: DateTimeType, nullable: true },
    nextAttemptAt: { type: DateTimeType, nullable: true },
    resourceTypes: { type: 'json' },
    status: { type: 'string' },
    recordsProcessed: { type: 'integer' },
    attempts: { type: 'integer' },
    createdAt: { type: DateTimeType },
    completedAt: { type: DateTimeType, nullable: true },
    failedAt: { type: DateTimeType, nullable: true },
    errorCode: { type: 'string', nullable: true },
    message: { type: 'text', nullable: true },
  },
});

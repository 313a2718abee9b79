import { EntitySchema } from '@mikro-orm/core';

/** queued → running → completed | failed; `retrying` between attempts. */
export const SYNC_JOB_STATUSES = ['queued', 'running', 'retrying', 'completed', 'failed'] as const;
export type SyncJobStatus = (typeof SYNC_JOB_STATUSES)[number];

/** A FHIR or batch sync job of one partner. */
export interface SyncJob {
  id: string;
  partnerGpid: string;
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
    resourceTypes: { type: 'json' },
    status: { type: 'string' },
    recordsProcessed: { type: 'integer' },
    attempts: { type: 'integer' },
    createdAt: { type: 'datetime' },
    completedAt: { type: 'datetime', nullable: true },
    failedAt: { type: 'datetime', nullable: true },
    errorCode: { type: 'string', nullable: true },
    message: { type: 'text', nullable: true },
  },
});

import { migrations as m001 } from './m001-sync-jobs-and-event-log.js';
import { m002 } from './m002-webhooks.js';
import { M003SyncJobProjection } from './m003-sync-job-projection.js';
import { m004 } from './m004-tefca-exchanges.js';
import { m005 } from './m005-webhook-verification-and-samples.js';
import { M006OutboxTraceParent } from './m006-outbox-trace-parent.js';

/** The pipeline subgraph's migration history, oldest first. */
export const migrations = [...m001, m002, { name: 'm003-sync-job-projection', class: M003SyncJobProjection }, m004, m005, { name: 'm006-outbox-trace-parent', class: M006OutboxTraceParent }];

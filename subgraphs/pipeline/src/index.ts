import { assembleSubgraph, isInternalEventType, type SubgraphDefinition } from '@svc/platform';
import { SyncJobEntity } from './entities/sync-job.js';
import { LoggedEventEntity } from './entities/logged-event.js';
import { migrations } from './migrations/m001-sync-jobs-and-event-log.js';
import { M003SyncJobProjection } from './migrations/m003-sync-job-projection.js';
import { projectSyncJobEvent } from './domain/sync-job-projection.js';
import { EventLog } from './domain/event-log.js';
import { buildPipelineSchema } from './schema/index.js';

/** Sync jobs, pipeline health and metrics, the event log, webhooks and their delivery. */
export const pipelineSubgraph: SubgraphDefinition = {
  name: 'pipeline',
  defaultPort: 4104,
  create: (runtime) => {
    const log = new EventLog(runtime.config.eventMaxWaiters);
    return assembleSubgraph(runtime, {
      name: 'pipeline',
      entities: [SyncJobEntity, LoggedEventEntity],
      migrations: [...migrations, { name: 'm003-sync-job-projection', class: M003SyncJobProjection }],
      buildSchema: (services) => buildPipelineSchema(services, log),
      async startWorkers({ orm, runtime: rt }) {
        // Durable consumers: a failed event is retried (not acknowledged) until its work committed.
        const stops = [
          // Internal hand-offs between subgraphs are never logged (see envelope.ts).
          rt.stream.consume('event-log', (event) => (isInternalEventType(event.type) ? undefined : log.record(orm.em.fork(), event))),
          rt.stream.consume('sync-jobs', (event) => projectSyncJobEvent(orm.em.fork(), event)),
        ];
        return async () => {
          await Promise.all(stops.map((stop) => stop()));
        };
      },
    });
  },
};

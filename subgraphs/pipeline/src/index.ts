import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
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
        const stop = rt.bus.subscribe(async (event) => {
          try {
            await log.record(orm.em.fork(), event);
          } catch (err) {
            rt.logger.error({ err, eventId: event.id }, 'event log could not record an event');
          }
        });

        // Sync-job projection consumer (idempotent, throws on failure): becomes stream.consume('sync-jobs', handler) on the durable stream.
        const stopSyncJobProjection = rt.bus.subscribe((event) => projectSyncJobEvent(orm.em.fork(), event));

        return async () => {
          stop();
          stopSyncJobProjection();
        };
      },
    });
  },
};

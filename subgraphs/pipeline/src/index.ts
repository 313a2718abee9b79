import { assembleSubgraph, isInternalEventType, type SubgraphDefinition } from '@svc/platform';
import { SyncJobEntity } from './entities/sync-job.js';
import { LoggedEventEntity } from './entities/logged-event.js';
import { migrations } from './migrations/m001-sync-jobs-and-event-log.js';
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
      migrations,
      buildSchema: (services) => buildPipelineSchema(services, log),
      async startWorkers({ orm, runtime: rt }) {
        const stop = rt.bus.subscribe(async (event) => {
          if (isInternalEventType(event.type)) return; // internal hand-offs are never logged (see envelope.ts)
          try {
            await log.record(orm.em.fork(), event);
          } catch (err) {
            rt.logger.error({ err, eventId: event.id }, 'event log could not record an event');
          }
        });
        return async () => stop();
      },
    });
  },
};

import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
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
        // A durable consumer: a failed record is retried (not acknowledged) until it succeeds.
        const stop = rt.stream.consume('event-log', (event) => log.record(orm.em.fork(), event));
        return stop;
      },
    });
  },
};

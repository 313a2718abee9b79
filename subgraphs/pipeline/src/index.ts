import { assembleSubgraph, isInternalEventType, type SubgraphDefinition } from '@svc/platform';
import { SyncJobEntity } from './entities/sync-job.js';
import { LoggedEventEntity } from './entities/logged-event.js';
import { WebhookEntity } from './entities/webhook.js';
import { WebhookAttemptEntity, WebhookDeliveryEntity } from './entities/webhook-delivery.js';
import { isSyncJobEventType, projectSyncJobEvent } from './domain/sync-job-projection.js';
import { EventLog } from './domain/event-log.js';
import { webhookIntake } from './domain/webhook-intake.js';
import { PIPELINE_CONSUMERS } from './domain/pipeline-health.js';
import { WebhookDeliveryWorker } from './webhooks/delivery-worker.js';
import { buildPipelineSchema } from './schema/index.js';
import { migrations } from './migrations/index.js';
import { TefcaExchangeEntity } from './entities/tefca-exchange.js';
import { projectTefcaExchange } from './domain/tefca-exchange-log.js';
import { TefcaPeerClient } from './tefca/peer-client.js';
import { TefcaOutbound } from './tefca/outbound.js';
import { TefcaDirectory } from './tefca/directory.js';

/** Sync jobs, pipeline health and metrics, the event log, webhooks and their delivery. */
export const pipelineSubgraph: SubgraphDefinition = {
  name: 'pipeline',
  defaultPort: 4104,
  create: (runtime) => {
    const log = new EventLog(runtime.config.eventMaxWaiters);
    // Mutations that queue a delivery wake this process's worker, when it runs one.
    const webhookWakeup = { wake: () => {} };
    const tefca = runtime.config.tefca;
    const peerClient = new TefcaPeerClient({ allowPrivateAddresses: tefca.allowPrivateAddresses, timeoutMs: tefca.timeoutMs });
    const tefcaDirectory = new TefcaDirectory(tefca);
    const tefcaOutbound = new TefcaOutbound(tefca, peerClient, tefcaDirectory);
    return assembleSubgraph(runtime, {
      name: 'pipeline',
      entities: [SyncJobEntity, LoggedEventEntity, WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity, TefcaExchangeEntity],
      migrations,
      buildSchema: (services) => buildPipelineSchema(services, log, webhookWakeup, tefcaOutbound, tefcaDirectory),
      async startWorkers({ orm, runtime: rt, publishCommitted }) {
        // Webhooks: the delivery worker, and the intake that turns events into delivery rows.
        const webhooks = new WebhookDeliveryWorker(orm, rt.config.webhooks, rt.logger, publishCommitted, (err) => rt.logger.error({ err }, 'webhook delivery worker failed'));
        const intake = webhookIntake(() => orm.em.fork(), rt.config.webhooks.maxAttempts, () => webhooks.wake());
        webhookWakeup.wake = () => webhooks.wake();
        webhooks.start();

        const isPublicEventType = (type: string) => !isInternalEventType(type);
        // Durable consumers: an event is acknowledged only after its work committed, and retried
        // until then. Internal hand-offs between subgraphs are never logged nor sent (envelope.ts).
        const [eventLog, syncJobsConsumer, webhooksConsumer, tefcaExchanges] = PIPELINE_CONSUMERS; // named in pipelineHealth
        const stops = [
          rt.stream.consume(eventLog, { batch: (events) => log.record(orm.em.fork(), events) }, { types: isPublicEventType }),
          rt.stream.consume(syncJobsConsumer, (event) => projectSyncJobEvent(orm.em.fork(), event), { types: isSyncJobEventType }),
          rt.stream.consume(webhooksConsumer, { batch: (events) => intake(events) }, { types: isPublicEventType }),
          // The TEFCA audit log: every exchange's event, from whichever subgraph answered it.
          rt.stream.consume(tefcaExchanges, (event) => projectTefcaExchange(orm.em.fork(), event), { types: (type) => type.startsWith('tefca.') }),
        ];
        return async () => {
          await Promise.all(stops.map((stop) => stop()));
          webhookWakeup.wake = () => {};
          await webhooks.stop();
          await peerClient.close();
          await tefcaDirectory.close();
        };
      },
    });
  },
};

import { assembleSubgraph, type SubgraphDefinition } from '@svc/platform';
import { SyncJobEntity } from './entities/sync-job.js';
import { LoggedEventEntity } from './entities/logged-event.js';
import { WebhookEntity } from './entities/webhook.js';
import { WebhookAttemptEntity, WebhookDeliveryEntity } from './entities/webhook-delivery.js';
import { migrations as m001 } from './migrations/m001-sync-jobs-and-event-log.js';
import { m002 } from './migrations/m002-webhooks.js';
import { EventLog } from './domain/event-log.js';
import { webhookIntake } from './domain/webhook-intake.js';
import { WebhookDeliveryWorker } from './webhooks/delivery-worker.js';
import { buildPipelineSchema } from './schema/index.js';

/** Sync jobs, pipeline health and metrics, the event log, webhooks and their delivery. */
export const pipelineSubgraph: SubgraphDefinition = {
  name: 'pipeline',
  defaultPort: 4104,
  create: (runtime) => {
    const log = new EventLog(runtime.config.eventMaxWaiters);
    // Mutations that queue a delivery wake this process's worker, when it runs one.
    const webhookWakeup = { wake: () => {} };
    return assembleSubgraph(runtime, {
      name: 'pipeline',
      entities: [SyncJobEntity, LoggedEventEntity, WebhookEntity, WebhookDeliveryEntity, WebhookAttemptEntity],
      migrations: [...m001, m002],
      buildSchema: (services) => buildPipelineSchema(services, log, webhookWakeup),
      async startWorkers({ orm, runtime: rt, publishCommitted }) {
        const stop = rt.bus.subscribe(async (event) => {
          try {
            await log.record(orm.em.fork(), event);
          } catch (err) {
            rt.logger.error({ err, eventId: event.id }, 'event log could not record an event');
          }
        });

        // Webhooks: the delivery worker, and the intake that turns events into delivery rows.
        const webhooks = new WebhookDeliveryWorker(orm, rt.config.webhooks, rt.logger, publishCommitted, (err) => rt.logger.error({ err }, 'webhook delivery worker failed'));
        const intake = webhookIntake(() => orm.em.fork(), rt.config.webhooks.maxAttempts, () => webhooks.wake());
        // The one line that feeds the intake: swap for `stream.consume('webhooks', intake)` on a durable stream.
        const stopIntake = rt.bus.subscribe(intake);
        webhookWakeup.wake = () => webhooks.wake();
        webhooks.start();

        return async () => {
          stop();
          stopIntake();
          await webhooks.stop();
        };
      },
    });
  },
};

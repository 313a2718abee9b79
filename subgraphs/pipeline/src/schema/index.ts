import type { GraphQLSchema } from 'graphql';
import { createSubgraphBuilder, type SubgraphServices, SUBGRAPH_SCHEMA_OPTIONS } from '@svc/platform';
import type { EventLog } from '../domain/event-log.js';
import { defineSyncJob, partnerRef } from './sync-job.js';
import { defineEvent } from './event.js';
import { definePipelineHealth } from './pipeline-health.js';
import { definePipelineMetrics } from './pipeline-metrics.js';
import { defineWebhooks, type WebhookWakeup } from './webhook.js';
import { defineTefca } from './tefca.js';
import type { TefcaOutbound } from '../tefca/outbound.js';
import type { TefcaDirectory } from '../tefca/directory.js';

/** The pipeline subgraph's federated schema. */
export function buildPipelineSchema(services: SubgraphServices, log: EventLog, webhookWakeup: WebhookWakeup, tefca: TefcaOutbound, directory: TefcaDirectory): GraphQLSchema {
  const builder = createSubgraphBuilder();
  builder.mutationType({});
  const partner = partnerRef(builder);
  defineSyncJob(builder, services, partner);
  defineEvent(builder, log, partner);
  definePipelineHealth(builder, services);
  definePipelineMetrics(builder, partner);
  defineWebhooks(builder, services, webhookWakeup);
  defineTefca(builder, services, tefca, directory);
  return builder.toSubGraphSchema(SUBGRAPH_SCHEMA_OPTIONS);
}

import type { GraphQLSchema } from 'graphql';
import type { SubgraphServices } from '@svc/platform';
import { createSubgraphBuilder } from '@svc/platform';
import { defineApiToken } from './api-token.js';
import { definePartner } from './partner.js';
import { defineViewer } from './viewer.js';

/** The partner subgraph's federated schema. */
export function buildPartnerSchema(services: SubgraphServices): GraphQLSchema {
  const builder = createSubgraphBuilder();
  builder.mutationType({});
  const tokens = defineApiToken(builder);
  definePartner(builder, services, tokens);
  defineViewer(builder);
  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' });
}

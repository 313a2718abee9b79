import type { GraphQLSchema } from 'graphql';
import { createSubgraphBuilder, type SubgraphServices } from '@svc/platform';
import { defineIdentity } from './identity.js';

/** The identity subgraph's federated schema. */
export function buildIdentitySchema(_services: SubgraphServices): GraphQLSchema {
  const builder = createSubgraphBuilder();
  defineIdentity(builder);
  return builder.toSubGraphSchema({ linkUrl: 'https://specs.apollo.dev/federation/v2.6' });
}

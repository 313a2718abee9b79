import SchemaBuilder from '@pothos/core';
import DirectivePlugin from '@pothos/plugin-directives';
import FederationPlugin from '@pothos/plugin-federation';
import ScopeAuthPlugin from '@pothos/plugin-scope-auth';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import { DateTimeISOResolver, JSONObjectResolver } from 'graphql-scalars';
import { authScopesFor, unauthorizedErrorFor, type PlatformAuthScopes } from './scope-auth.js';
import type { SubgraphContext } from '../subgraph/types.js';

/**
 * A fresh Pothos builder per subgraph instance, so resolvers close over that instance's services.
 * Every subgraph uses the same plugins and the same scope vocabulary.
 */
export function createSubgraphBuilder() {
  const builder = new SchemaBuilder<{
    Context: SubgraphContext;
    AuthScopes: PlatformAuthScopes;
    Scalars: {
      DateTime: { Input: Date; Output: Date };
      JSONObject: { Input: Record<string, unknown>; Output: Record<string, unknown> };
    };
    DefaultFieldNullability: false;
  }>({
    plugins: [ScopeAuthPlugin, DataloaderPlugin, DirectivePlugin, FederationPlugin],
    defaultFieldNullability: false,
    scopeAuth: {
      authScopes: (ctx) => authScopesFor(ctx.principal),
      unauthorizedError: (_parent, ctx) => unauthorizedErrorFor(ctx.principal),
    },
  });
  // Serialized as an ISO 8601 string, so in-process and HTTP subgraph answers are identical.
  builder.addScalarType('DateTime', DateTimeISOResolver);
  builder.addScalarType('JSONObject', JSONObjectResolver);
  builder.queryType({});
  return builder;
}

export type SubgraphBuilder = ReturnType<typeof createSubgraphBuilder>;

/**
 * The options every subgraph makes its federated schema with: Federation 2.6 and the directives its
 * schema imports, the same for all (a superset of what each uses). Named here rather than found by
 * the plugin, which builds the whole schema a second time to find them; a directive used but not
 * listed makes composition fail (test/supergraph.test.ts composes the subgraphs afresh).
 */
export const SUBGRAPH_SCHEMA_OPTIONS: { readonly linkUrl: string; readonly federationDirectives: string[] } = {
  linkUrl: 'https://specs.apollo.dev/federation/v2.6',
  federationDirectives: ['@extends', '@inaccessible', '@key', '@shareable'],
};

import { ApolloServer, type GraphQLResponse } from '@apollo/server';
import { ApolloGateway, type GraphQLDataSource } from '@apollo/gateway';
import type { GraphQLSchema } from 'graphql';
import { ANONYMOUS, DEFAULT_OPERATION_LIMITS, newId, type Environment, type GraphQLRequest, type Logger, type OperationLimits, type Principal } from '@svc/platform';
import type { SubgraphClient, SubgraphResponse } from './subgraph-client.js';
import { OperationGuard } from './operation-guard.js';

/** What every gateway request carries: who is calling and the id that ties the logs together. */
export interface GatewayContext {
  principal: Principal;
  requestId: string;
}

/** Adapts a SubgraphClient to the query planner's data-source interface. */
function dataSource(client: SubgraphClient): GraphQLDataSource<GatewayContext & Record<string, unknown>> {
  return {
    async process(options) {
      const context = 'context' in options ? (options.context as Partial<GatewayContext>) : {};
      const { request } = options;
      const response: SubgraphResponse = await client.execute(
        { query: request.query ?? '', variables: request.variables ?? null, operationName: request.operationName ?? null },
        context.principal ?? ANONYMOUS,
        context.requestId ?? newId('req'),
      );
      return response as Awaited<ReturnType<GraphQLDataSource['process']>>;
    },
  };
}

export interface Gateway {
  server: ApolloServer<GatewayContext>;
  /** The public API schema (no federation internals, no @inaccessible fields). */
  apiSchema(): GraphQLSchema;
  /** Whether the supergraph is loaded (readiness). */
  loaded(): boolean;
  /** The operation limits every entry enforces (Apollo's pipeline here; graphql-ws in http.ts). */
  guard: OperationGuard;
  /** Run one operation as `principal` through the query planner. */
  execute(request: GraphQLRequest, context: GatewayContext): Promise<SubgraphResponse>;
  /** Call one subgraph directly, bypassing the supergraph (the gateway's own internal lookups). */
  callSubgraph(name: string, request: GraphQLRequest, context: GatewayContext): Promise<SubgraphResponse>;
  stop(): Promise<void>;
}

/**
 * The federation gateway: Apollo's query planner (with its query-plan cache) over the composed
 * supergraph, reaching each subgraph through its client.
 */
export async function createGateway(options: {
  supergraphSdl: string;
  clients: readonly SubgraphClient[];
  logger: Logger;
  limits?: OperationLimits;
  environment?: Environment;
}): Promise<Gateway> {
  const guard = new OperationGuard({ limits: options.limits ?? DEFAULT_OPERATION_LIMITS, environment: options.environment ?? 'sandbox', supergraphSdl: options.supergraphSdl });
  const clients = new Map(options.clients.map((c) => [c.name, c]));
  const apollo = new ApolloGateway({
    supergraphSdl: options.supergraphSdl,
    logger: options.logger.child({ component: 'apollo-gateway' }),
    buildService: ({ name }) => {
      const client = clients.get(name);
      if (!client) throw new Error(`The supergraph names subgraph "${name}", which this gateway cannot reach.`);
      return dataSource(client);
    },
  });
  let schema: GraphQLSchema | undefined;
  apollo.onSchemaLoadOrUpdate(({ apiSchema }) => {
    schema = apiSchema;
  });
  const server = new ApolloServer<GatewayContext>({
    gateway: apollo,
    includeStacktraceInErrorResponses: false,
    logger: options.logger.child({ component: 'apollo-server' }),
    introspection: true,
    parseOptions: { maxTokens: guard.limits.maxTokens },
    validationRules: [...guard.rules],
    plugins: [guard.plugin()],
    formatError: (formatted, error) => guard.formatError(formatted, error),
  });
  await server.start();

  return {
    server,
    apiSchema() {
      if (!schema) throw new Error('The supergraph is not loaded yet.');
      return schema;
    },
    loaded: () => schema !== undefined,
    guard,
    async execute(request, context) {
      const response: GraphQLResponse = await server.executeOperation(
        { query: request.query, variables: request.variables ?? undefined, operationName: request.operationName ?? undefined },
        { contextValue: context },
      );
      if (response.body.kind !== 'single') throw new Error('Incremental delivery is not supported here.');
      return response.body.singleResult as SubgraphResponse;
    },
    async callSubgraph(name, request, context) {
      const client = clients.get(name);
      if (!client) throw new Error(`Unknown subgraph "${name}".`);
      return client.execute(request, context.principal, context.requestId);
    },
    stop: () => server.stop(),
  };
}

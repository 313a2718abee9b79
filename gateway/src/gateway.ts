import { ApolloServer, type ApolloServerPlugin, type GraphQLResponse } from '@apollo/server';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { ApolloGateway, type GraphQLDataSource } from '@apollo/gateway';
import type { GraphQLFormattedError, GraphQLSchema } from 'graphql';
import { ANONYMOUS, DEFAULT_OPERATION_LIMITS, inSpan, SpanKind, newId, RETRY_AFTER_SECONDS, type Environment, type EventEnvelope, type GraphQLRequest, type Logger, type OperationLimits, type Principal } from '@svc/platform';
import type { SubgraphClient, SubgraphResponse } from './subgraph-client.js';
import { answerFromStreamedEvent } from './streamed-event.js';
import { OperationGuard } from './operation-guard.js';
import { installCompiledResultShaping } from './result-shaping.js';
import { installOperationCache } from './operation-cache.js';
import { FastPath, loadApolloInternals, type FastAnswer, type FastPathAdmission, type FastPathAware } from './fast-path.js';
import { ValidatedDocuments } from './validated-documents.js';
import type { IncomingHttpHeaders } from 'node:http';

/** What every gateway request carries: who is calling and the id that ties the logs together. */
export interface GatewayContext {
  principal: Principal;
  requestId: string;
  /**
   * Set only for operations that came in on the public /graphql (HTTP or WebSocket): they are rate
   * limited (graphql-rate-limit.ts). The facade's operations and the gateway's own carry none.
   */
  publicRequest?: { clientAddress: string };
  /** The HTTP handler checks the answer's size on the serialized string (operation-guard's plugin then skips it). */
  answerSizeCheckedOnSend?: boolean;
  /**
   * Set only by the subscription hub when it runs a subscriber's selection for one event: the event
   * as the stream holds it. A fetch of our own subgraphs that asks only for its envelope fields is
   * answered from it (streamed-event.ts), not sent.
   */
  streamedEvent?: EventEnvelope;
}

/**
 * One span per subgraph call (a client span: over HTTP in the distributed mode, a function call in
 * the embedded one), named after the subgraph; the only attributes are its name and the operation's.
 */
function subgraphSpan<T>(name: string, operationName: string | null | undefined, call: () => Promise<T>): Promise<T> {
  return inSpan(`subgraph ${name}`, { kind: SpanKind.CLIENT, attributes: { 'svc.subgraph': name, ...(operationName ? { 'graphql.operation.name': operationName } : {}) } }, call);
}

/** Adapts a SubgraphClient to the query planner's data-source interface. */
function dataSource(client: SubgraphClient): GraphQLDataSource<GatewayContext & Record<string, unknown>> {
  return {
    async process(options) {
      const context = 'context' in options ? (options.context as Partial<GatewayContext>) : {};
      const { request } = options;
      if (context.streamedEvent && !client.foreign) {
        const answer = answerFromStreamedEvent({ query: request.query ?? '', variables: request.variables ?? null, operationName: request.operationName ?? null }, context.streamedEvent);
        if (answer) return answer as Awaited<ReturnType<GraphQLDataSource['process']>>;
      }
      const response: SubgraphResponse = await subgraphSpan(client.name, request.operationName, () =>
        client.execute(
          { query: request.query ?? '', variables: request.variables ?? null, operationName: request.operationName ?? null },
          context.principal ?? ANONYMOUS,
          context.requestId ?? newId('req'),
        ),
      );
      return response as Awaited<ReturnType<GraphQLDataSource['process']>>;
    },
  };
}

/**
 * Whether an operation failed only because dependencies were unreachable: every error is
 * UPSTREAM_UNAVAILABLE and nothing but null came back (data null, or every root field null).
 */
export function failedOnlyForOutage(result: { data?: Record<string, unknown> | null; errors?: readonly GraphQLFormattedError[] }): boolean {
  if (!result.errors?.length || !result.errors.every((e) => e.extensions?.['code'] === 'UPSTREAM_UNAVAILABLE')) return false;
  return result.data === undefined || result.data === null || Object.values(result.data).every((v) => v === null);
}

/**
 * GraphQL over HTTP: an operation that could not run because a dependency is down is a failure of
 * the server, not a partial success. It is sent without a `data` entry, with status 503 and
 * Retry-After (the specification requires a 4xx/5xx status for a response without `data`, and
 * names 503 for a server that cannot execute requests at this time). A response with any non-null
 * data keeps its 2xx status, as the specification requires.
 */
const outageStatus: ApolloServerPlugin<GatewayContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single' || !failedOnlyForOutage(response.body.singleResult)) return;
        delete response.body.singleResult.data;
        response.http.status = 503;
        response.http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
      },
    };
  },
};

export interface Gateway {
  server: ApolloServer<GatewayContext>;
  /** The public API schema (no federation internals, no @inaccessible fields). */
  apiSchema(): GraphQLSchema;
  /** Whether the supergraph is loaded (readiness). */
  loaded(): boolean;
  /** The operation limits every entry enforces (Apollo's pipeline here; graphql-ws in http.ts). */
  guard: OperationGuard;
  /**
   * The HTTP handler's fast path for a POST whose document Apollo Server has validated before
   * (fast-path.ts): the answer, or null when the request must take Apollo's pipeline.
   */
  fastPath(headers: IncomingHttpHeaders, body: unknown, context: GatewayContext): Promise<FastAnswer | null>;
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
  plugins?: ApolloServerPlugin<GatewayContext>[];
  /**
   * Automatic persisted queries: the store (persisted-query-store.ts) and how long an entry is kept,
   * or false to answer PERSISTED_QUERY_NOT_SUPPORTED. Apollo's unbounded-by-configuration default when omitted.
   */
  persistedQueries?: { cache: KeyValueCache<string>; ttlSeconds: number } | false;
  /** The fast path (fast-path.ts), on unless false (SVC_GATEWAY_FAST_PATH=off). */
  fastPath?: boolean;
  /** Counts the requests answered by the fast path (a Prometheus counter's `inc`). */
  onFastPathAnswer?: () => void;
}): Promise<Gateway> {
  const guard = new OperationGuard({ limits: options.limits ?? DEFAULT_OPERATION_LIMITS, environment: options.environment ?? 'sandbox', supergraphSdl: options.supergraphSdl });
  const clients = new Map(options.clients.map((c) => [c.name, c]));
  const documents = new ValidatedDocuments();
  if (!installCompiledResultShaping()) options.logger.warn('@apollo/gateway has no resultShaping module: results are shaped by its own, slower code');
  if (!installOperationCache()) options.logger.warn('@apollo/federation-internals has no operations module: the executor reads each operation again per request');
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
    ...(options.persistedQueries === undefined ? {} : { persistedQueries: options.persistedQueries && { cache: options.persistedQueries.cache, ttl: options.persistedQueries.ttlSeconds } }),
    // server.ts stops the whole process on SIGTERM/SIGINT (this server included); Apollo's own handler
    // would stop it a second time and re-send the signal.
    stopOnTerminationSignals: false,
    logger: options.logger.child({ component: 'apollo-server' }),
    introspection: true,
    parseOptions: { maxTokens: guard.limits.maxTokens },
    validationRules: [...guard.rules],
    plugins: [guard.plugin(), outageStatus, documents.plugin(), ...(options.plugins ?? [])],
    formatError: (formatted, error) => guard.formatError(formatted, error),
  });
  await server.start();
  const fastPath = options.fastPath === false ? null : await createFastPath(apollo, server, guard, documents, () => schema, options);

  return {
    server,
    apiSchema() {
      if (!schema) throw new Error('The supergraph is not loaded yet.');
      return schema;
    },
    loaded: () => schema !== undefined,
    guard,
    fastPath: (headers, body, context) => fastPath?.run(headers, body, context) ?? Promise.resolve(null),
    async execute(request, context) {
      const tooDeep = guard.nestingRefusal(request.query);
      if (tooDeep) return { errors: [tooDeep] };
      const response: GraphQLResponse = await server.executeOperation(
        { query: request.query, variables: request.variables ?? undefined, operationName: request.operationName ?? undefined },
        { contextValue: context },
      );
      if (response.body.kind !== 'single') throw new Error('Incremental delivery is not supported here.');
      return response.body.singleResult as SubgraphResponse;
    },
    async callSubgraph(name, request, context) {
      const client = clients.get(name);
      // Internal lookups (credentials, keys) go to our own subgraphs only, never to a foreign one of the same name.
      if (!client || client.foreign) throw new Error(`Unknown subgraph "${name}".`);
      return subgraphSpan(name, request.operationName, () => client.execute(request, context.principal, context.requestId));
    },
    stop: () => {
      fastPath?.stop();
      return server.stop();
    },
  };
}

function isFastPathAware(plugin: ApolloServerPlugin<GatewayContext>): plugin is ApolloServerPlugin<GatewayContext> & FastPathAware {
  return typeof (plugin as Partial<FastPathAware>).fastPathAdmits === 'function';
}

/**
 * The fast path, or null (every request through Apollo's pipeline) when an extra plugin cannot say
 * when its hooks may be skipped, or this Apollo Server lacks the internals it reuses (logged).
 */
async function createFastPath(
  apollo: ApolloGateway,
  server: ApolloServer<GatewayContext>,
  guard: OperationGuard,
  documents: ValidatedDocuments,
  schema: () => GraphQLSchema | undefined,
  options: { logger: Logger; plugins?: ApolloServerPlugin<GatewayContext>[]; onFastPathAnswer?: () => void },
): Promise<FastPath | null> {
  const admissions: FastPathAdmission[] = [];
  for (const plugin of options.plugins ?? []) {
    if (!isFastPathAware(plugin)) return null;
    admissions.push(plugin.fastPathAdmits);
  }
  const internals = await loadApolloInternals();
  if (!internals) {
    options.logger.warn('@apollo/server has no errorNormalize or internalErrorClasses module: every request takes its full pipeline');
    return null;
  }
  return new FastPath({
    documents,
    guard,
    schema,
    executor: apollo.executor,
    admissions,
    internals,
    logger: options.logger.child({ component: 'apollo-server' }),
    cache: server.cache,
    failedOnlyForOutage,
    formatError: (formatted, error) => guard.formatError(formatted, error),
    ...(options.onFastPathAnswer ? { onAnswer: options.onFastPathAnswer } : {}),
  });
}

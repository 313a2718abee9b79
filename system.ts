import Fastify, { LogController, type FastifyInstance } from 'fastify';
import {
  clientErrorHandler,
  createLogger,
  frameworkErrors,
  refuseCredentialsInQuery,
  refuseDeepJson,
  requestErrorHandler,
  createMetrics,
  createRedisClient,
  deferredRequestLogger,
  DependencyHealth,
  MemoryEventBus,
  newId,
  OutboxStream,
  RedisEventStream,
  tailAsBus,
  type EventBackbone,
  RateLimiter,
  recordRequests,
  RequestLogRecorder,
  type RequestLogBatch,
  RedisEventBus,
  redisConnected,
  redisReachable,
  RevocationList,
  subgraphHttpServer,
  type Config,
  type EventBus,
  type Logger,
  type Metrics,
  type Subgraph,
  type SubgraphName,
  type SubgraphRuntime,
  serviceSdl,
  shedLoad,
  startTracing,
  traceHttpServer,
} from '@svc/platform';
import {
  Authenticator,
  supergraphOf,
  createGateway,
  graphqlRateLimitPlugin,
  httpClient,
  inProcessClient,
  loadSupergraph,
  loadTrustedDocuments,
  persistedQueryStore,
  PORTAL_TRUSTED_DOCUMENTS,
  registerGatewayRoutes,
  registerGraphqlSse,
  registerInternalGatewayRoutes,
  SubscriptionHub,
  SUBGRAPHS,
  subgraphsSharingQueries,
  TrustedDocumentPolicy,
  type SubgraphClient,
} from '@svc/gateway';
import type { Redis } from 'ioredis';
import { httpGateway, inProcessGateway, registerFacade, type FacadeGateway } from '@svc/rest-facade';

/** A running component (or the whole embedded system): its HTTP app and how to stop it. */
export interface RunningSystem {
  app: FastifyInstance;
  /**
   * The internal listener of the roles that have a public one (all, gateway, facade): /metrics,
   * /health, /ready, and the gateway's internal hop. Listens on SVC_INTERNAL_PORT.
   */
  internalApp?: FastifyInstance;
  logger: Logger;
  /** Publish what is committed, finish in-flight requests, close every connection. */
  stop(): Promise<void>;
}

const REQUEST_ID = /^[\w.-]{1,100}$/;

/** The HTTP app every component serves from: request ids, request metrics, health. */
function httpApp(config: Config, logger: Logger, metrics: Metrics, component: string): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // Made on the first line logged through it: with request logging below the level, never.
    childLoggerFactory: (parent, bindings, opts) => deferredRequestLogger(parent as Logger, bindings, opts),
    genReqId: (req) => {
      const header = req.headers['x-request-id'];
      return typeof header === 'string' && REQUEST_ID.test(header) ? header : newId('req');
    },
    bodyLimit: 5 * 1024 * 1024,
    return503OnClosing: true,
    // FHIR clients post transactions to the base with a trailing slash (`[base]/`), as HAPI accepts.
    rewriteUrl: (req) => (req.url === '/fhir/R4/' || req.url?.startsWith('/fhir/R4/?') ? `/fhir/R4${req.url.slice('/fhir/R4/'.length)}` : (req.url ?? '/')),
    // What the router and Node's HTTP parser refuse is a problem document too (400, 414, 431).
    frameworkErrors,
    clientErrorHandler,
    // A hop count trusts that many proxies in front of us; Fastify's types take it as a function.
    trustProxy: typeof config.trustProxy === 'number' ? (_address: string, hop: number) => hop < (config.trustProxy as number) : config.trustProxy,
  }) as unknown as FastifyInstance;
  traceHttpServer(app, component);
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  refuseCredentialsInQuery(app);
  refuseDeepJson(app);
  // The facade installs its own error handler (the same documents, plus its routes' dialects).
  if (component !== 'all' && component !== 'facade') app.setErrorHandler(requestErrorHandler);
  app.addHook('onResponse', async (req, reply) => {
    metrics.httpRequests.observe({ component, route: req.routeOptions.url ?? 'unmatched', method: req.method, status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  app.get('/health', async () => ({ status: 'ok' }));
  return app;
}

/** Prometheus metrics, only on a listener that is not public (the internal one, a subgraph's, a worker's). */
function serveMetrics(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
}

/** /ready: 200 when every check passes, else 503 naming each check (`redis`, `database:<name>`, `subgraph:<name>`, `gateway`). */
function readiness(app: FastifyInstance, check: () => Promise<Record<string, boolean>>): void {
  app.get('/ready', async (_req, reply) => {
    const checks = await check();
    const ready = Object.values(checks).every(Boolean);
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
  });
}

/** Every producer publishes what it committed before any consumer stops listening; then all stop. */
async function stopSubgraphs(subgraphs: readonly Subgraph[]): Promise<void> {
  await Promise.all(subgraphs.map((s) => s.drain()));
  for (const s of subgraphs) await s.stop();
}

function createBus(config: Config, logger: Logger, health: DependencyHealth): EventBus {
  const onError = (err: unknown) => logger.error({ err }, 'event handler failed');
  return config.redisUrl ? new RedisEventBus(config.redisUrl, config.redisPrefix, onError, health) : new MemoryEventBus(onError);
}

/**
 * The durable stream: Redis Streams in the distributed mode, the SQLite outbox tables themselves in
 * the embedded default (see platform/src/events/README.md).
 */
function createBackbone(config: Config, logger: Logger, health: DependencyHealth, bus: EventBus): EventBackbone {
  return config.redisUrl ? new RedisEventStream(config.redisUrl, config.redisPrefix, logger, health, { claimIdleMs: config.eventClaimIdleMs }) : new OutboxStream(bus, logger, config.outboxPollMs);
}

/**
 * How the gateway tells whether a subgraph can serve: our own subgraphs answer GET /ready (their
 * database and Redis); a foreign subgraph only has to answer HTTP at all below 500.
 */
function subgraphProbe(url: string, ours: boolean): () => Promise<boolean> {
  const target = ours ? new URL('/ready', url).toString() : url;
  return async () => {
    const response = await fetch(target, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    if (ours ? !response.ok : response.status >= 500) throw new Error(`${target} answered HTTP ${response.status}`);
    return true;
  };
}

async function gatewayParts(runtime: SubgraphRuntime, clients: SubgraphClient[], supergraphSdl: string, limiter: RateLimiter | null, revocations: RevocationList, redis: Redis | undefined) {
  const { apq } = runtime.config.graphqlDocuments;
  const gateway = await createGateway({
    supergraphSdl,
    clients,
    logger: runtime.logger,
    limits: runtime.config.operationLimits,
    environment: runtime.config.environment,
    plugins: limiter ? [graphqlRateLimitPlugin(limiter)] : [],
    fastPath: runtime.config.gatewayFastPath,
    onFastPathAnswer: () => runtime.metrics.gatewayFastPath.inc(),
    // APQ: shared through Redis in the distributed mode, Apollo's bounded LRU in process otherwise.
    persistedQueries: apq.enabled && { cache: persistedQueryStore({ bounds: apq, redis, redisPrefix: runtime.config.redisPrefix, logger: runtime.logger }), ttlSeconds: apq.ttlSeconds },
  });
  const documents = new TrustedDocumentPolicy(
    loadTrustedDocuments([PORTAL_TRUSTED_DOCUMENTS, ...runtime.config.graphqlDocuments.manifests]),
    runtime.config.graphqlDocuments.trusted,
    runtime.metrics.untrustedDocuments,
  );
  // Live fan-out from the stream's tail: after a Redis outage it resumes from the last event seen.
  const fanout = tailAsBus(runtime.backbone!);
  const authenticator = new Authenticator(gateway, fanout, runtime.logger, undefined, undefined, revocations);
  // Subscriptions read the stream itself: its tail with positions, and reads back for a resume.
  const hub = new SubscriptionHub(gateway, runtime.backbone!, runtime.logger, revocations, runtime.metrics.graphqlSubscribers);
  return { gateway, authenticator, hub, documents };
}

/**
 * Start what `config.role` names: everything in one process (`all`, the embedded default), or one
 * component of the distributed mode. Returns once the component is ready to listen.
 */
export async function startSystem(config: Config, options: { logger?: Logger; now?: () => Date } = {}): Promise<RunningSystem> {
  const logger = options.logger ?? createLogger(config);
  // First: what starts below (database clients, HTTP apps) is traced only when tracing runs already.
  const tracing = await startTracing(config.tracing);
  const metrics = createMetrics({ defaultMetrics: true });
  // Every dependency outage is logged once when it starts and once when it ends, and fails /ready.
  const health = new DependencyHealth(logger);
  const bus = createBus(config, logger, health);
  if (bus instanceof RedisEventBus) await bus.ready();
  const backbone = createBackbone(config, logger, health, bus);
  // Rate-limit counters: a command fails at once while Redis is away, so the request gets a 503.
  // A partner subgraph of its own process reads them from Redis to show a partner its usage (without
  // Redis the counters live in the gateway's and the facade's memory, out of its reach).
  const usesLimiter = config.role === 'all' || config.role === 'facade' || config.role === 'gateway' || (config.role === 'subgraph:partner' && config.redisUrl !== undefined);
  const redis = config.redisUrl && usesLimiter ? createRedisClient(config.redisUrl, health) : undefined;
  if (redis) await redisConnected(redis, 10_000);
  const redisChecks: string[] = [];
  if (config.redisUrl) {
    redisChecks.push('redis');
    health.watch('redis', async () => (bus instanceof RedisEventBus ? await bus.reachable() : true) && (redis ? await redisReachable(redis) : true));
  }
  const now = options.now ?? (() => new Date());
  // One limiter for REST and GraphQL: the facade and the gateway's /graphql spend the same counters.
  const limiter = config.rateLimits && usesLimiter ? new RateLimiter(redis, config.redisPrefix) : null;
  const runtime: SubgraphRuntime = { config, logger, bus, backbone, metrics, health, ...(limiter ? { rateLimits: limiter } : {}) };
  // One per process: whatever accepts a credential or a signed principal here checks it against this.
  const revocations = new RevocationList().follow(tailAsBus(backbone));
  const closers: (() => Promise<unknown>)[] = [];
  const stopAll = async () => {
    health.close();
    for (const close of closers.reverse()) await close().catch((err: unknown) => logger.error({ err }, 'shutdown step failed'));
    revocations.close();
    await backbone.close();
    await bus.close();
    await redis?.quit().catch(() => undefined);
    // Last: the spans of the shutdown's own work are exported too.
    await tracing?.shutdown().catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.name : 'Error' }, 'trace export at shutdown failed'));
  };

  try {
    const role = config.role;
    if (role.startsWith('subgraph:')) {
      const definition = SUBGRAPHS.find((s) => `subgraph:${s.name}` === role)!;
      const subgraph = await definition.create(runtime);
      closers.push(() => subgraph.stop());
      await subgraph.start();
      const app = subgraphHttpServer(subgraph, config.internalSecret, logger, { revocations, loadShedding: config.loadShedding, otherChecks: () => health.checkAll(redisChecks) });
      serveMetrics(app as unknown as FastifyInstance, metrics);
      closers.push(() => app.close());
      return { app: app as unknown as FastifyInstance, logger, stop: stopAll };
    }

    if (role === 'worker') {
      const subgraphs = await Promise.all(SUBGRAPHS.map((d) => d.create(runtime)));
      closers.push(() => stopSubgraphs(subgraphs));
      for (const s of subgraphs) await s.start();
      const app = httpApp(config, logger, metrics, 'worker');
      serveMetrics(app, metrics);
      readiness(app, () => health.checkAll([...subgraphs.map((s) => `database:${s.name}`), ...redisChecks]));
      closers.push(() => app.close());
      return { app, logger, stop: stopAll };
    }

    const app = httpApp(config, logger, metrics, role);
    const shedder = shedLoad(app, config.loadShedding);
    // Each partner's request log: recorded at this public edge after the answer, written in batches
    // through the gateway to the partner subgraph, never on the request's path.
    let writeRequestLog: (batch: RequestLogBatch) => Promise<void> = async () => undefined;
    const requestLog = new RequestLogRecorder((batch) => writeRequestLog(batch), logger, { flushMs: config.requestLog.flushMs });
    recordRequests(app, requestLog);
    const internalApp = httpApp(config, logger, metrics, `${role}:internal`);
    serveMetrics(internalApp, metrics);
    let facadeGateway: FacadeGateway;
    let ready: () => Promise<Record<string, boolean>>;

    if (role === 'facade') {
      facadeGateway = httpGateway(config.gatewayUrl!, config.internalSecret, { timeoutMs: config.upstreamTimeoutMs, health });
      health.watch('gateway', async () => {
        const response = await fetch(`${config.gatewayUrl!.replace(/\/+$/, '')}/ready`, { signal: AbortSignal.timeout(2_000) });
        await response.body?.cancel();
        if (!response.ok) throw new Error(`the gateway's /ready answered HTTP ${response.status}`);
        return true;
      });
      ready = () => health.checkAll(['gateway', ...redisChecks]);
    } else {
      let subgraphs: Subgraph[] = [];
      let clients: SubgraphClient[];
      let supergraphSdl: string;
      if (role === 'gateway') {
        const source = loadSupergraph(config.supergraphPath ?? new URL('./supergraph.yaml', import.meta.url).pathname);
        // Our own subgraphs get the signed principal: every one with our supergraph, and with
        // SVC_SUPERGRAPH only those named like ours whose SVC_SUBGRAPH_<NAME>_URL is set. The
        // subgraphs of a foreign supergraph get none.
        const ours = (name: string) => !config.supergraphPath || config.subgraphUrls[name as SubgraphName] !== undefined;
        const sharing = subgraphsSharingQueries(config.deduplicateQueries, source.subgraphs.map((s) => ({ name: s.name, ours: ours(s.name) })));
        const httpClients = source.subgraphs.map((s) => {
          const url = config.subgraphUrls[s.name as SubgraphName] ?? s.url;
          health.watch(`subgraph:${s.name}`, subgraphProbe(url, ours(s.name)));
          return httpClient(s.name, url, ours(s.name) ? config.internalSecret : null, { timeoutMs: config.upstreamTimeoutMs, health, deduplicateQueries: sharing.has(s.name) });
        });
        closers.push(() => Promise.all(httpClients.map((c) => c.close())));
        clients = httpClients;
        supergraphSdl = source.supergraphSdl;
      } else {
        const created = await Promise.all(SUBGRAPHS.map((d) => d.create(runtime)));
        closers.push(() => stopSubgraphs(created));
        subgraphs = created;
        clients = subgraphs.map(inProcessClient);
        supergraphSdl = config.supergraphPath
          ? loadSupergraph(config.supergraphPath).supergraphSdl
          : supergraphOf(subgraphs.map((s) => ({ name: s.name, url: `in-process://${s.name}`, sdl: serviceSdl(s.schema) })));
      }
      const { gateway, authenticator, hub, documents } = await gatewayParts(runtime, clients, supergraphSdl, limiter, revocations, redis);
      closers.push(async () => {
        hub.close();
        authenticator.close();
        await gateway.stop();
      });
      const routeOptions = { gateway, authenticator, hub, internalSecret: config.internalSecret, logger, limiter, revocations, documents };
      await registerGatewayRoutes(app, routeOptions);
      registerGraphqlSse(app, { ...routeOptions, streams: config.graphqlSseStreams });
      // The facade's hop exists only between separate processes: the embedded default has none.
      if (role === 'gateway') registerInternalGatewayRoutes(internalApp, routeOptions);
      facadeGateway = inProcessGateway(gateway, authenticator);
      const dependencies = [...clients.filter(() => role === 'gateway').map((c) => `subgraph:${c.name}`), ...subgraphs.map((s) => `database:${s.name}`), ...redisChecks];
      ready = async () => ({ supergraph: gateway.loaded(), ...(await health.checkAll(dependencies)) });
      for (const s of subgraphs) await s.start();
    }
    // Not ready while refusing work, so that a balancer sends it elsewhere.
    readiness(app, async () => ({ ...(await ready()), load: !shedder.overloaded() }));
    readiness(internalApp, ready);
    if (role === 'all' || role === 'facade') {
      await registerFacade(app, { gateway: facadeGateway, limiter, publicUrl: config.publicUrl, now, sunsets: config.deprecationSunsets, homeCommunityId: config.tefca.homeCommunityId });
    }
    writeRequestLog = (batch) => facadeGateway.recordRequests(batch);
    // Closed right after the listeners: what they answered last is written while the gateway still runs.
    closers.push(() => requestLog.close());
    // Closed first on shutdown: no new requests, in-flight ones finish, then the parts behind it stop.
    closers.push(() => Promise.all([app.close(), internalApp.close()]));
    return { app, internalApp, logger, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

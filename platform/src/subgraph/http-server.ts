import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { shedLoad, type LoadSheddingSettings } from '../http/load-shedding.js';
import { INTERNAL_PRINCIPAL_HEADER, principalVerifier } from '../auth/internal-token.js';
import { newId } from '../ids.js';
import type { RevocationList } from '../auth/revocations.js';
import type { Subgraph } from './types.js';
import { deferredRequestLogger, type Logger } from '../logging.js';
import { clientErrorHandler, frameworkErrors, requestErrorHandler } from '../http/http-errors.js';
import { refuseDeepJson } from '../http/json-depth.js';
import { traceHttpServer } from '../tracing/http-server.js';

/**
 * A subgraph on its own port (the distributed mode). It answers only requests that carry a
 * principal signed by the gateway: a subgraph is never exposed to callers directly. With
 * `revocations`, a principal whose token, session or OAuth client was revoked is refused too.
 */
export function subgraphHttpServer(
  subgraph: Subgraph,
  internalSecret: string,
  logger: Logger,
  options: {
    revocations?: RevocationList;
    /** Admission control (defaults: no limit); the distributed mode passes config.loadShedding. */
    loadShedding?: LoadSheddingSettings;
    /** Readiness of what the subgraph needs besides its database (Redis for its events). */
    otherChecks?: () => Promise<Record<string, boolean>>;
  } = {},
) {
  const { revocations, otherChecks = async () => ({}) } = options;
  const verifyPrincipal = principalVerifier(internalSecret, revocations);
  // The gateway logs each request; the subgraph logs only what goes wrong.
  const app = Fastify({
    loggerInstance: logger,
    logController: new LogController({ disableRequestLogging: true }),
    // So each request's logger (its reqId) is made only when something is logged.
    childLoggerFactory: (parent, bindings, opts) => deferredRequestLogger(parent as Logger, bindings, opts),
    bodyLimit: 10 * 1024 * 1024,
    frameworkErrors,
    clientErrorHandler,
  });
  app.setErrorHandler(requestErrorHandler);
  traceHttpServer(app as unknown as FastifyInstance, `subgraph:${subgraph.name}`);
  refuseDeepJson(app as unknown as FastifyInstance);
  const shedder = options.loadShedding ? shedLoad(app as unknown as FastifyInstance, options.loadShedding) : undefined;

  app.get('/health', async () => ({ status: 'ok', subgraph: subgraph.name }));
  app.get('/ready', async (_req, reply) => {
    const [database, others] = await Promise.all([subgraph.ready(), otherChecks()]);
    const checks = { [`database:${subgraph.name}`]: database, ...others, ...(shedder ? { load: !shedder.overloaded() } : {}) };
    const ok = Object.values(checks).every(Boolean);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'not_ready', subgraph: subgraph.name, checks });
  });

  app.post<{ Body: { query?: unknown; variables?: unknown; operationName?: unknown } }>('/graphql', async (req, reply) => {
    const token = req.headers[INTERNAL_PRINCIPAL_HEADER];
    if (typeof token !== 'string') {
      return reply.code(401).send({ errors: [{ message: 'Subgraphs accept only requests forwarded by the gateway.', extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    let principal;
    try {
      principal = await verifyPrincipal(token);
    } catch {
      return reply.code(401).send({ errors: [{ message: 'The forwarded principal is invalid, expired or revoked.', extensions: { code: 'UNAUTHENTICATED' } }] });
    }
    const { query, variables, operationName } = req.body ?? {};
    if (typeof query !== 'string') {
      return reply.code(400).send({ errors: [{ message: 'query must be a string', extensions: { code: 'BAD_REQUEST' } }] });
    }
    const requestId = typeof req.headers['x-request-id'] === 'string' ? req.headers['x-request-id'] : newId('req');
    const result = await subgraph.execute(
      {
        query,
        variables: typeof variables === 'object' && variables !== null ? (variables as Record<string, unknown>) : undefined,
        operationName: typeof operationName === 'string' ? operationName : undefined,
      },
      principal,
      requestId,
    );
    return reply.header('content-type', 'application/json; charset=utf-8').send(result);
  });
  return app;
}

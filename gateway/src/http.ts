import { HeaderMap } from '@apollo/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, print, type GraphQLSchema } from 'graphql';
import { authenticateBearer, DomainError, INTERNAL_PRINCIPAL_HEADER, newId, RETRY_AFTER_SECONDS, signPrincipal, verifyPrincipal, type Logger, type Principal, type RateLimiter } from '@svc/platform';
import type { Gateway, GatewayContext } from './gateway.js';
import type { Authenticator } from './authenticate.js';
import { SubscriptionHub, withSubscriptions } from './subscriptions.js';

export interface GatewayHttpOptions {
  gateway: Gateway;
  authenticator: Authenticator;
  hub: SubscriptionHub;
  internalSecret: string;
  logger: Logger;
  /** Counters shared with the REST facade; null when rate limiting is off (SVC_RATE_LIMITS=off). */
  limiter?: RateLimiter | null;
}

function requestIdOf(req: FastifyRequest): string {
  const header = req.headers['x-request-id'];
  return typeof header === 'string' && /^[\w.-]{1,100}$/.test(header) ? header : newId('req');
}

/**
 * Who is calling the gateway: a principal the facade already authenticated, counted and signed
 * (`fromFacade`: its operations are not rate limited again), or the request's own Authorization
 * header, authenticated under the failed-authentication rule and carrying the observed address.
 */
async function principalOf(req: FastifyRequest, options: GatewayHttpOptions, requestId: string): Promise<{ principal: Principal; fromFacade: boolean }> {
  const forwarded = req.headers[INTERNAL_PRINCIPAL_HEADER];
  if (typeof forwarded === 'string') {
    try {
      return { principal: await verifyPrincipal(forwarded, options.internalSecret), fromFacade: true };
    } catch {
      throw new DomainError('UNAUTHENTICATED', 'The forwarded principal is invalid or expired.');
    }
  }
  const authorization = req.headers.authorization;
  const principal = await authenticateBearer(options.limiter ?? null, req.ip, typeof authorization === 'string' ? authorization : undefined, requestId, options.authenticator);
  return { principal: { ...principal, clientAddress: req.ip }, fromFacade: false };
}

function graphqlError(err: unknown): { status: number; body: unknown } {
  const error = err instanceof DomainError ? err : new DomainError('INTERNAL', 'Internal server error');
  return { status: error.status, body: { errors: [{ message: error.message, extensions: { ...error.details, code: error.code, status: error.status } }] } };
}

/** /graphql over HTTP (Apollo's request handling) and WebSocket (graphql-ws), plus principal exchange. */
export async function registerGatewayRoutes(app: FastifyInstance, options: GatewayHttpOptions): Promise<void> {
  const { gateway } = options;

  const handle = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const requestId = requestIdOf(req);
    reply.header('x-request-id', requestId);
    let caller: Awaited<ReturnType<typeof principalOf>>;
    try {
      caller = await principalOf(req, options, requestId);
    } catch (err) {
      if (!(err instanceof DomainError)) options.logger.error({ err, requestId }, 'authentication failed');
      const { status, body } = graphqlError(err);
      if (status === 401) reply.header('www-authenticate', 'Bearer');
      const retryAfter = err instanceof DomainError ? err.details['retry_after'] : undefined;
      if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
      else if (status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.code(status).type('application/json').send(body);
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(key, value);
      else if (Array.isArray(value)) headers.set(key, value.join(', '));
    }
    const response = await gateway.server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: new URL(req.url, 'http://gateway').search, body: req.body },
      context: async (): Promise<GatewayContext> => ({
        principal: caller.principal,
        requestId,
        ...(caller.fromFacade || !options.limiter ? {} : { publicRequest: { clientAddress: req.ip } }),
      }),
    });
    for (const [key, value] of response.headers) reply.header(key, value);
    reply.code(response.status ?? 200);
    if (response.body.kind === 'complete') return reply.send(response.body.string);
    const chunks: string[] = [];
    for await (const chunk of response.body.asyncIterator) chunks.push(chunk);
    return reply.send(chunks.join(''));
  };
  app.post('/graphql', handle);
  app.get('/graphql', handle);

  // The facade's first hop in the distributed mode: authenticate once, then carry a signed principal.
  app.get('/internal/principal', async (req, reply) => {
    const requestId = requestIdOf(req);
    try {
      if ((req.query as Record<string, unknown>)['lookup'] === 'none') {
        // Only what is provable without a database query (the facade asks this for a throttled address).
        const known = await options.authenticator.authenticateWithoutLookup(req.headers.authorization, requestId);
        return { principal: known, token: known ? await signPrincipal(known, options.internalSecret) : null };
      }
      const principal = await options.authenticator.authenticate(req.headers.authorization, requestId);
      return { principal, token: await signPrincipal(principal, options.internalSecret) };
    } catch (err) {
      const { status, body } = graphqlError(err);
      if (status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
      return reply.code(status).send(body);
    }
  });

  attachWebSocket(app, options);
}

/**
 * The peer address of a WebSocket upgrade. X-Forwarded-For is not read here: behind a proxy,
 * anonymous WebSocket operations are counted against the proxy's address.
 */
function socketAddress(request: import('node:http').IncomingMessage): string {
  return request.socket.remoteAddress ?? 'unknown';
}

function attachWebSocket(app: FastifyInstance, options: GatewayHttpOptions): void {
  const wss = new WebSocketServer({ noServer: true });
  const principals = new WeakMap<object, Principal>();
  let schema: GraphQLSchema | undefined;
  const schemaOf = () => (schema ??= withSubscriptions(options.gateway.apiSchema()));

  const server = useServer(
    {
      schema: () => schemaOf(),
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const raw = params['authorization'] ?? params['Authorization'];
        const clientAddress = socketAddress(ctx.extra.request);
        try {
          const principal = await authenticateBearer(options.limiter ?? null, clientAddress, typeof raw === 'string' ? raw : undefined, newId('req'), options.authenticator);
          principals.set(ctx, { ...principal, clientAddress });
          return true;
        } catch {
          return false;
        }
      },
      // The same operation limits as over HTTP, checked before anything runs.
      onSubscribe: (ctx, _id, payload) => {
        const schema = schemaOf();
        const document = options.gateway.guard.parseAndValidate(schema, payload.query);
        if (!('kind' in document)) return [...document];
        const variables = payload.variables ?? null;
        try {
          options.gateway.guard.checkOperation({ schema, document, operationName: payload.operationName, variables, principal: principals.get(ctx)! });
        } catch (err) {
          return [err instanceof GraphQLError ? err : new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL', status: 500 } })];
        }
        return { schema, document, operationName: payload.operationName, variableValues: variables };
      },
      context: (ctx): GatewayContext => {
        const principal = principals.get(ctx)!;
        return { principal, requestId: newId('req'), ...(options.limiter ? { publicRequest: { clientAddress: principal.clientAddress ?? 'unknown' } } : {}) };
      },
      execute: async (args) => {
        const response = await options.gateway.execute(
          { query: print(args.document), variables: (args.variableValues as Record<string, unknown> | undefined) ?? null, operationName: args.operationName ?? null },
          args.contextValue as GatewayContext,
        );
        return response as import('graphql').ExecutionResult;
      },
      subscribe: (args) => options.hub.subscribe(args),
    },
    wss,
  );

  app.server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://gateway').pathname;
    if (path !== '/graphql') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request));
  });
  app.addHook('onClose', async () => {
    await server.dispose();
    wss.close();
  });
}

import { HeaderMap } from '@apollo/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, print, type GraphQLSchema } from 'graphql';
import { DomainError, INTERNAL_PRINCIPAL_HEADER, newId, signPrincipal, verifyPrincipal, type Logger, type Principal } from '@svc/platform';
import type { Gateway, GatewayContext } from './gateway.js';
import type { Authenticator } from './authenticate.js';
import { SubscriptionHub, withSubscriptions } from './subscriptions.js';

export interface GatewayHttpOptions {
  gateway: Gateway;
  authenticator: Authenticator;
  hub: SubscriptionHub;
  internalSecret: string;
  logger: Logger;
}

function requestIdOf(req: FastifyRequest): string {
  const header = req.headers['x-request-id'];
  return typeof header === 'string' && /^[\w.-]{1,100}$/.test(header) ? header : newId('req');
}

/**
 * Who is calling the gateway: a principal the facade already authenticated and signed, or the
 * request's own Authorization header.
 */
async function principalOf(req: FastifyRequest, options: GatewayHttpOptions, requestId: string): Promise<Principal> {
  const forwarded = req.headers[INTERNAL_PRINCIPAL_HEADER];
  if (typeof forwarded === 'string') {
    try {
      return await verifyPrincipal(forwarded, options.internalSecret);
    } catch {
      throw new DomainError('UNAUTHENTICATED', 'The forwarded principal is invalid or expired.');
    }
  }
  const authorization = req.headers.authorization;
  return options.authenticator.authenticate(typeof authorization === 'string' ? authorization : undefined, requestId);
}

function graphqlError(err: unknown): { status: number; body: unknown } {
  const error = err instanceof DomainError ? err : new DomainError('INTERNAL', 'Internal server error');
  return { status: error.status, body: { errors: [{ message: error.message, extensions: { code: error.code, status: error.status } }] } };
}

/** /graphql over HTTP (Apollo's request handling) and WebSocket (graphql-ws), plus principal exchange. */
export async function registerGatewayRoutes(app: FastifyInstance, options: GatewayHttpOptions): Promise<void> {
  const { gateway } = options;

  const handle = async (req: FastifyRequest, reply: import('fastify').FastifyReply) => {
    const requestId = requestIdOf(req);
    reply.header('x-request-id', requestId);
    let principal: Principal;
    try {
      principal = await principalOf(req, options, requestId);
    } catch (err) {
      if (!(err instanceof DomainError)) options.logger.error({ err, requestId }, 'authentication failed');
      const { status, body } = graphqlError(err);
      if (status === 401) reply.header('www-authenticate', 'Bearer');
      return reply.code(status).type('application/json').send(body);
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(key, value);
      else if (Array.isArray(value)) headers.set(key, value.join(', '));
    }
    const response = await gateway.server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search: new URL(req.url, 'http://gateway').search, body: req.body },
      context: async (): Promise<GatewayContext> => ({ principal, requestId }),
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
      const principal = await options.authenticator.authenticate(req.headers.authorization, requestId);
      return { principal, token: await signPrincipal(principal, options.internalSecret) };
    } catch (err) {
      const { status, body } = graphqlError(err);
      return reply.code(status).send(body);
    }
  });

  attachWebSocket(app, options);
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
        try {
          principals.set(ctx, await options.authenticator.authenticate(typeof raw === 'string' ? raw : undefined, newId('req')));
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
      context: (ctx): GatewayContext => ({ principal: principals.get(ctx)!, requestId: newId('req') }),
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

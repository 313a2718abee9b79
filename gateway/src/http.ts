import { HeaderMap } from '@apollo/server';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { print, type GraphQLSchema } from 'graphql';
import type { FastifyReply } from 'fastify';
import { DomainError, INTERNAL_PRINCIPAL_HEADER, newId, RevocationList, type Logger, type Principal } from '@svc/platform';
import type { Gateway, GatewayContext } from './gateway.js';
import type { Authenticator } from './authenticate.js';
import { SubscriptionHub, withSubscriptions } from './subscriptions.js';
import { ConnectionCredentials } from './connection-credentials.js';

export interface GatewayHttpOptions {
  gateway: Gateway;
  authenticator: Authenticator;
  hub: SubscriptionHub;
  internalSecret: string;
  logger: Logger;
  /** The process's revocation list (the authenticator's when omitted). */
  revocations?: RevocationList;
}

export function requestIdOf(req: FastifyRequest): string {
  const header = req.headers['x-request-id'];
  return typeof header === 'string' && /^[\w.-]{1,100}$/.test(header) ? header : newId('req');
}

/**
 * Who is calling the public /graphql: the request's own Authorization header, nothing else. A
 * signed principal is internal plumbing and is refused here, whoever signed it.
 */
async function publicPrincipalOf(req: FastifyRequest, options: GatewayHttpOptions, requestId: string): Promise<Principal> {
  if (req.headers[INTERNAL_PRINCIPAL_HEADER] !== undefined) {
    throw new DomainError('BAD_REQUEST', `The ${INTERNAL_PRINCIPAL_HEADER} header is not accepted here; authenticate with an Authorization: Bearer header.`);
  }
  const authorization = req.headers.authorization;
  return options.authenticator.authenticate(typeof authorization === 'string' ? authorization : undefined, requestId);
}

export function graphqlError(err: unknown): { status: number; body: unknown } {
  const error = err instanceof DomainError ? err : new DomainError('INTERNAL', 'Internal server error');
  return { status: error.status, body: { errors: [{ message: error.message, extensions: { code: error.code, status: error.status } }] } };
}

/** A /graphql HTTP handler (Apollo's request handling) for callers identified by `principalOf`. */
export function graphqlHttpHandler(
  options: Pick<GatewayHttpOptions, 'gateway' | 'logger'>,
  principalOf: (req: FastifyRequest, requestId: string) => Promise<Principal>,
): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const { gateway } = options;
  return async (req, reply) => {
    const requestId = requestIdOf(req);
    reply.header('x-request-id', requestId);
    let principal: Principal;
    try {
      principal = await principalOf(req, requestId);
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
}

/**
 * The public /graphql over HTTP and WebSocket (graphql-ws). Callers authenticate with their own
 * bearer credential; the internal hop lives on the internal listener (see internal-routes.ts).
 */
export async function registerGatewayRoutes(app: FastifyInstance, options: GatewayHttpOptions): Promise<void> {
  const handle = graphqlHttpHandler(options, (req, requestId) => publicPrincipalOf(req, options, requestId));
  app.post('/graphql', handle);
  app.get('/graphql', handle);
  attachWebSocket(app, options);
}

function attachWebSocket(app: FastifyInstance, options: GatewayHttpOptions): void {
  const wss = new WebSocketServer({ noServer: true });
  const principals = new WeakMap<object, Principal>();
  // Each connection lives only as long as its credential: closed at once on revocation, at expiry.
  const credentials = new ConnectionCredentials(options.revocations ?? options.authenticator.revocations);
  const unwatch = new WeakMap<object, () => void>();
  let schema: GraphQLSchema | undefined;
  const schemaOf = () => (schema ??= withSubscriptions(options.gateway.apiSchema()));

  const server = useServer(
    {
      schema: () => schemaOf(),
      onConnect: async (ctx) => {
        const params = ctx.connectionParams ?? {};
        const raw = params['authorization'] ?? params['Authorization'];
        let principal: Principal;
        try {
          principal = await options.authenticator.authenticate(typeof raw === 'string' ? raw : undefined, newId('req'));
        } catch {
          return false;
        }
        principals.set(ctx, principal);
        const socket = ctx.extra.socket;
        unwatch.set(ctx, credentials.watch(principal, (code, reason) => socket.close(code, reason)));
        return true;
      },
      onClose: (ctx) => {
        unwatch.get(ctx)?.();
        unwatch.delete(ctx);
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
    credentials.close();
    await server.dispose();
    wss.close();
  });
}

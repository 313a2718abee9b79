import { HeaderMap } from '@apollo/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, print, type ExecutionResult, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { authenticateBearer, connectionAuthorization, noteRequestPrincipal, DomainError, requestAuthorization, errorDocument, INTERNAL_PRINCIPAL_HEADER, newId, queryCredentialRefusal, writeErrorDocument, RETRY_AFTER_SECONDS, RevocationList, type Logger, type Principal, type RateLimiter } from '@svc/platform';
import type { Gateway, GatewayContext } from './gateway.js';
import type { Authenticator } from './authenticate.js';
import { SubscriptionHub, withSubscriptions } from './subscriptions.js';
import { ConnectionCredentials } from './connection-credentials.js';
import type { DocumentReference, TrustedDocumentPolicy } from './trusted-documents.js';

export interface GatewayHttpOptions {
  gateway: Gateway;
  authenticator: Authenticator;
  hub: SubscriptionHub;
  internalSecret: string;
  logger: Logger;
  /** Counters shared with the REST facade; null when rate limiting is off (SVC_RATE_LIMITS=off). */
  limiter?: RateLimiter | null;
  /** The process's revocation list (the authenticator's when omitted). */
  revocations?: RevocationList;
  /** Trusted documents of the public /graphql (HTTP and WebSocket); the internal hop has none. */
  documents?: TrustedDocumentPolicy;
}

/** Who runs an operation, and whether it came in on the public /graphql (then its twin fields are rate limited). */
export interface Caller {
  principal: Principal;
  publicRequest?: GatewayContext['publicRequest'];
}

export function requestIdOf(req: FastifyRequest): string {
  const header = req.headers['x-request-id'];
  return typeof header === 'string' && /^[\w.-]{1,100}$/.test(header) ? header : newId('req');
}

/**
 * Who is calling the public /graphql: the request's own Authorization header, authenticated under
 * the failed-authentication rule and carrying the observed address, nothing else. A signed principal
 * is internal plumbing and is refused here, whoever signed it.
 */
export async function publicCallerOf(req: FastifyRequest, options: GatewayHttpOptions, requestId: string): Promise<Caller> {
  if (req.headers[INTERNAL_PRINCIPAL_HEADER] !== undefined) {
    throw new DomainError('BAD_REQUEST', `The ${INTERNAL_PRINCIPAL_HEADER} header is not accepted here; authenticate with an Authorization: Bearer header.`);
  }
  // A browser signed in to the portal sends its credential as a cookie, with the CSRF token (portal-cookie.ts).
  const authorization = requestAuthorization(req.method, req.headers, true);
  const principal = await authenticateBearer(options.limiter ?? null, req.ip, authorization, requestId, options.authenticator);
  // The partner's request log attributes the answer to this credential, once it is sent.
  if (principal.kind !== 'anonymous') noteRequestPrincipal(req.raw, principal, requestId);
  return { principal: { ...principal, clientAddress: req.ip }, ...(options.limiter ? { publicRequest: { clientAddress: req.ip } } : {}) };
}

export function graphqlError(err: unknown): { status: number; body: unknown } {
  const error = err instanceof DomainError ? err : new DomainError('INTERNAL', 'Internal server error');
  return { status: error.status, body: { errors: [{ message: error.message, extensions: { ...error.details, code: error.code, status: error.status } }] } };
}

/** Retry-After for a refusal that says when to come back (rate limits) or an outage. */
export function setRetryAfter(reply: FastifyReply, err: unknown, status: number): void {
  const retryAfter = err instanceof DomainError ? err.details['retry_after'] : undefined;
  if (typeof retryAfter === 'number') reply.header('retry-after', String(retryAfter));
  else if (status === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS));
}

/** The document of a GraphQL request over HTTP: the POST body's `query`, or GET's `query` parameter. */
function queryTextOf(method: string, body: unknown, search: string): unknown {
  if (method === 'GET') return new URLSearchParams(search).get('query') ?? undefined;
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['query'] : undefined;
}

/** The raw `?…` part of a request target ('' when there is none). */
function queryStringOf(url: string): string {
  const at = url.indexOf('?');
  return at === -1 || at === url.length - 1 ? '' : url.slice(at);
}

function objectOf(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** GET's `extensions` parameter (JSON), or undefined when absent or not an object (Apollo answers that). */
function parsedExtensions(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return objectOf(JSON.parse(value));
  } catch {
    return undefined;
  }
}

/**
 * The request as Apollo should see it once its document is resolved: a trusted document's id, or its
 * APQ hash, replaced by the document's text (and the APQ extension dropped, so Apollo neither looks it
 * up nor stores it again). Throws the policy's refusal.
 */
function withTrustedDocument(req: FastifyRequest, documents: TrustedDocumentPolicy, principal: Principal): { body: unknown; search: string } {
  if (req.method === 'GET') {
    const url = new URL(req.url, 'http://gateway');
    const params = url.searchParams;
    const extensions = parsedExtensions(params.get('extensions') ?? undefined);
    const reference: DocumentReference = { query: params.get('query') ?? undefined, documentId: params.get('documentId') ?? undefined, persistedQuery: extensions?.['persistedQuery'] };
    const resolution = documents.resolve(reference, principal);
    if (resolution.kind === 'listed') {
      params.delete('documentId');
      params.set('query', resolution.query);
      if (extensions) {
        delete extensions['persistedQuery'];
        params.set('extensions', JSON.stringify(extensions));
      }
    }
    return { body: req.body, search: url.search };
  }
  // A POST's query string is not read by Apollo: passed as it came.
  const search = queryStringOf(req.url);
  const body = objectOf(req.body);
  if (!body) return { body: req.body, search };
  const extensions = objectOf(body['extensions']);
  const resolution = documents.resolve({ query: body['query'], documentId: body['documentId'], persistedQuery: extensions?.['persistedQuery'] }, principal);
  if (resolution.kind !== 'listed') return { body, search };
  const { documentId: _id, ...rest } = body;
  const resolved: Record<string, unknown> = { ...rest, query: resolution.query };
  if (extensions) {
    const { persistedQuery: _apq, ...otherExtensions } = extensions;
    resolved['extensions'] = otherExtensions;
  }
  return { body: resolved, search };
}

/**
 * A /graphql HTTP handler (Apollo's request handling) for callers identified by `callerOf`; with
 * `documents`, requests are resolved and checked against the trusted documents first.
 */
export function graphqlHttpHandler(
  options: Pick<GatewayHttpOptions, 'gateway' | 'logger'>,
  callerOf: (req: FastifyRequest, requestId: string) => Promise<Caller>,
  documents?: TrustedDocumentPolicy,
): (req: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> {
  const { gateway } = options;
  return async (req, reply) => {
    const requestId = requestIdOf(req);
    reply.header('x-request-id', requestId);
    let caller: Caller;
    try {
      caller = await callerOf(req, requestId);
    } catch (err) {
      if (!(err instanceof DomainError)) options.logger.error({ err, requestId }, 'authentication failed');
      const { status, body } = graphqlError(err);
      if (status === 401) reply.header('www-authenticate', 'Bearer');
      setRetryAfter(reply, err, status);
      return reply.code(status).type('application/json').send(body);
    }
    let body: unknown = req.body;
    // Apollo reads the query string of a GET only; a POST's is passed as it came, not parsed.
    let search = req.method === 'GET' ? new URL(req.url, 'http://gateway').search : queryStringOf(req.url);
    if (documents) {
      try {
        ({ body, search } = withTrustedDocument(req, documents, caller.principal));
      } catch (err) {
        const { status, body: refusal } = graphqlError(err);
        return reply.code(status).type('application/json').send(refusal);
      }
    }
    const tooDeep = gateway.guard.nestingRefusal(queryTextOf(req.method, body, search));
    if (tooDeep) return reply.code(400).type('application/json').send({ errors: [tooDeep] });
    const context: GatewayContext = { principal: caller.principal, requestId, answerSizeCheckedOnSend: true, ...(caller.publicRequest ? { publicRequest: caller.publicRequest } : {}) };
    // A POST of a document Apollo has validated before skips its per-request pipeline (fast-path.ts).
    const fast = req.method === 'POST' ? await gateway.fastPath(req.headers, body, context) : null;
    if (fast) {
      for (const [key, value] of fast.headers) reply.header(key, value);
      const refusal = gateway.guard.oversizedAnswer(fast.body);
      if (refusal) return reply.code(refusal.status).send(refusal.body);
      return reply.code(fast.status).send(fast.body);
    }
    const headers = new HeaderMap();
    for (const [key, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers.set(key, value);
      else if (Array.isArray(value)) headers.set(key, value.join(', '));
    }
    const response = await gateway.server.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: req.method.toUpperCase(), headers, search, body },
      context: async (): Promise<GatewayContext> => context,
    });
    for (const [key, value] of response.headers) reply.header(key, value);
    reply.code(response.status ?? 200);
    if (response.body.kind === 'complete') {
      const refusal = gateway.guard.oversizedAnswer(response.body.string);
      if (refusal) return reply.code(refusal.status).send(refusal.body);
      return reply.send(response.body.string);
    }
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
  const handle = graphqlHttpHandler(options, (req, requestId) => publicCallerOf(req, options, requestId), options.documents);
  app.post('/graphql', handle);
  app.get('/graphql', handle);
  attachWebSocket(app, options);
}

/**
 * The peer address of a WebSocket upgrade. X-Forwarded-For is not read here: behind a proxy,
 * anonymous WebSocket operations are counted against the proxy's address.
 */
function socketAddress(request: import('node:http').IncomingMessage): string {
  return request.socket.remoteAddress ?? 'unknown';
}

/**
 * The gateway's answer as graphql-ws sends it: graphql-ws serializes each error with `toJSON()`, which
 * the already formatted errors of Apollo's answer do not have; each is sent exactly as formatted.
 */
export function executionResultOf(response: { data?: Record<string, unknown> | null; errors?: readonly GraphQLFormattedError[] }): ExecutionResult {
  if (!response.errors) return response as ExecutionResult;
  const errors = response.errors.map((formatted) => Object.assign(new GraphQLError(formatted.message), { toJSON: () => formatted }));
  return { ...response, errors } as ExecutionResult;
}

function attachWebSocket(app: FastifyInstance, options: GatewayHttpOptions): void {
  const wss = new WebSocketServer({ noServer: true });
  const principals = new WeakMap<object, Principal>();
  // The connection's credential, to authenticate each new operation again: a portal session's
  // scopes follow its partner's grant, so an operation started after a grant sees the new scopes.
  const authorizations = new WeakMap<object, string | undefined>();
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
        const clientAddress = socketAddress(ctx.extra.request);
        let principal: Principal;
        try {
          // The portal's browser connects with its cookie, Origin and the CSRF token as a connection parameter.
          const raw = connectionAuthorization(params, ctx.extra.request.headers);
          principal = await authenticateBearer(options.limiter ?? null, clientAddress, raw, newId('req'), options.authenticator);
          authorizations.set(ctx, raw);
        } catch {
          return false;
        }
        principals.set(ctx, { ...principal, clientAddress });
        const socket = ctx.extra.socket;
        unwatch.set(ctx, credentials.watch(principal, (code, reason) => socket.close(code, reason)));
        return true;
      },
      onClose: (ctx) => {
        unwatch.get(ctx)?.();
        unwatch.delete(ctx);
      },
      // The same operation limits as over HTTP, checked before anything runs.
      onSubscribe: async (ctx, _id, payload) => {
        try {
          options.documents?.checkText(payload.query, principals.get(ctx)!);
        } catch (err) {
          return [err instanceof DomainError ? new GraphQLError(err.message, { extensions: { ...err.details, code: err.code, status: err.status } }) : new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL', status: 500 } })];
        }
        const schema = schemaOf();
        const document = options.gateway.guard.parseAndValidate(schema, payload.query);
        if (!('kind' in document)) return [...document];
        if (principals.get(ctx)!.kind === 'portal') {
          // Cached by the authenticator (a lookup only after the grant changed or the entry aged).
          const clientAddress = principals.get(ctx)!.clientAddress ?? 'unknown';
          try {
            const fresh = await authenticateBearer(options.limiter ?? null, clientAddress, authorizations.get(ctx), newId('req'), options.authenticator);
            principals.set(ctx, { ...fresh, clientAddress });
          } catch (err) {
            return [err instanceof DomainError ? new GraphQLError(err.message, { extensions: { code: err.code } }) : new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL', status: 500 } })];
          }
        }
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
        return executionResultOf(response);
      },
      subscribe: (args) => options.hub.subscribe(args),
    },
    wss,
  );

  app.server.on('upgrade', (request, socket, head) => {
    // Fastify hooks do not run on upgrades: the query-string credential rule is applied here, with
    // a problem document written before any handshake. The URL itself is never logged.
    const refusal = queryCredentialRefusal(request.url ?? '/');
    if (refusal) {
      const requestId = newId('req');
      const detail = refusal.kind === 'oauth' ? refusal.description : refusal.detail;
      const fieldErrors = refusal.kind === 'oauth' ? [] : refusal.fieldErrors;
      options.logger.info({ requestId, path: (request.url ?? '/').split('?')[0], fields: fieldErrors.map((f) => f.field) }, 'WebSocket upgrade refused: credentials in the query string');
      writeErrorDocument(socket, errorDocument(request.url ?? '/', 'BAD_REQUEST', detail, { requestId, fieldErrors }), requestId);
      socket.end(() => socket.destroy());
      return;
    }
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

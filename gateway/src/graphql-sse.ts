import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GraphQLError, print, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { createHandler, isAsyncIterable, type OperationArgs, type RequestParams } from 'graphql-sse';
import { DomainError, ERROR_STATUS, type ErrorCode } from '@svc/platform';
import type { GatewayContext } from './gateway.js';
import { withSubscriptions } from './subscriptions.js';
import { ConnectionCredentials, CREDENTIAL_CLOSE } from './connection-credentials.js';
import { OpenStreams, type OpenStreamLimits } from './open-streams.js';
import { executionResultOf, graphqlError, publicCallerOf, requestIdOf, setRetryAfter, type Caller, type GatewayHttpOptions } from './http.js';

/** Where GraphQL over Server-Sent Events is served: the path graphql-sse's own documentation uses. */
export const GRAPHQL_SSE_PATH = '/graphql/stream';

const EVENT_STREAM = 'text/event-stream';

/** The operation context graphql-sse hands back to `execute` and `subscribe` (ours is a GatewayContext). */
type SseContext = Record<PropertyKey, unknown>;

/** One open stream: who opened it, and how the server ends it. */
interface OpenStream {
  caller: Caller;
  requestId: string;
  /** Aborted when the stream must end: the client left, its credential ended, the process stops. */
  controller: AbortController;
  /** Why the server ended the stream, sent as its last result before `complete`. */
  endedBecause: GraphQLError | null;
  /** Resolves once the response has ended. */
  closed: Promise<void>;
}

/** How long shutting down waits for ended streams to flush their last events. */
const SHUTDOWN_FLUSH_MS = 2000;

/** Why the server ends a stream, as the typed error the stream's last `next` event carries. */
const ENDINGS = {
  revoked: () => new GraphQLError('The credential of this subscription was revoked; the stream has ended. Do not subscribe again with it.', { extensions: { code: 'UNAUTHENTICATED', status: ERROR_STATUS.UNAUTHENTICATED, reason: 'credential_revoked' } }),
  expired: () => new GraphQLError('The credential of this subscription expired; the stream has ended. Subscribe again with a valid credential, with after: the last event id you received.', { extensions: { code: 'UNAUTHENTICATED', status: ERROR_STATUS.UNAUTHENTICATED, reason: 'credential_expired' } }),
  shutdown: () => new GraphQLError('The gateway is shutting down; subscribe again, with after: the last event id you received.', { extensions: { code: 'NOT_READY', status: ERROR_STATUS.NOT_READY, reason: 'shutting_down' } }),
};

/** Does the request accept an event stream (the graphql-sse client sends exactly `text/event-stream`)? */
function acceptsEventStream(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((range) => range.split(';')[0]!.trim().toLowerCase() === EVENT_STREAM);
}

/** A refusal before any stream starts: the typed error document, with the status of its code. */
function refuse(reply: FastifyReply, code: ErrorCode, message: string, headers: Record<string, string> = {}): FastifyReply {
  const { status, body } = graphqlError(new DomainError(code, message));
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

/** graphql-sse's own refusals (a missing query, a bad body) carry no code: each gets the code of its status. */
function typedLibraryRefusal(status: number, body: string | null): { errors: { message: string; extensions: { code: ErrorCode; status: number } }[] } {
  const code: ErrorCode = status === 405 ? 'METHOD_NOT_ALLOWED' : status === 406 ? 'NOT_ACCEPTABLE' : status === 415 ? 'UNSUPPORTED_MEDIA_TYPE' : status === 409 ? 'CONFLICT' : 'BAD_REQUEST';
  let messages: string[] = [];
  try {
    const parsed = body ? (JSON.parse(body) as { errors?: { message?: unknown }[] }) : {};
    messages = (parsed.errors ?? []).map((e) => String(e.message ?? ''));
  } catch {
    // Not JSON: the status alone says what went wrong.
  }
  if (status === 415) messages = ['Send the operation as GET parameters or as a POST body with Content-Type: application/json.'];
  if (messages.length === 0) messages = [`The request was refused (${status}).`];
  return { errors: messages.map((message) => ({ message, extensions: { code, status } })) };
}

/**
 * The results of a subscription, then, when the server ended it (revocation, expiry, shutdown), one
 * last result saying why; graphql-sse then sends `complete` and closes the response.
 */
async function* endingWithReason(source: AsyncIterable<ExecutionResult>, stream: OpenStream): AsyncGenerator<ExecutionResult> {
  for await (const result of source) yield result;
  if (stream.endedBecause) yield { errors: [stream.endedBecause] };
}

/**
 * GraphQL over Server-Sent Events (the graphql-sse protocol, its "distinct connections" mode) on
 * `/graphql/stream`: one streamed response per operation, for clients behind proxies that do not
 * pass WebSocket upgrades. The same credential rule, operation limits and subscription hub as
 * graphql-ws; each stream ends at once when its credential is revoked, at its expiry, and when the
 * process stops. Open streams are bounded per partner and in all.
 */
export function registerGraphqlSse(app: FastifyInstance, options: GatewayHttpOptions & { streams: OpenStreamLimits }): void {
  const credentials = new ConnectionCredentials(options.revocations ?? options.authenticator.revocations);
  const open = new OpenStreams(options.streams);
  const live = new Set<OpenStream>();
  const byRequest = new WeakMap<object, OpenStream>();
  const byContext = new WeakMap<object, OpenStream>();
  let schema: GraphQLSchema | undefined;
  const schemaOf = () => (schema ??= withSubscriptions(options.gateway.apiSchema()));

  const end = (stream: OpenStream, why: GraphQLError | null) => {
    if (stream.controller.signal.aborted) return;
    stream.endedBecause = why;
    stream.controller.abort();
  };

  const handler = createHandler<FastifyRequest, undefined, SseContext>({
    // No reservation tokens: only the distinct connections mode (see the gateway README).
    authenticate: () => null,
    // The same operation limits as over HTTP and graphql-ws, checked before anything runs. A refusal
    // is the stream's one result, as the protocol asks for errors found before execution.
    onSubscribe: (req, params: RequestParams) => {
      const stream = byRequest.get(req.raw)!;
      const current = schemaOf();
      const document = options.gateway.guard.parseAndValidate(current, params.query);
      if (!('kind' in document)) return { data: null, errors: [...document] };
      const variables = params.variables ?? null;
      try {
        options.gateway.guard.checkOperation({ schema: current, document, operationName: params.operationName, variables, principal: stream.caller.principal });
      } catch (err) {
        return { data: null, errors: [err instanceof GraphQLError ? err : new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL', status: 500 } })] };
      }
      const context: GatewayContext = { principal: stream.caller.principal, requestId: stream.requestId, ...(stream.caller.publicRequest ? { publicRequest: stream.caller.publicRequest } : {}) };
      byContext.set(context, stream);
      const args: OperationArgs<SseContext> = { schema: current, document, operationName: params.operationName, variableValues: variables, contextValue: context as unknown as SseContext };
      return args;
    },
    // Queries and mutations are served too, as the protocol has it: one `next`, then `complete`.
    execute: async (args) => {
      const response = await options.gateway.execute(
        { query: print(args.document), variables: (args.variableValues as Record<string, unknown> | undefined) ?? null, operationName: args.operationName ?? null },
        args.contextValue as unknown as GatewayContext,
      );
      return executionResultOf(response);
    },
    subscribe: (args) => {
      const stream = byContext.get(args.contextValue)!;
      const results = options.hub.subscribe(args, stream.controller.signal);
      return isAsyncIterable<ExecutionResult>(results) ? endingWithReason(results, stream) : results;
    },
  });

  const serve = async (req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
    const requestId = requestIdOf(req);
    reply.header('x-request-id', requestId);
    if (req.method !== 'GET' && req.method !== 'POST') {
      return refuse(reply, 'METHOD_NOT_ALLOWED', `Only the distinct connections mode of GraphQL over SSE is served here: open one stream per operation with GET or POST and Accept: ${EVENT_STREAM}.`, { allow: 'GET, POST' });
    }
    if (!acceptsEventStream(req.headers.accept)) {
      return refuse(reply, 'NOT_ACCEPTABLE', `${GRAPHQL_SSE_PATH} answers only with an event stream: send Accept: ${EVENT_STREAM} (or use POST /graphql).`);
    }
    let caller: Caller;
    try {
      caller = await publicCallerOf(req, options, requestId);
      if (caller.principal.kind === 'anonymous') throw new DomainError('UNAUTHENTICATED', 'A subscription stream needs a credential: send Authorization: Bearer <token>.');
    } catch (err) {
      if (!(err instanceof DomainError)) options.logger.error({ err, requestId }, 'authentication failed');
      const { status, body } = graphqlError(err);
      if (status === 401) reply.header('www-authenticate', 'Bearer');
      setRetryAfter(reply, err, status);
      return reply.code(status).type('application/json; charset=utf-8').send(body);
    }
    let release: () => void;
    try {
      release = open.admit(caller.principal);
    } catch (err) {
      const { status, body } = graphqlError(err);
      setRetryAfter(reply, err, status);
      return reply.code(status).type('application/json; charset=utf-8').send(body);
    }
    let closed!: () => void;
    const stream: OpenStream = { caller, requestId, controller: new AbortController(), endedBecause: null, closed: new Promise<void>((resolve) => (closed = resolve)) };
    byRequest.set(req, stream);
    live.add(stream);
    const unwatch = credentials.watch(caller.principal, (code) => end(stream, code === CREDENTIAL_CLOSE.expired.code ? ENDINGS.expired() : ENDINGS.revoked()));
    // However the response ends (answered, refused, the client gone), its place and its watch are given back.
    reply.raw.once('close', () => {
      end(stream, null);
      unwatch();
      release();
      live.delete(stream);
      closed();
    });

    const [body, init] = await handler({
      method: req.method,
      url: req.url,
      headers: {
        get: (key) => {
          if (key.toLowerCase() === 'accept') return EVENT_STREAM;
          const value = req.headers[key.toLowerCase()];
          return Array.isArray(value) ? value.join(', ') : (value ?? null);
        },
      },
      body: (req.body as Record<PropertyKey, unknown> | string | undefined) ?? null,
      raw: req,
      context: undefined,
    });
    if (body === null || typeof body === 'string') {
      return reply.code(init.status).type('application/json; charset=utf-8').send(typedLibraryRefusal(init.status, body));
    }
    // No buffering on the way (nginx reads X-Accel-Buffering; no-transform keeps proxies from
    // compressing), no caching; graphql-sse writes a comment every 12 s to keep the stream open.
    return reply
      .code(init.status)
      .headers({ 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no', connection: 'close' })
      .send(Readable.from(body, { objectMode: false }));
  };

  app.route({ method: ['GET', 'POST', 'PUT', 'DELETE'], url: GRAPHQL_SSE_PATH, handler: serve });
  // Open streams would hold the listener's close forever: each ends first, saying why, and is
  // waited for (briefly), so that its connection is idle when the listener closes idle connections.
  app.addHook('preClose', async () => {
    const ending = [...live];
    for (const stream of ending) end(stream, ENDINGS.shutdown());
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, SHUTDOWN_FLUSH_MS)));
    await Promise.race([Promise.all(ending.map((s) => s.closed)), bound]);
    clearTimeout(timer);
  });
  app.addHook('onClose', async () => credentials.close());
}

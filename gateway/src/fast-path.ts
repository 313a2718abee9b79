import { createRequire } from 'node:module';
import type { IncomingHttpHeaders } from 'node:http';
import { pathToFileURL } from 'node:url';
import { HeaderMap } from '@apollo/server';
import type { GatewayExecutor, GatewayGraphQLRequestContext } from '@apollo/server-gateway-interface';
import type { KeyValueCache } from '@apollo/utils.keyvaluecache';
import { GraphQLError, Kind, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import { RETRY_AFTER_SECONDS, type Logger } from '@svc/platform';
import type { GatewayContext } from './gateway.js';
import type { OperationGuard } from './operation-guard.js';
import type { ValidatedDocuments } from './validated-documents.js';

/**
 * What the gateway's extra Apollo Server plugins (graphql-rate-limit.ts) say about a request on the
 * fast path: true when the plugin would do nothing for it (then the fast path may skip its hooks);
 * false sends the request through Apollo's pipeline, where the plugin runs as always.
 */
export type FastPathAdmission = (input: { schema: GraphQLSchema; document: DocumentNode; operation: OperationDefinitionNode; variables: Record<string, unknown>; context: GatewayContext }) => boolean;

/** A plugin that can tell when the fast path may skip its hooks. */
export interface FastPathAware {
  fastPathAdmits: FastPathAdmission;
}

/** The HTTP answer of the fast path, as Apollo's `executeHTTPGraphQLRequest` would have given it. */
export interface FastAnswer {
  status: number;
  headers: [string, string][];
  body: string;
}

type NormalizeAndFormatErrors = (
  errors: readonly unknown[],
  options: { formatError?: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError; includeStacktraceInErrorResponses?: boolean },
) => { formattedErrors: GraphQLFormattedError[]; httpFromErrors: { status?: number; headers: Map<string, string> } };
type UserInputErrorClass = new (error: GraphQLError) => GraphQLError;

/** The pieces of Apollo Server's own pipeline the fast path reuses, so that errors come out exactly as Apollo formats them. */
export interface ApolloInternals {
  normalizeAndFormatErrors: NormalizeAndFormatErrors;
  UserInputError: UserInputErrorClass;
}

/**
 * Apollo Server's error normalization and its BAD_USER_INPUT class, from the ESM build the gateway
 * runs (the same module instances as `@apollo/server`'s, so its `instanceof` checks hold). Null
 * when this Apollo Server no longer has them: the gateway then runs every request through its pipeline.
 */
export async function loadApolloInternals(): Promise<ApolloInternals | null> {
  try {
    const cjsIndex = createRequire(import.meta.url).resolve('@apollo/server');
    const esmDir = cjsIndex.replace(/[\\/]cjs[\\/]index\.js$/, '/esm/');
    if (esmDir === cjsIndex) return null;
    const errors = (await import(pathToFileURL(`${esmDir}errorNormalize.js`).href)) as { normalizeAndFormatErrors?: unknown };
    const classes = (await import(pathToFileURL(`${esmDir}internalErrorClasses.js`).href)) as { UserInputError?: unknown };
    if (typeof errors.normalizeAndFormatErrors !== 'function' || typeof classes.UserInputError !== 'function') return null;
    return { normalizeAndFormatErrors: errors.normalizeAndFormatErrors as NormalizeAndFormatErrors, UserInputError: classes.UserInputError as UserInputErrorClass };
  } catch {
    return null;
  }
}

/** A POST body the fast path can take: exactly what Apollo would read, nothing it would refuse or treat specially. */
interface PlainRequest {
  query: string;
  operationName: string | undefined;
  variables: Record<string, unknown> | undefined;
  extensions: Record<string, unknown> | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

const BODY_KEYS = new Set(['query', 'operationName', 'variables', 'extensions']);

function plainRequestOf(body: unknown): PlainRequest | null {
  if (!isRecord(body)) return null;
  for (const key in body) if (!BODY_KEYS.has(key)) return null;
  const { query, operationName, variables, extensions } = body;
  if (typeof query !== 'string' || query === '') return null;
  if (operationName !== undefined && operationName !== null && typeof operationName !== 'string') return null;
  if (variables !== undefined && variables !== null && !isRecord(variables)) return null;
  // An APQ extension (or any other) takes Apollo's pipeline: it registers or looks up texts.
  if (extensions !== undefined && extensions !== null && (!isRecord(extensions) || Object.keys(extensions).length > 0)) return null;
  return {
    query,
    operationName: typeof operationName === 'string' ? operationName : undefined,
    variables: isRecord(variables) ? variables : undefined,
    extensions: isRecord(extensions) ? extensions : undefined,
  };
}

/** `application/json`, with or without `charset=utf-8`: what Apollo reads as JSON without a second look. */
const JSON_CONTENT_TYPE = /^application\/json(?:;\s*charset=utf-8)?$/i;
/** Accept headers for which Apollo answers `application/json; charset=utf-8` (no negotiation needed). */
const PLAIN_ACCEPT = new Set(['*/*', 'application/json', 'application/json, */*', 'application/json; charset=utf-8']);
const JSON_UTF8 = 'application/json; charset=utf-8';

function plainHeaders(headers: IncomingHttpHeaders): boolean {
  const contentType = headers['content-type'];
  if (typeof contentType !== 'string' || !JSON_CONTENT_TYPE.test(contentType)) return false;
  const accept = headers['accept'];
  if (accept !== undefined && !PLAIN_ACCEPT.has(accept.toLowerCase())) return false;
  // Apollo answers this header (outside production) with the query plan in `extensions`.
  return headers['apollo-query-plan-experimental'] === undefined;
}

/** Whether only an outage kept the operation from running (gateway.ts's outage status, repeated here to avoid a cycle). */
type OutageTest = (result: { data?: Record<string, unknown> | null; errors?: readonly GraphQLFormattedError[] }) => boolean;

/**
 * The gateway's fast path for a POST whose document Apollo Server has already parsed and
 * validated (validated-documents.ts): the request goes straight to Apollo's gateway executor (query
 * plan cache, execution, Apollo's own spans) without Apollo Server's per-request pipeline (the
 * body checks of runHttpQuery, the SHA-256 of the text, the document-store lookup, the plugins'
 * promise chains, content negotiation, the HeaderMap of every request header). What that pipeline
 * does for such a request is done here, in its order, with the same code where it matters:
 *
 * 1. the operation limits and the cost budget (`OperationGuard.checkOperation`, the guard plugin's
 *    `didResolveOperation`), and every extra plugin's say (`FastPathAware`): a refusal, or a
 *    plugin that has work to do (a rate-limited field), sends the request back to Apollo's pipeline,
 *    which refuses it or counts it exactly as before (nothing ran yet, nothing is done twice);
 * 2. the gateway executor, with the request context Apollo would build;
 * 3. errors through Apollo's own `normalizeAndFormatErrors` and the gateway's `formatError`,
 *    BAD_USER_INPUT for variable coercion errors and status 400 when no data came back, as Apollo;
 * 4. the `willSendResponse` hooks: the outage status (503, Retry-After, no `data`),
 *    `cache-control: no-store` (Apollo's cache-control plugin: our subgraph clients give no hints);
 *    the size cap stays with the HTTP handler, which checks the string either way;
 * 5. the body as Apollo serializes it (`errors`, `data`, `extensions`, then a newline).
 *
 * Anything else (GET, other content types or Accept headers, APQ, unknown texts, @defer, a
 * subscription, the query-plan header) returns null and takes Apollo's pipeline. Test:
 * test/gateway-fast-path.test.ts compares both paths' answers byte for byte.
 */
export class FastPath {
  constructor(
    private readonly options: {
      documents: ValidatedDocuments;
      guard: OperationGuard;
      schema: () => GraphQLSchema | undefined;
      executor: GatewayExecutor;
      admissions: readonly FastPathAdmission[];
      internals: ApolloInternals;
      logger: Logger;
      cache: KeyValueCache<string>;
      failedOnlyForOutage: OutageTest;
      formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
      /** Counted once per request answered here. */
      onAnswer?: () => void;
    },
  ) {}

  private stopped = false;

  stop(): void {
    this.stopped = true;
  }

  /** The answer, or null when the request must take Apollo's pipeline (nothing has run then). */
  async run(headers: IncomingHttpHeaders, body: unknown, context: GatewayContext): Promise<FastAnswer | null> {
    const schema = this.options.schema();
    if (this.stopped || !schema) return null;
    const request = plainRequestOf(body);
    if (!request || !plainHeaders(headers)) return null;
    const known = this.options.documents.lookup(schema, request.query);
    if (!known || known.incremental) return null;
    const operation = known.operation(request.operationName);
    if (!operation || operation.operation === 'subscription') return null;
    const { document } = known;
    try {
      this.options.guard.checkOperation({ schema, document, operationName: operation.name?.value ?? null, variables: request.variables, principal: context.principal });
    } catch {
      return null;
    }
    const variables = request.variables ?? {};
    for (const admits of this.options.admissions) if (!admits({ schema, document, operation, variables, context })) return null;

    const http = { status: undefined as number | undefined, headers: new HeaderMap() };
    const gatewayRequest: GatewayGraphQLRequestContext['request'] = { query: request.query };
    if (request.operationName !== undefined) gatewayRequest.operationName = request.operationName;
    if (request.variables !== undefined) gatewayRequest.variables = request.variables;
    if (request.extensions !== undefined) gatewayRequest.extensions = request.extensions;
    const requestContext: GatewayGraphQLRequestContext = {
      request: gatewayRequest,
      logger: this.options.logger,
      schema,
      schemaHash: 'schemaHash no longer exists since Apollo Server 4' as GatewayGraphQLRequestContext['schemaHash'],
      context,
      cache: this.options.cache,
      queryHash: known.queryHash,
      document,
      source: request.query,
      operationName: operation.name?.value ?? null,
      operation,
      metrics: {},
      debug: false,
      overallCachePolicy: NO_CACHE_HINTS,
      requestIsBatched: false,
    };
    this.options.onAnswer?.();
    let singleResult: { errors?: GraphQLFormattedError[]; data?: Record<string, unknown> | null; extensions?: Record<string, unknown> };
    try {
      const result = await this.options.executor(requestContext);
      const resultErrors = result.errors?.map((e) => (isBadUserInputGraphQLError(e) && e.extensions?.['code'] == null ? new this.options.internals.UserInputError(e) : e));
      let errors: GraphQLFormattedError[] | undefined;
      if (resultErrors) {
        const formatted = this.format(resultErrors);
        errors = formatted.formattedErrors;
        if (resultErrors.length && result.data === undefined && !formatted.httpFromErrors.status) formatted.httpFromErrors.status = 400;
        mergeHead(http, formatted.httpFromErrors);
      }
      singleResult = { ...(result as { data?: Record<string, unknown> | null; extensions?: Record<string, unknown> }), errors };
    } catch (err) {
      // As Apollo's `sendErrorResponse` after an executor that threw.
      const error = err instanceof Error ? err : new GraphQLError(`Unexpected error value: ${String(err)}`);
      const formatted = this.format([error instanceof GraphQLError ? error : new GraphQLError(error.message, { originalError: error })]);
      singleResult = { errors: formatted.formattedErrors };
      mergeHead(http, formatted.httpFromErrors);
      if (!http.status) http.status = 500;
    }
    // willSendResponse: the outage status (gateway.ts), then the cache-control header.
    if (this.options.failedOnlyForOutage(singleResult)) {
      delete singleResult.data;
      http.status = 503;
      http.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
    }
    if (!http.headers.has('cache-control')) http.headers.set('cache-control', 'no-store');
    if (!http.headers.has('content-type')) http.headers.set('content-type', JSON_UTF8);
    const ordered = { errors: singleResult.errors, data: singleResult.data, extensions: singleResult.extensions };
    return { status: http.status ?? 200, headers: [...http.headers], body: `${JSON.stringify(ordered)}\n` };
  }

  private format(errors: readonly unknown[]) {
    return this.options.internals.normalizeAndFormatErrors(errors, { formatError: this.options.formatError, includeStacktraceInErrorResponses: false });
  }
}

/** Apollo Server's test for a variable coercion error (requestPipeline.js), which it answers as BAD_USER_INPUT. */
function isBadUserInputGraphQLError(error: GraphQLError): boolean {
  const node = error.nodes?.length === 1 ? error.nodes[0] : undefined;
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return false;
  const name = node.variable.name.value;
  return (
    error.message.startsWith(`Variable "$${name}" has invalid value`) ||
    error.message.startsWith(`Variable "$${name}" got invalid value `) ||
    error.message.startsWith(`Variable "$${name}" of required type `) ||
    error.message.startsWith(`Variable "$${name}" of non-null type `)
  );
}

function mergeHead(target: { status: number | undefined; headers: HeaderMap }, source: { status?: number; headers: Map<string, string> }): void {
  if (source.status) target.status = source.status;
  for (const [name, value] of source.headers) target.headers.set(name, value);
}

/**
 * The request's overall cache policy, as the executor sees it. Our subgraph clients never give
 * cache hints (only Apollo's RemoteGraphQLDataSource reads a subgraph's Cache-Control), so it
 * stays uncacheable, and Apollo's cache-control plugin answers `no-store`; a hint would be a
 * change this path does not follow, so one is refused loudly instead of ignored.
 */
const NO_CACHE_HINTS = {
  restrict(): void {
    throw new Error('The gateway fast path does not follow cache hints.');
  },
  replace(): void {
    throw new Error('The gateway fast path does not follow cache hints.');
  },
  policyIfCacheable: () => null,
};

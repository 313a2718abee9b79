import { HeaderMap, type ApolloServerPlugin } from '@apollo/server';
import { GraphQLError, specifiedRules, validate, type DocumentNode, type GraphQLFormattedError, type GraphQLSchema, type ValidationRule } from 'graphql';
import {
  checkOperationCost,
  documentNestedDeeperThan,
  DomainError,
  ERROR_STATUS,
  fieldOwnership,
  isErrorCode,
  isIntrospection,
  isOperationLimitCode,
  MAX_DOCUMENT_NESTING,
  nestingLimitError,
  operationLimitError,
  operationLimitRules,
  parseBounded,
  principalClass,
  tokenLimitError,
  tokenLimitExceeded,
  withoutSuggestions,
  type Environment,
  type FieldOwnership,
  type OperationLimits,
  type Principal,
} from '@svc/platform';
import type { GatewayContext } from './gateway.js';

export interface OperationGuardOptions {
  limits: OperationLimits;
  environment: Environment;
  /** The composed supergraph: which subgraph resolves which field, for the cost model. */
  supergraphSdl: string;
}

/** Checks passed, per document, that need not run again (checkOperation); at most this many per document. */
const PASSED_PER_DOCUMENT = 64;
/** Variables longer than this as JSON (in characters, roughly) are checked every time, never kept. */
const PASSED_VARIABLES_MAX = 1_024;
const TOO_LONG = Symbol('too long');

/** The variables as JSON when short enough to keep as part of a key, else undefined. */
function variablesKey(variables: Readonly<Record<string, unknown>> | null | undefined): string | undefined {
  if (!variables) return '';
  let budget = PASSED_VARIABLES_MAX;
  try {
    return JSON.stringify(variables, (key: string, value: unknown) => {
      budget -= key.length + (typeof value === 'string' ? value.length : 8);
      if (budget < 0) throw TOO_LONG;
      return value;
    });
  } catch {
    return undefined;
  }
}

/**
 * Everything the gateway checks about an operation before a subgraph is called, in one place for
 * every entry (HTTP, WebSocket, the in-process `execute` of the REST facade):
 *
 * - the nesting limit on the text before parsing, the token limit at parse time, and depth / alias /
 *   directive limits as validation rules;
 * - the page-size maxima and the cost budget of the caller's principal class, once the operation
 *   and its variables are known;
 * - in production, no introspection for anonymous callers;
 * - after execution, the response-size cap.
 */
export class OperationGuard {
  readonly rules: readonly ValidationRule[];
  private readonly ownership: FieldOwnership;
  /**
   * The checks an operation passed, by schema and parsed document (Apollo keeps one parsed document
   * per query text): the same document with the same operation name, short variables and principal
   * class passes again without its cost being counted again.
   */
  private readonly passed = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Set<string>>>();

  constructor(private readonly options: OperationGuardOptions) {
    this.rules = operationLimitRules(options.limits);
    this.ownership = fieldOwnership(options.supergraphSdl);
  }

  get limits(): OperationLimits {
    return this.options.limits;
  }

  /** Refuse (throw a GraphQL error with a code) what the caller may not run; the document is valid. */
  checkOperation(input: { schema: GraphQLSchema; document: DocumentNode; operationName?: string | null | undefined; variables?: Readonly<Record<string, unknown>> | null | undefined; principal: Principal }): void {
    const variables = variablesKey(input.variables);
    if (variables === undefined) return this.check(input);
    const key = `${principalClass(input.principal)}\u0000${input.operationName ?? ''}\u0000${variables}`;
    let byDocument = this.passed.get(input.schema);
    if (!byDocument) this.passed.set(input.schema, (byDocument = new WeakMap()));
    let passed = byDocument.get(input.document);
    if (passed?.has(key)) return;
    this.check(input);
    if (!passed) byDocument.set(input.document, (passed = new Set()));
    if (passed.size >= PASSED_PER_DOCUMENT) passed.clear();
    passed.add(key);
  }

  private check(input: Parameters<OperationGuard['checkOperation']>[0]): void {
    if (this.options.environment === 'production' && input.principal.kind === 'anonymous' && isIntrospection(input.document, input.operationName)) {
      throw new GraphQLError('Introspection needs credentials in production: send a bearer token.', {
        extensions: { code: 'UNAUTHENTICATED', status: ERROR_STATUS.UNAUTHENTICATED },
      });
    }
    checkOperationCost({
      schema: input.schema,
      document: input.document,
      operationName: input.operationName,
      variables: input.variables,
      ownership: this.ownership,
      maxPageSize: this.options.limits.maxPageSize,
      principal: input.principal,
      budget: this.options.limits.costBudget,
    });
  }

  /**
   * Parse and validate a document outside Apollo's pipeline (graphql-ws), with the same limits.
   * Returns the document, or the errors to send.
   */
  parseAndValidate(schema: GraphQLSchema, query: string): DocumentNode | readonly GraphQLError[] {
    let document: DocumentNode;
    try {
      document = parseBounded(query, this.options.limits);
    } catch (err) {
      return [err instanceof GraphQLError ? err : new GraphQLError(String(err))];
    }
    const errors = validate(schema, document, [...specifiedRules, ...this.rules]);
    if (errors.length > 0) return errors.map((e) => (this.options.environment === 'production' ? new GraphQLError(withoutSuggestions(e.message), { nodes: e.nodes, extensions: e.extensions }) : e));
    return document;
  }

  /**
   * The refusal of a document nested too deep to parse safely, or null. Apollo parses before any
   * plugin can answer, so its two entries (the HTTP handler and `execute`) ask this first.
   */
  nestingRefusal(query: unknown): GraphQLFormattedError | null {
    return typeof query === 'string' && documentNestedDeeperThan(query, MAX_DOCUMENT_NESTING) ? nestingLimitError().toJSON() : null;
  }

  /** The Apollo Server plugin: checks after the operation is resolved, the size cap before sending. */
  plugin(): ApolloServerPlugin<GatewayContext> {
    const guard = this;
    return {
      async requestDidStart() {
        return {
          async didResolveOperation({ document, operationName, request, schema, contextValue }) {
            try {
              guard.checkOperation({ schema, document, operationName, variables: request.variables, principal: contextValue.principal });
            } catch (err) {
              throw withHttpStatus(err);
            }
          },
          async willSendResponse({ response, contextValue }) {
            // The HTTP handler measures the string Apollo sends instead (oversizedAnswer): no second serialization.
            if (response.body.kind !== 'single' || contextValue.answerSizeCheckedOnSend) return;
            const bytes = Buffer.byteLength(JSON.stringify(response.body.singleResult));
            if (bytes <= guard.limits.maxResponseBytes) return;
            response.body.singleResult = guard.answerTooLarge();
            response.http.status = ERROR_STATUS.RESPONSE_TOO_LARGE;
          },
        };
      },
    };
  }

  private answerTooLarge(): { errors: GraphQLFormattedError[] } {
    const maxBytes = this.options.limits.maxResponseBytes;
    return { errors: [operationLimitError('RESPONSE_TOO_LARGE', `The answer would be larger than ${maxBytes} bytes; ask for smaller pages or fewer fields.`, { limit: maxBytes }).toJSON()] };
  }

  /**
   * The response-size cap on an answer already serialized (the HTTP handler's): the refusal to send
   * instead, or null when it fits. Measuring the string Apollo produced saves serializing every
   * answer twice, which the gateway's CPU profile showed at about 3% of its time.
   */
  oversizedAnswer(body: string): { status: number; body: string } | null {
    const maxBytes = this.options.limits.maxResponseBytes;
    // A UTF-8 byte is at least a third of a UTF-16 code unit: short strings need no byte count.
    if (body.length * 3 <= maxBytes || Buffer.byteLength(body) <= maxBytes) return null;
    return { status: ERROR_STATUS.RESPONSE_TOO_LARGE, body: `${JSON.stringify(this.answerTooLarge())}\n` };
  }

  /**
   * Apollo's formatError: limit refusals keep their own code (Apollo labels every validation error
   * GRAPHQL_VALIDATION_FAILED); errors never name a subgraph or show internals; in production,
   * validation messages do not suggest field names.
   */
  formatError(formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError {
    return formatGatewayError(formatted, error, this.options);
  }
}

/**
 * Codes of Apollo Server about the caller's request: their messages describe the caller's document.
 * QUERY_PLANNING_FAILED is the patched query planner's (patches/): a selection no subgraph can resolve
 * from where it is selected, named as the caller wrote it.
 */
const REQUEST_ERROR_CODES = new Set(['GRAPHQL_PARSE_FAILED', 'GRAPHQL_VALIDATION_FAILED', 'BAD_USER_INPUT', 'BAD_REQUEST', 'OPERATION_RESOLUTION_FAILURE', 'PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_NOT_SUPPORTED', 'QUERY_PLANNING_FAILED']);
/** Extensions that describe the federation's insides rather than the caller's request. */
const INTERNAL_EXTENSIONS = ['serviceName', 'stacktrace', 'exception'];
const UNAVAILABLE_MESSAGE = 'A service this operation needs is unavailable; try again shortly.';

export function formatGatewayError(formatted: GraphQLFormattedError, error: unknown, options: Pick<OperationGuardOptions, 'environment' | 'limits'>): GraphQLFormattedError {
  const original = error instanceof GraphQLError ? error.originalError : undefined;
  if (original instanceof GraphQLError && isOperationLimitCode(original.extensions['code'])) {
    return { ...formatted, message: original.message, extensions: { ...original.extensions } };
  }
  if (formatted.extensions?.['code'] === 'GRAPHQL_PARSE_FAILED' && tokenLimitExceeded(formatted)) {
    const refusal = tokenLimitError(options.limits);
    return { message: refusal.message, extensions: { ...refusal.extensions } };
  }
  const extensions: Record<string, unknown> = { ...formatted.extensions };
  for (const key of INTERNAL_EXTENSIONS) delete extensions[key];
  const code = extensions['code'];
  let message = formatted.message;
  if (code === 'UPSTREAM_UNAVAILABLE') message = UNAVAILABLE_MESSAGE;
  else if (code === 'INTERNAL' || typeof code !== 'string' || (!isErrorCode(code) && !REQUEST_ERROR_CODES.has(code))) message = 'Internal server error';
  if (options.environment === 'production') message = withoutSuggestions(message);
  return { ...formatted, message, extensions };
}

/** Apollo takes an error's HTTP status from `extensions.http`; ours is in `extensions.status`. */
function withHttpStatus(err: unknown): GraphQLError {
  const error = err instanceof GraphQLError ? err : err instanceof DomainError ? new GraphQLError(err.message, { extensions: { code: err.code, status: err.status } }) : new GraphQLError('Internal server error', { extensions: { code: 'INTERNAL', status: 500 } });
  const status = typeof error.extensions['status'] === 'number' ? error.extensions['status'] : 400;
  const headers = new HeaderMap();
  if (status === 401) headers.set('www-authenticate', 'Bearer');
  return new GraphQLError(error.message, { extensions: { ...error.extensions, http: { status, headers } } });
}

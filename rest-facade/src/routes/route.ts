import type { CapabilityId, Principal, Product, RateLimit } from '@svc/platform';

/** Products and limits are declared in platform (rate-limit/capabilities.ts), shared with the gateway. */
export type { Product, RateLimit };

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/**
 * Credential classes of the spec: none (public), bearer (API token, OAuth access token or portal
 * session), service (an OAuth client_credentials access token carrying the route's scope, or a
 * platform-operated service credential; partner API tokens and portal sessions are refused).
 */
export type AuthClass = 'none' | 'bearer' | 'service';

export interface Deprecation {
  /** ISO date of the announcement. */
  since: string;
  /** ISO date after which the route answers 410 Gone. */
  sunset: string;
  successors: { method: HttpMethod; path: string }[];
}

/** What a handler knows of the HTTP request. */
export interface RouteInput {
  params: Record<string, string>;
  query: Record<string, string | string[] | undefined>;
  body: unknown;
  /** The JSON body's text as received (JSON media types only), for routes that must keep it exact. */
  rawBody?: string;
  headers: Record<string, string | string[] | undefined>;
  principal: Principal;
  /** The client's address (the leftmost X-Forwarded-For entry behind a proxy, else the peer). */
  clientIp?: string;
  /** Our TEFCA home community id (config), for routes that answer for it or forward elsewhere. */
  homeCommunityId?: string;
  /**
   * Whether cookies set in the answer are `Secure`: SVC_PUBLIC_URL is https, or the request came over
   * https (TLS, or X-Forwarded-Proto from a proxy SVC_TRUST_PROXY trusts); platform `portalCookieSecure`.
   */
  secureCookies: boolean;
}

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** What a route answers on success: its body, and optionally headers and a media type of its own. */
export interface RouteResult {
  body: unknown;
  headers?: Record<string, string>;
  contentType?: string;
  /** Overrides the route's successStatus (e.g. 200 instead of 201 for an idempotent replay). */
  status?: number;
}

/** How a route runs: one gateway operation, with its input and output mapping. */
export interface GatewayOperation {
  /** The GraphQL document, or a choice of document by principal (operators see more) or by input. */
  document: string | ((principal: Principal, input: RouteInput) => string);
  /**
   * When `document` is a choice: every document it may choose. The check that each GraphQL field a
   * partner can call has a route (test/rest-graphql-coverage.test.ts) reads the fields from them.
   */
  documents?: readonly string[];
  /** Variables from the request; throws a DomainError on bad input. */
  variables?(input: RouteInput): Record<string, unknown>;
  /** The response body from the operation's data; throws a DomainError (e.g. NOT_FOUND). */
  result(data: Record<string, unknown>, input: RouteInput): unknown;
  /** Build the whole answer instead of a JSON body (other media types, headers). */
  respond?(data: Record<string, unknown>, input: RouteInput): RouteResult;
  /**
   * Public routes only: run the operation as the facade's own anonymous principal
   * (FACADE_PRINCIPAL), so the subgraph may trust what the facade reports in the variables, such
   * as the client address. It grants nothing else.
   */
  asFacade?: boolean;
}

/** A route the facade answers itself from the route table (catalog, OpenAPI, changelog). */
export interface LocalOperation {
  local(input: RouteInput, context: LocalContext): RouteResult | Promise<RouteResult>;
  /** The gateway documents `local` runs through `context.execute`, if any (for the same check). */
  documents?: readonly string[];
}

/** What a local operation may use besides its input. */
export interface LocalContext {
  publicUrl: string;
  routes: readonly RouteSpec[];
  /** Run a gateway operation as the request's principal; errors are thrown as DomainErrors. */
  execute(document: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>>;
}

/** One documented HTTP path: the single source for the router, the catalog and OpenAPI. */
export interface RouteSpec {
  id: string;
  method: HttpMethod;
  /** The documented path, with `{param}` placeholders. */
  path: string;
  product: Product;
  summary: string;
  auth: AuthClass;
  /** The principal needs at least one of these scopes (empty: any authenticated principal). */
  scopes: readonly string[];
  /**
   * The capability the route serves (platform's CAPABILITIES): its limit and counter are shared with
   * the route's GraphQL twin. Spread `...capabilityRoute(id)` to set it with its product and limit.
   */
  capability?: CapabilityId;
  /** Per-subject limit; from the capability when the route has one, else its own. */
  rateLimit?: RateLimit;
  successStatus: 200 | 201 | 202 | 204;
  /** The spec's published latency pair, for the catalog. */
  latency?: readonly [string, string];
  /** Response media type; FHIR routes answer application/fhir+json and OperationOutcome errors. */
  format?: 'json' | 'fhir';
  deprecated?: Deprecation;
  /** How the route is served: a gateway operation, or a local one (OAuth, static documents). */
  operation: GatewayOperation | LocalOperation;
  /**
   * The size and complexity limits of the route's body (platform's payload-limits.ts), one sentence
   * each: the OpenAPI description lists them and documents their 413.
   */
  payloadLimits?: readonly string[];
  /**
   * Bytes of body the route reads at most, and the name of that limit (Fastify's bodyLimit; default
   * the app's 5 MiB): a larger body is 413 PAYLOAD_TOO_LARGE naming the limit, before it is read.
   */
  bodyLimit?: { bytes: number; name: string };
  /** For OpenAPI: the request body, query parameters and success body. */
  requestBody?: JsonSchema;
  queryParameters?: Record<string, { schema: JsonSchema; description: string; required?: boolean }>;
  /** For OpenAPI: request headers the route reads besides the credential (e.g. an applicant's resume token). */
  headerParameters?: Record<string, { schema: JsonSchema; description: string; required?: boolean }>;
  /** For OpenAPI: what a `{param}` of the path may be (default: any string). */
  pathParameters?: Record<string, { schema: JsonSchema; description: string }>;
  responseBody?: JsonSchema;
  /**
   * Further media types the request body may be sent in and the success body asked for (Accept),
   * each with its schema, beside the main ones (e.g. application/edi-x12 for the clearinghouse).
   */
  alternateMediaTypes?: { request?: Record<string, JsonSchema>; response?: Record<string, JsonSchema> };
  /** Success media type when not JSON (e.g. application/rss+xml). */
  responseContentType?: string;
  /** Request body media type when not JSON (e.g. application/x-www-form-urlencoded for /oauth/token). */
  requestContentType?: string;
  /**
   * How errors are written: RFC 9457 problem+json (default), or `oauth` for OAuth 2.0 endpoints,
   * which answer `{ error, error_description }` (RFC 6749 §5.2) with Cache-Control: no-store.
   */
  errorFormat?: 'problem' | 'oauth';
}

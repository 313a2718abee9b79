import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { DomainError, SCOPE_CATALOG } from '@svc/platform';
import type { JsonSchema, LocalOperation, Product, RateLimit, RouteSpec } from '../routes/route.js';
import { PRODUCT_TITLES, productLimits, rateLimitText, windowSeconds } from './products.js';
import { mediaTypeOf } from './route-catalog.js';

/** Version of the HTTP API the documents describe: the portal release that shipped it. */
export const API_VERSION = '2.2.0';

type Limits = Record<Product, { overall: RateLimit; burst: RateLimit }>;
type Document = Record<string, unknown>;

/** The document names `/api/openapi/{spec}` serves: every product with routes, plus `all`. */
export function openApiSpecNames(routes: readonly RouteSpec[]): string[] {
  return ['all', ...new Set(routes.map((route) => route.product))];
}

const header = (description: string, schema: JsonSchema = { type: 'integer' }) => ({ description, schema });

const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': header('Requests allowed in the window of the most restrictive policy.'),
  'X-RateLimit-Remaining': header('Requests left in that window.'),
  'X-RateLimit-Reset': header('When that window resets, in Unix epoch seconds.'),
  RateLimit: header('IETF RateLimit field for the most restrictive policy, e.g. `"route";r=4;t=42`.', { type: 'string' }),
  'RateLimit-Policy': header('IETF RateLimit-Policy field listing every policy applied, e.g. `"route";q=5;w=60`.', { type: 'string' }),
};

const DEPRECATION_HEADERS = {
  Deprecation: header('Always `true` on a deprecated path.', { type: 'string', const: 'true' }),
  Sunset: header('RFC 7231 HTTP-date after which the path answers 410 Gone.', { type: 'string' }),
  Link: header('The replacement paths, each with rel="successor-version".', { type: 'string' }),
};

const FIELD_ERROR: JsonSchema = {
  type: 'object',
  required: ['field', 'message'],
  properties: { field: { type: 'string', description: 'Dotted snake_case path of the field.' }, message: { type: 'string' } },
};

const PROBLEM: JsonSchema = {
  type: 'object',
  description: 'RFC 9457 problem document with a stable `code`.',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string', description: 'URI reference naming the problem type (`/problems/<code>`).' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', description: 'Stable error code, such as VALIDATION_ERROR or RATE_LIMITED.' },
    instance: { type: 'string' },
    request_id: { type: 'string' },
    errors: { type: 'array', items: { $ref: '#/components/schemas/FieldError' } },
  },
  additionalProperties: true,
};

const OPERATION_OUTCOME: JsonSchema = {
  type: 'object',
  required: ['resourceType', 'issue'],
  properties: {
    resourceType: { const: 'OperationOutcome' },
    issue: { type: 'array', items: { type: 'object', required: ['severity', 'code'], properties: { severity: { type: 'string' }, code: { type: 'string' }, diagnostics: { type: 'string' } } } },
  },
};

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'The request is malformed.',
  '401': 'No credential, or an invalid, expired or revoked one.',
  '403': 'The credential lacks a required scope or may not act here.',
  '404': 'Nothing matches.',
  '409': 'The request conflicts with the current state.',
  '413': 'The body is over one of the route\'s size or complexity limits (listed in the description); `code` and `limit` name it.',
  '422': 'The input failed validation; `errors` lists the fields.',
  '429': 'A rate limit is exhausted; retry after `Retry-After` seconds.',
  '500': 'An internal error.',
  '501': 'Documented but not served yet.',
  '503': 'A dependency is unavailable; retry shortly.',
};

const refTo = (kind: 'headers' | 'responses' | 'schemas', name: string) => ({ $ref: `#/components/${kind}/${name}` });

const headerRefs = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, refTo('headers', name)]));

/** Component name of a reusable error response: `Problem429`, `Outcome404`. */
const errorResponseName = (code: string, fhir: boolean) => `${fhir ? 'Outcome' : 'Problem'}${code}`;

function errorResponse(code: string, fhir: boolean, headers: Record<string, unknown>) {
  const content = fhir ? { 'application/fhir+json': { schema: refTo('schemas', 'OperationOutcome') } } : { 'application/problem+json': { schema: refTo('schemas', 'Problem') } };
  const response: Document = { description: ERROR_RESPONSES[code] ?? 'Error.', content };
  if (Object.keys(headers).length > 0) response['headers'] = headers;
  return response;
}

const TOO_MANY_HEADERS = [...Object.keys(RATE_LIMIT_HEADERS), 'Retry-After'];

/** The reusable error responses (problem+json and, for FHIR paths, OperationOutcome). */
function errorResponseComponents(): Document {
  const components: Document = {};
  for (const fhir of [false, true]) {
    for (const code of Object.keys(ERROR_RESPONSES)) {
      components[errorResponseName(code, fhir)] = errorResponse(code, fhir, code === '429' ? headerRefs(TOO_MANY_HEADERS) : {});
    }
  }
  return components;
}

function limitExtension(route: RouteSpec, limits: Limits) {
  const product = limits[route.product];
  const describe = (limit: RateLimit) => ({ limit: limit.points, window_seconds: windowSeconds(limit), text: rateLimitText(limit) });
  return {
    route: route.rateLimit ? describe(route.rateLimit) : null,
    overall: describe(product.overall),
    burst: describe(product.burst),
    counted_per: 'partner (client address when unauthenticated)',
  };
}

function security(route: RouteSpec): Record<string, string[]>[] {
  if (route.auth === 'none') return [];
  const scopes = [...route.scopes];
  return route.auth === 'service' ? [{ oauth2: scopes }, { bearerAuth: [] }] : [{ bearerAuth: [] }, { oauth2: scopes }];
}

function pathParameters(route: RouteSpec) {
  return [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => {
    const declared = route.pathParameters?.[match[1]!];
    return { name: match[1], in: 'path', required: true, schema: declared?.schema ?? { type: 'string' }, ...(declared ? { description: declared.description } : {}) };
  });
}

function describeRoute(route: RouteSpec): string {
  const lines = [route.summary + '.'];
  lines.push(route.auth === 'none' ? 'No credential needed.' : `Credential: ${route.auth}${route.scopes.length > 0 ? `; one of the scopes ${route.scopes.join(', ')}` : ''}.`);
  if (route.rateLimit) lines.push(`Rate limit: ${rateLimitText(route.rateLimit)}.`);
  if (route.latency) lines.push(`Published latency pair: ${route.latency[0]}/${route.latency[1]}.`);
  if (route.payloadLimits && route.payloadLimits.length > 0) lines.push(`Limits (\`code\` and \`limit\` name the one exceeded): ${route.payloadLimits.join(' ')}`);
  if (route.deprecated) {
    const successors = route.deprecated.successors.map((s) => `${s.method} ${s.path}`).join(' or ');
    lines.push(`Deprecated since ${route.deprecated.since}; sunset ${route.deprecated.sunset} (410 Gone afterwards). Use ${successors}.`);
  }
  return lines.join(' ');
}

function operationOf(route: RouteSpec, limits: Limits): Document {
  const fhir = route.format === 'fhir';
  const deprecationHeaders = route.deprecated ? Object.keys(DEPRECATION_HEADERS) : [];
  const success: Document = { description: route.summary, headers: headerRefs([...Object.keys(RATE_LIMIT_HEADERS), ...deprecationHeaders]) };
  const alternates = (bodies: Record<string, JsonSchema> | undefined) => Object.fromEntries(Object.entries(bodies ?? {}).map(([type, schema]) => [type, { schema }]));
  if (route.successStatus !== 204) success['content'] = { [mediaTypeOf(route)]: { schema: route.responseBody ?? {} }, ...alternates(route.alternateMediaTypes?.response) };
  const responses: Document = { [String(route.successStatus)]: success };
  const codes = ['400', ...(route.auth === 'none' ? [] : ['401', '403']), '404', ...(route.payloadLimits ? ['413'] : []), '422', '429', '500', ...(route.operation ? [] : ['501']), '503'];
  for (const code of codes) {
    if (route.errorFormat === 'oauth' && (code === '400' || code === '401')) {
      responses[code] = { description: 'RFC 6749 §5.2 error', content: { 'application/json': { schema: refTo('schemas', 'OAuthError') } } };
      continue;
    }
    // A deprecated path carries its deprecation headers on errors too, so its errors are spelled out.
    responses[code] = route.deprecated
      ? errorResponse(code, fhir, headerRefs([...(code === '429' ? TOO_MANY_HEADERS : []), ...deprecationHeaders]))
      : refTo('responses', errorResponseName(code, fhir));
  }
  if (route.deprecated) responses['410'] = { ...errorResponse('410', fhir, headerRefs(deprecationHeaders)), description: 'The path is past its sunset date.' };

  const parameters: Document[] = [...pathParameters(route)];
  for (const [name, parameter] of Object.entries(route.queryParameters ?? {})) {
    parameters.push({ name, in: 'query', required: parameter.required ?? false, description: parameter.description, schema: parameter.schema });
  }
  for (const [name, parameter] of Object.entries(route.headerParameters ?? {})) {
    parameters.push({ name, in: 'header', required: parameter.required ?? false, description: parameter.description, schema: parameter.schema });
  }
  const operation: Document = {
    operationId: route.id,
    summary: route.summary,
    description: describeRoute(route),
    tags: [PRODUCT_TITLES[route.product]],
    security: security(route),
    responses,
    'x-ratelimit': limitExtension(route, limits),
  };
  if (parameters.length > 0) operation['parameters'] = parameters;
  if (route.requestBody) {
    // DELETE takes its input from the query string as well; a body is optional there.
    const mediaType = route.requestContentType ?? (fhir ? 'application/fhir+json' : 'application/json');
    operation['requestBody'] = { required: route.method !== 'DELETE', content: { [mediaType]: { schema: route.requestBody }, ...alternates(route.alternateMediaTypes?.request) } };
  }
  if (route.latency) operation['x-latency-pair'] = [...route.latency];
  if (route.deprecated) {
    operation['deprecated'] = true;
    operation['x-sunset-date'] = route.deprecated.sunset;
    operation['x-deprecation-date'] = route.deprecated.since;
    operation['x-successors'] = route.deprecated.successors.map((s) => `${s.method} ${s.path}`);
  }
  return operation;
}

/**
 * The OpenAPI 3.1 document of one product (or `all`), generated from the route table: operations
 * with their credential class and scopes, request and response schemas, problem+json errors (429
 * with the rate-limit headers), the `x-ratelimit` extension, and deprecated operations flagged with
 * `deprecated: true` and `x-sunset-date`.
 */
export function buildOpenApiDocument(routes: readonly RouteSpec[], spec: string, publicUrl: string, limits: Limits): Document {
  const selected = spec === 'all' ? routes : routes.filter((route) => route.product === spec);
  const title = spec === 'all' ? 'Health Partner Platform API' : `Health Partner Platform API: ${PRODUCT_TITLES[spec as Product]}`;
  const paths: Record<string, Document> = {};
  for (const route of selected) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operationOf(route, limits);
  }
  const products = [...new Set(selected.map((route) => route.product))];
  return {
    openapi: '3.1.0',
    info: {
      title,
      version: API_VERSION,
      description:
        'Generated from the REST facade route table. JSON bodies are snake_case; errors are RFC 9457 problem documents ' +
        '(OperationOutcome under /fhir/R4). Breaking changes get at least 90 days between deprecation and sunset.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: publicUrl }],
    tags: products.map((product) => ({ name: PRODUCT_TITLES[product] })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'A partner API token (created with POST /cms/tokens), an OAuth access token, or a portal session (POST /cms/partner-login).',
        },
        oauth2: {
          type: 'oauth2',
          description: 'OAuth 2.0 client_credentials; register a client with POST /cms/oauth/register.',
          flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: Object.fromEntries(SCOPE_CATALOG.map((entry) => [entry.scope, entry.description])) } },
        },
      },
      schemas: {
        Problem: PROBLEM,
        FieldError: FIELD_ERROR,
        OperationOutcome: OPERATION_OUTCOME,
        OAuthError: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string', enum: ['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'] },
            error_description: { type: 'string' },
          },
        },
      },
      headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': header('Seconds to wait before retrying.'), ...DEPRECATION_HEADERS },
      responses: errorResponseComponents(),
    },
  };
}

/** Read `{spec}`: a document name with `.yaml` (or `.json`). @throws DomainError `NOT_FOUND` for anything else. */
export function parseSpecName(raw: string | undefined, available: readonly string[]): { name: string; format: 'yaml' | 'json' } {
  const match = /^([a-z-]+)\.(yaml|yml|json)$/.exec(raw ?? '');
  if (!match || !available.includes(match[1]!)) {
    throw new DomainError('NOT_FOUND', `No OpenAPI document "${raw ?? ''}". Available: ${available.map((name) => `${name}.yaml`).join(', ')}.`, {
      details: { available: available.map((name) => `${name}.yaml`) },
    });
  }
  return { name: match[1]!, format: match[2] === 'json' ? 'json' : 'yaml' };
}

/** `GET /api/openapi/{spec}`: `<product>.yaml` or `all.yaml` (also `.json`), with an ETag. */
export const openApiOperation: LocalOperation = {
  async local(input, { routes, publicUrl }) {
    const { name, format } = parseSpecName(input.params['spec'], openApiSpecNames(routes));
    const document = buildOpenApiDocument(routes, name, publicUrl, await productLimits());
    const body = format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { aliasDuplicateObjects: false, lineWidth: 0 });
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    const headers = { etag, 'cache-control': 'public, max-age=300', 'content-disposition': `inline; filename="${name}.${format}"` };
    if (input.headers['if-none-match'] === etag) return { status: 304, body: '', headers };
    return { body, headers, contentType: format === 'json' ? 'application/json' : 'application/yaml' };
  },
};

import { DomainError, type FieldError } from '@svc/platform';
import type { HttpMethod, JsonSchema, LocalOperation, Product, RateLimit, RouteInput, RouteSpec } from '../routes/route.js';
import { PRODUCT_TITLES, productLimits, rateLimitText, windowSeconds } from './products.js';

/** One row of the route catalog (`GET /api/partner/routes`). */
export interface RouteCatalogEntry {
  id: string;
  method: HttpMethod;
  path: string;
  product: Product;
  product_title: string;
  summary: string;
  /** Credential class: none, bearer or service. */
  auth: RouteSpec['auth'];
  /** The caller needs one of these scopes (empty: any credential, or none for public routes). */
  scopes: string[];
  rate_limit: { limit: number; window_seconds: number; text: string } | null;
  success_status: number;
  /** The spec's published latency pair, as published (its two labels are not stated). */
  latency_pair: [string, string] | null;
  media_type: string;
  deprecated: boolean;
  deprecation: { since: string; sunset: string; successors: string[] } | null;
  /** False for documented paths not served yet (they answer 501). */
  implemented: boolean;
}

/** Filters of the catalog, from the query string. */
export interface RouteCatalogFilter {
  product?: Product;
  implemented?: boolean;
  deprecated?: boolean;
}

const limitOf = (limit: RateLimit) => ({ limit: limit.points, window_seconds: windowSeconds(limit), text: rateLimitText(limit) });

/** The success media type of a route. */
export function mediaTypeOf(route: RouteSpec): string {
  return route.responseContentType ?? (route.format === 'fhir' ? 'application/fhir+json' : 'application/json');
}

/** The catalog row of one route. */
export function routeCatalogEntry(route: RouteSpec): RouteCatalogEntry {
  return {
    id: route.id,
    method: route.method,
    path: route.path,
    product: route.product,
    product_title: PRODUCT_TITLES[route.product],
    summary: route.summary,
    auth: route.auth,
    scopes: [...route.scopes],
    rate_limit: route.rateLimit ? limitOf(route.rateLimit) : null,
    success_status: route.successStatus,
    latency_pair: route.latency ? [route.latency[0], route.latency[1]] : null,
    media_type: mediaTypeOf(route),
    deprecated: route.deprecated !== undefined,
    deprecation: route.deprecated
      ? { since: route.deprecated.since, sunset: route.deprecated.sunset, successors: route.deprecated.successors.map((s) => `${s.method} ${s.path}`) }
      : null,
    implemented: route.operation !== undefined,
  };
}

/** The catalog rows that pass `filter`, in route-table order. */
export function buildRouteCatalog(routes: readonly RouteSpec[], filter: RouteCatalogFilter = {}): RouteCatalogEntry[] {
  return routes
    .map(routeCatalogEntry)
    .filter(
      (entry) =>
        (filter.product === undefined || entry.product === filter.product) &&
        (filter.implemented === undefined || entry.implemented === filter.implemented) &&
        (filter.deprecated === undefined || entry.deprecated === filter.deprecated),
    );
}

function readBoolean(value: unknown, field: string, errors: FieldError[]): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  errors.push({ field, message: 'must be true or false' });
  return undefined;
}

/**
 * Read the catalog filters from the query string.
 * @throws DomainError `VALIDATION_ERROR` naming every bad parameter.
 */
export function readRouteCatalogFilter(query: RouteInput['query']): RouteCatalogFilter {
  const errors: FieldError[] = [];
  const filter: RouteCatalogFilter = {};
  const product = query['product'];
  if (product !== undefined) {
    if (typeof product === 'string' && Object.hasOwn(PRODUCT_TITLES, product)) filter.product = product as Product;
    else errors.push({ field: 'product', message: `must be one of ${Object.keys(PRODUCT_TITLES).join(', ')}` });
  }
  const implemented = readBoolean(query['implemented'], 'implemented', errors);
  if (implemented !== undefined) filter.implemented = implemented;
  const deprecated = readBoolean(query['deprecated'], 'deprecated', errors);
  if (deprecated !== undefined) filter.deprecated = deprecated;
  if (errors.length > 0) throw new DomainError('VALIDATION_ERROR', 'The query is invalid.', { fieldErrors: errors });
  return filter;
}

const limitSchema: JsonSchema = {
  type: ['object', 'null'],
  properties: { limit: { type: 'integer' }, window_seconds: { type: 'integer' }, text: { type: 'string', examples: ['10/min'] } },
  required: ['limit', 'window_seconds', 'text'],
};

/** JSON Schema of the catalog answer, for the OpenAPI documents. */
export const ROUTE_CATALOG_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['total', 'routes', 'product_limits'],
  properties: {
    total: { type: 'integer' },
    routes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'method', 'path', 'product', 'summary', 'auth', 'scopes', 'rate_limit', 'success_status', 'latency_pair', 'deprecated', 'implemented'],
        properties: {
          id: { type: 'string' },
          method: { type: 'string', enum: ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] },
          path: { type: 'string' },
          product: { type: 'string' },
          product_title: { type: 'string' },
          summary: { type: 'string' },
          auth: { type: 'string', enum: ['none', 'bearer', 'service'] },
          scopes: { type: 'array', items: { type: 'string' } },
          rate_limit: limitSchema,
          success_status: { type: 'integer' },
          latency_pair: { type: ['array', 'null'], items: { type: 'string' }, minItems: 2, maxItems: 2 },
          media_type: { type: 'string' },
          deprecated: { type: 'boolean' },
          deprecation: {
            type: ['object', 'null'],
            properties: { since: { type: 'string', format: 'date' }, sunset: { type: 'string', format: 'date' }, successors: { type: 'array', items: { type: 'string' } } },
          },
          implemented: { type: 'boolean' },
        },
      },
    },
    product_limits: {
      type: 'object',
      description: 'Overall and burst limits per product, counted per partner (per client address when unauthenticated).',
      additionalProperties: { type: 'object', properties: { overall: limitSchema, burst: limitSchema } },
    },
  },
};

/** `GET /api/partner/routes`: the whole route table as a catalog; filters `product`, `implemented`, `deprecated`. */
export const routeCatalogOperation: LocalOperation = {
  async local(input, { routes }) {
    const filter = readRouteCatalogFilter(input.query);
    const entries = buildRouteCatalog(routes, filter);
    const limits = await productLimits();
    const products = [...new Set(routes.map((route) => route.product))];
    return {
      body: {
        total: entries.length,
        routes: entries,
        product_limits: Object.fromEntries(products.map((product) => [product, { overall: limitOf(limits[product].overall), burst: limitOf(limits[product].burst) }])),
      },
    };
  },
};

import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { DomainError } from '@svc/platform';
import type { LocalOperation, RouteSpec } from '../routes/route.js';
import { buildOpenApiDocument, openApiSpecNames } from './openapi.js';
import { productLimits } from './products.js';
import { SingleFlightCache } from './single-flight-cache.js';

type Json = Record<string, unknown>;

/** The parts of a Postman v2.1 collection this module reads or rewrites. */
interface PostmanRequest {
  method: string;
  url: { path?: string[] };
  auth?: Json;
}
interface PostmanItem {
  item?: PostmanItem[];
  request?: PostmanRequest;
  response?: unknown[];
}
interface PostmanCollection extends Json {
  item: PostmanItem[];
  variable?: { key: string; value: string; type?: string; description?: string }[];
}

interface CachedCollection {
  body: string;
  etag: string;
}

/** Options of openapi-to-postmanv2: folders by product (the OpenAPI tags), bodies faked from the schemas. */
const CONVERT_OPTIONS = { folderStrategy: 'Tags', requestNameSource: 'Fallback', parametersResolution: 'Schema', includeDeprecated: true } as const;

/**
 * `/api/identity/{gpid}` → `api/identity/:gpid`, as Postman writes a request's path: a parameter
 * that is a whole segment is a path variable; one inside a segment (`{spec}.postman.json`) is a
 * collection variable, `{{spec}}.postman.json`.
 */
export function postmanPath(path: string): string {
  return path
    .replace(/^\//, '')
    .split('/')
    .map((segment) => (/^\{\w+\}$/.test(segment) ? `:${segment.slice(1, -1)}` : segment.replace(/\{(\w+)\}/g, '{{$1}}')))
    .join('/');
}

/** The parameters inside a path segment, which Postman reads from collection variables: their names and a first value. */
function segmentVariables(routes: readonly RouteSpec[]): { key: string; value: string; type: 'string'; description: string }[] {
  const variables = new Map<string, { key: string; value: string; type: 'string'; description: string }>();
  for (const route of routes) {
    for (const [, name] of postmanPath(route.path).matchAll(/\{\{(\w+)\}\}/g)) {
      const declared = route.pathParameters?.[name!];
      const examples = declared?.schema['examples'];
      const value = Array.isArray(examples) && typeof examples[0] === 'string' ? examples[0] : '';
      variables.set(name!, { key: name!, value, type: 'string', description: `${declared?.description ?? name} (${route.method} ${route.path})` });
    }
  }
  return [...variables.values()];
}

/** `{spec}.postman.json`: a document name of `GET /api/openapi/{spec}`. @throws DomainError `NOT_FOUND`. */
export function parsePostmanSpecName(raw: string | undefined, available: readonly string[]): string {
  if (raw !== undefined && available.includes(raw)) return raw;
  throw new DomainError('NOT_FOUND', `No Postman collection "${raw ?? ''}.postman.json". Available: ${available.map((name) => `${name}.postman.json`).join(', ')}.`, {
    details: { available: available.map((name) => `${name}.postman.json`) },
  });
}

/**
 * The document given to the converter: the served OpenAPI document with only its success
 * responses. Every operation documents eleven error responses that are one problem document each;
 * faked as examples they made three quarters of the collection (1.2 MB of 1.6 MB for `all`) and half
 * of the conversion time, and say nothing the request descriptions and the OpenAPI document do not.
 */
function withSuccessResponsesOnly(document: Json): Json {
  const paths = document['paths'] as Record<string, Record<string, Json>>;
  const trimmed: Record<string, Record<string, Json>> = {};
  for (const [path, operations] of Object.entries(paths)) {
    trimmed[path] = Object.fromEntries(
      Object.entries(operations).map(([method, operation]) => {
        const responses = Object.fromEntries(Object.entries(operation['responses'] as Json).filter(([code]) => /^[23]/.test(code)));
        return [method, { ...operation, responses }];
      }),
    );
  }
  return { ...document, paths: trimmed };
}

/** Run the converter on a worker thread, so the first request of a collection does not hold up everyone else's. */
function convertOffThread(document: Json): Promise<PostmanCollection> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./postman-convert.worker.mjs', import.meta.url), { workerData: { document, options: CONVERT_OPTIONS }, execArgv: [] });
    worker.once('message', (message: { ok: true; collection: PostmanCollection } | { ok: false; reason: string }) => {
      if (message.ok) resolve(message.collection);
      else reject(new Error(`openapi-to-postmanv2: ${message.reason}`));
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the Postman conversion thread exited with code ${code}`)));
  });
}

function requestsOf(items: readonly PostmanItem[]): PostmanRequest[] {
  return items.flatMap((item) => (item.item ? requestsOf(item.item) : item.request ? [item.request] : []));
}

/**
 * Bearer auth once, on the collection, from the `bearerToken` variable; every request inherits it
 * except the public routes (sign-in, the OAuth token exchange, discovery documents), which send none.
 * The converter would put an OAuth 2.0 helper listing every scope on the service routes instead: a
 * client_credentials access token (POST /oauth/token) works as the bearer token there too.
 */
function useCollectionAuth(collection: PostmanCollection, routes: readonly RouteSpec[], publicUrl: string): PostmanCollection {
  const publicRoutes = new Set(routes.filter((route) => route.auth === 'none').map((route) => `${route.method} ${postmanPath(route.path)}`));
  for (const request of requestsOf(collection.item)) {
    if (publicRoutes.has(`${request.method} ${(request.url.path ?? []).join('/')}`)) request.auth = { type: 'noauth' };
    else delete request.auth;
  }
  return {
    ...collection,
    auth: { type: 'bearer', bearer: [{ key: 'token', value: '{{bearerToken}}', type: 'string' }] },
    variable: [
      { key: 'baseUrl', value: publicUrl, type: 'string', description: 'Base URL of the API: this server (the sandbox, on a sandbox server).' },
      { key: 'bearerToken', value: '', type: 'string', description: 'A partner API token (POST /cms/tokens), an OAuth access token (POST /oauth/token) or a portal session.' },
      ...segmentVariables(routes),
    ],
  };
}

async function buildCollection(routes: readonly RouteSpec[], spec: string, publicUrl: string): Promise<CachedCollection> {
  const document = buildOpenApiDocument(routes, spec, publicUrl, await productLimits());
  const selected = spec === 'all' ? routes : routes.filter((route) => route.product === spec);
  const collection = useCollectionAuth(await convertOffThread(withSuccessResponsesOnly(document)), selected, publicUrl);
  const body = `${JSON.stringify(collection)}\n`;
  return { body, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"` };
}

/**
 * Collections already converted, per route table (one per app, whose public URL is fixed), then per
 * document name: at most one per OpenAPI document, built on its first request and kept for the
 * life of the process. Conversion is CPU work. Measured on a busy 2-core machine (load average 6):
 * openapi-to-postmanv2 alone takes 0.6 to 0.9 s for `all` (93 routes) and 0.08 s for `identity`;
 * a first request takes 2.0 s for `all` and about 1 s for a product, most of it starting the thread
 * and loading the converter; a cached one, under a millisecond. The `all` collection is 277 kB. So
 * it runs on a worker thread, not on the event loop every request shares, and concurrent first
 * requests share one conversion instead of starting several (SingleFlightCache).
 */
const converted = new WeakMap<readonly RouteSpec[], SingleFlightCache<string, CachedCollection>>();

function cachedCollection(routes: readonly RouteSpec[], spec: string, publicUrl: string): Promise<CachedCollection> {
  let bySpec = converted.get(routes);
  if (!bySpec) converted.set(routes, (bySpec = new SingleFlightCache()));
  return bySpec.get(spec, () => buildCollection(routes, spec, publicUrl));
}

/** `GET /api/openapi/{spec}.postman.json`: the OpenAPI document `{spec}` as a Postman v2.1 collection, with an ETag. */
export const postmanCollectionOperation: LocalOperation = {
  async local(input, { routes, publicUrl }) {
    const spec = parsePostmanSpecName(input.params['spec'], openApiSpecNames(routes));
    const { body, etag } = await cachedCollection(routes, spec, publicUrl);
    const headers = { etag, 'cache-control': 'public, max-age=300', 'content-disposition': `attachment; filename="${spec}.postman.json"` };
    if (input.headers['if-none-match'] === etag) return { status: 304, body: '', headers };
    return { body, headers, contentType: 'application/json' };
  },
};

import type { FastifyInstance } from 'fastify';
import type { RouteSpec } from './routes/route.js';
import { ROUTES } from './routes/table.js';
import { routeHandler, type HandlerDeps } from './handler.js';
import { DomainError, type ErrorCode } from '@svc/platform';
import { sendError } from './render-error.js';
import { parseJsonKeepingText } from './raw-body.js';
import { sendOAuthError } from './render-oauth-error.js';
import { NDJSON_MEDIA_TYPES } from './routes/fhir-sync-jobs.js';
import { X12_MEDIA_TYPE } from './routes/clearinghouse.js';

/** `/api/identity/{gpid}` → `/api/identity/:gpid` */
export function fastifyPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

export type FacadeOptions = Omit<HandlerDeps, 'routes'> & {
  routes?: readonly RouteSpec[];
  /** Sunset dates the operator moved, by route id (config `deprecationSunsets`). */
  sunsets?: Readonly<Record<string, string>>;
};

/**
 * The route table with the operator's sunset dates applied. A moved date changes every place the
 * date appears (the 410 decision, the Sunset header, the catalog, OpenAPI, the changelog), since
 * they all read the table. An id that names no deprecated route is a configuration error.
 */
export function withSunsets(routes: readonly RouteSpec[], sunsets: Readonly<Record<string, string>>): readonly RouteSpec[] {
  const deprecated = new Set(routes.filter((r) => r.deprecated).map((r) => r.id));
  const unknown = Object.keys(sunsets).filter((id) => !deprecated.has(id));
  if (unknown.length > 0) throw new Error(`SVC_DEPRECATION_SUNSETS names no deprecated route: ${unknown.join(', ')} (deprecated routes: ${[...deprecated].join(', ')})`);
  return routes.map((r) => (r.deprecated && sunsets[r.id] ? { ...r, deprecated: { ...r.deprecated, sunset: sunsets[r.id]! } } : r));
}

/**
 * The REST facade as a Fastify plugin: one route per row of the route table, each served by the
 * shared handler, plus problem+json (or OperationOutcome) for everything that goes wrong outside one.
 */
export async function registerFacade(app: FastifyInstance, options: FacadeOptions): Promise<void> {
  parseJsonKeepingText(app);
  // NDJSON pushes (POST /fhir/R4, a sync job) reach the route as text; the fhir subgraph parses the lines.
  app.addContentTypeParser([...NDJSON_MEDIA_TYPES], { parseAs: 'string' }, (_req, body, done) => done(null, body));
  // ASC X12 interchanges (the clearinghouse routes) reach the route as text; the fhir subgraph reads them.
  app.addContentTypeParser(X12_MEDIA_TYPE, { parseAs: 'string' }, (_req, body, done) => done(null, body));
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const routes = withSunsets(options.routes ?? ROUTES, options.sunsets ?? {});
  for (const route of routes) {
    app.route({
      method: route.method,
      url: fastifyPath(route.path),
      ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit.bytes }),
      config: { routeId: route.id, errorFormat: route.errorFormat ?? 'problem', ...(route.bodyLimit === undefined ? {} : { bodyLimit: route.bodyLimit }) },
      handler: routeHandler(route, { ...options, routes }),
    });
  }

  app.setNotFoundHandler((req, reply) => sendError(req, reply, 'NOT_FOUND', `No route ${req.method} ${req.url.split('?')[0]}.`));
  app.setErrorHandler((error: { statusCode?: number; code?: string; message: string }, req, reply) => {
    // Body parsing fails before a route's handler runs: answer in the route's own dialect all the same
    // (an OAuth token endpoint speaks RFC 6749 JSON, FHIR paths OperationOutcome, the rest problem+json).
    const config = req.routeOptions.config as { errorFormat?: string; bodyLimit?: { bytes: number; name: string } } | undefined;
    const oauth = config?.errorFormat === 'oauth';
    const fail = (code: string, detail: string, extras: Parameters<typeof sendError>[4] = {}) => (oauth ? sendOAuthError(req, reply, new DomainError(code as ErrorCode, detail)) : sendError(req, reply, code, detail, extras));
    const status = error.statusCode ?? 500;
    if (status === 413) {
      // Refused before the body was read: the route's own limit (an X12 route's x12.bytes) or the app's (body.bytes).
      const { bytes, name } = config?.bodyLimit ?? { bytes: req.routeOptions.bodyLimit, name: 'body.bytes' };
      return fail('PAYLOAD_TOO_LARGE', `The request body is over the limit ${name}: this route takes at most ${bytes} bytes.`, {
        fieldErrors: [{ field: 'body', message: `at most ${bytes} bytes (${name})` }],
        details: { limit: { name, max: bytes, field: 'body' } },
      });
    }
    if (status === 415) return fail('UNSUPPORTED_MEDIA_TYPE', error.message);
    if (status >= 400 && status < 500) return fail('BAD_REQUEST', error.message);
    req.log.error({ err: error }, 'unhandled error');
    return fail('INTERNAL', 'Internal server error.');
  });
}

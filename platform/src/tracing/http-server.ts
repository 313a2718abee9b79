import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextFromHeaders, contextWithSpan, SpanKind, SpanStatusCode, startSpan, tracingActive, withContext, type Span } from './spans.js';

/**
 * A server span for every request `app` answers, the child of the caller's `traceparent` when it
 * sent one, active for all the request's work (hooks, handler, what they call). Named and
 * attributed by method and route template (`GET /api/partner/partners/:gpid`), never the path
 * itself (`/health`, `/ready` and `/metrics` get none), its query string or a header value. Nothing is registered while tracing is off.
 */
/** Probes and scrapes: polled every few seconds, they would bury the requests in spans. */
const UNTRACED = /^\/(health|ready|metrics)(\?|$)/;

export function traceHttpServer(app: FastifyInstance, component: string): void {
  if (!tracingActive()) return;
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (req, _reply, done) => {
    if (UNTRACED.test(req.url)) return done();
    const parent = contextFromHeaders(req.headers);
    const span = startSpan(req.method, { kind: SpanKind.SERVER, parent, attributes: { 'http.request.method': req.method, 'svc.component': component } });
    if (!span) return done();
    spans.set(req, span);
    withContext(contextWithSpan(parent, span), done);
  });
  const end = (req: FastifyRequest, status?: number) => {
    const span = spans.get(req);
    if (!span) return;
    spans.delete(req);
    const route = req.routeOptions.url;
    if (route) {
      span.updateName(`${req.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    const routeId = (req.routeOptions.config as { routeId?: unknown } | undefined)?.routeId;
    if (typeof routeId === 'string') span.setAttribute('svc.route_id', routeId);
    if (status !== undefined) {
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
  };
  app.addHook('onResponse', (req, reply, done) => {
    end(req, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (req, done) => {
    end(req);
    done();
  });
}

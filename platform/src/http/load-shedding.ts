import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { sendErrorDocument } from './http-errors.js';

export interface LoadSheddingSettings {
  /** Requests one process works on at once; the next is refused at once (0: refuse everything but probes). */
  maxInFlight: number;
  /** Mean event-loop delay (ms), over two 500 ms samples in a row, above which new work is refused; 0 turns the check off. */
  maxEventLoopDelayMs: number;
}

/** Seconds a refused caller is told to wait: long enough for a saturated process to catch up. */
export const SHED_RETRY_AFTER_SECONDS = 2;
const SAMPLE_MS = 500;
/** Probes and metrics answer under load too: /ready is how a balancer learns to send work elsewhere. */
const EXEMPT = new Set(['/health', '/ready', '/metrics']);

export interface LoadShedder {
  /** True while the process refuses new work: /ready reports it as the `load` check. */
  overloaded(): boolean;
  inFlight(): number;
}

/**
 * Admission control for one process: a request is refused with 503 and Retry-After, before any
 * parsing, authentication or query, when the process already works on `maxInFlight` requests or
 * when its event loop lags more than `maxEventLoopDelayMs` (the CPU is saturated, so every queued
 * request would only wait longer). Refusing early keeps latency and memory bounded under overload
 * instead of letting sockets and promises pile up. Upgrades (graphql-ws) are not counted in flight,
 * as they hold their socket for as long as the subscription lives.
 */
export function shedLoad(app: FastifyInstance, settings: LoadSheddingSettings): LoadShedder {
  let inFlight = 0;
  const counted = new WeakSet<object>();
  let lagging = false;
  let lagged = false;
  const histogram = settings.maxEventLoopDelayMs > 0 ? monitorEventLoopDelay({ resolution: 10 }) : undefined;
  let timer: NodeJS.Timeout | undefined;
  // Measured from the moment the app is ready: the long synchronous steps of start-up (definitions,
  // schemas, the query planner) are not overload, and must not refuse the first requests.
  if (histogram) app.addHook('onReady', async () => {
    histogram.enable();
    timer = setInterval(() => {
      // The histogram's floor is its resolution; what exceeds it is the loop's lag.
      const delayMs = Math.max(0, histogram.mean / 1e6 - 10);
      const over = Number.isFinite(delayMs) && delayMs > settings.maxEventLoopDelayMs;
      // Two samples in a row: one long synchronous step (start-up, a schema build) is not overload.
      lagging = over && lagged;
      lagged = over;
      histogram.reset();
    }, SAMPLE_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    histogram?.disable();
  });

  app.addHook('onRequest', async (req, reply) => {
    const path = req.url.split('?')[0] ?? req.url;
    if (EXEMPT.has(path)) return;
    const upgrade = req.headers.upgrade !== undefined;
    if (lagging || (!upgrade && inFlight >= settings.maxInFlight)) {
      reply.header('retry-after', String(SHED_RETRY_AFTER_SECONDS));
      return sendErrorDocument(req, reply, 'SERVER_BUSY', `The service is at capacity; retry after ${SHED_RETRY_AFTER_SECONDS} seconds.`, {
        details: { retryAfterSeconds: SHED_RETRY_AFTER_SECONDS },
      });
    }
    if (upgrade) return;
    inFlight++;
    counted.add(req);
  });
  // Whichever comes first ends the count: the response sent, or the socket gone (client abort).
  const done = (req: object) => {
    if (counted.delete(req)) inFlight--;
  };
  app.addHook('onResponse', async (req) => done(req));
  app.addHook('onRequestAbort', async (req) => done(req));

  return { overloaded: () => lagging || inFlight >= settings.maxInFlight, inFlight: () => inFlight };
}

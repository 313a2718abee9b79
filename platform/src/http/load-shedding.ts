import { Socket } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendErrorDocument } from './http-errors.js';

export interface LoadSheddingSettings {
  /**
   * Requests one process works on or holds waiting for their turn at once; the next is refused at
   * once (0: refuse everything but probes).
   */
  maxInFlight: number;
  /**
   * Mean event-loop delay (ms), over two 500 ms samples in a row, above which new work is refused;
   * also the longest a request waits for its turn before it is refused. 0 turns both checks off.
   */
  maxEventLoopDelayMs: number;
  /**
   * Milliseconds of request work one event-loop turn starts before the requests it reads next wait
   * for a later turn; 0 serves every request in the turn that reads it.
   */
  maxTurnMs: number;
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

type Verdict = 'admit' | 'refuse';

interface Waiting {
  req: FastifyRequest;
  since: number;
  settle: (verdict: Verdict) => void;
}

/**
 * Admission control for one process: a request is refused with 503 and Retry-After, before any
 * parsing, authentication or query, when the process already works on (or holds) `maxInFlight`
 * requests, when its event loop lags more than `maxEventLoopDelayMs` (the CPU is saturated, so
 * every queued request would only wait longer), or when it has waited for its turn longer than
 * that. Refusing early keeps latency and memory bounded under overload instead of letting sockets
 * and promises pile up. Upgrades (graphql-ws) are not counted in flight, as they hold their socket
 * for as long as the subscription lives.
 *
 * Turns: a request on the embedded SQLite runs to its answer without leaving the event loop, so
 * without more the in-flight count stays near 1 however overloaded the process is, and the queue is
 * invisible: the requests wait unread in their sockets, and one turn of the loop reads and serves
 * every one that is ready, so the turn (and every caller's wait) grows with the number of busy
 * connections. Worse, Node 20's libuv accepts one new connection per turn (libuv 1.45, "don't
 * accept() connections in a loop"), so long turns leave new connections, health probes included,
 * in the listen backlog for tens of seconds, where they time out unanswered. So a turn starts at
 * most `maxTurnMs` of request work; what it reads after that waits, counted in flight, in a FIFO
 * queue that later turns serve `maxTurnMs` at a time, after each one has accepted and read what
 * arrived meanwhile. The queue is bounded by `maxInFlight` and by the wait. Requests not read from a
 * socket (`inject`) never waited in one and are served at once.
 */
export function shedLoad(app: FastifyInstance, settings: LoadSheddingSettings): LoadShedder {
  let inFlight = 0;
  const counted = new WeakSet<object>();
  let lagging = false;
  let lagged = false;
  const queue: Waiting[] = [];
  // When the current turn started its first request (cleared in the turn's check phase).
  let turnStartedAt: number | undefined;
  let drainScheduled = false;
  const endTurn = () => {
    turnStartedAt = undefined;
    scheduleDrain();
  };
  // From a check phase, setImmediate runs in the next turn's: after its poll phase has accepted a
  // connection and read the requests that arrived, which queue behind the waiting ones.
  const scheduleDrain = () => {
    if (queue.length === 0 || drainScheduled) return;
    drainScheduled = true;
    setImmediate(drain);
  };
  const tooLong = (waitedMs: number) => settings.maxEventLoopDelayMs > 0 && waitedMs > settings.maxEventLoopDelayMs;
  // Milliseconds one let-in request keeps the loop busy, as the last drains measured it; it sizes the
  // next batch so that a drain stays near `maxTurnMs`.
  let costMs: number | undefined;
  const drain = () => {
    drainScheduled = false;
    const started = performance.now();
    const batch = costMs === undefined ? 1 : Math.max(1, Math.floor(settings.maxTurnMs / costMs));
    let admitted = 0;
    while (admitted < batch && queue.length > 0) {
      const next = queue.shift()!;
      if (next.req.raw.socket.destroyed || tooLong(started - next.since)) {
        next.settle('refuse');
        continue;
      }
      next.settle('admit');
      admitted++;
    }
    if (admitted > 0) {
      // The batch runs in this check phase (its synchronous work on the embedded database before
      // the first real I/O), so a timer, run at the start of the next turn, sees what it cost.
      setTimeout(() => {
        const cost = (performance.now() - started) / admitted;
        // A slower batch counts at once (the turn must stay short); a faster one only gradually.
        costMs = costMs === undefined || cost > costMs ? cost : 0.8 * costMs + 0.2 * cost;
      }, 0);
    }
    scheduleDrain();
  };
  /** Admit now, or queue behind the requests already waiting / the turn's spent budget. */
  const admission = (req: FastifyRequest): Verdict | Promise<Verdict> => {
    if (settings.maxTurnMs <= 0 || !(req.raw.socket instanceof Socket)) return 'admit';
    const now = performance.now();
    if (turnStartedAt === undefined) {
      turnStartedAt = now;
      setImmediate(endTurn);
    }
    if (queue.length === 0 && now - turnStartedAt <= settings.maxTurnMs) return 'admit';
    return new Promise<Verdict>((settle) => queue.push({ req, since: now, settle }));
  };
  const refuse = (req: FastifyRequest, reply: FastifyReply) => {
    reply.header('retry-after', String(SHED_RETRY_AFTER_SECONDS));
    return sendErrorDocument(req, reply, 'SERVER_BUSY', `The service is at capacity; retry after ${SHED_RETRY_AFTER_SECONDS} seconds.`, {
      details: { retryAfterSeconds: SHED_RETRY_AFTER_SECONDS },
    });
  };
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
    if (lagging || (!upgrade && inFlight >= settings.maxInFlight)) return refuse(req, reply);
    if (upgrade) return;
    inFlight++;
    counted.add(req);
    // The response's 'close' comes in every case, answered or not: a request refused from the queue
    // after its client left, or dropped mid-way, is never counted for good.
    reply.raw.once('close', () => done(req));
    const verdict = admission(req);
    if ((typeof verdict === 'string' ? verdict : await verdict) === 'refuse') return refuse(req, reply);
  });
  // Whichever comes first ends the count: the response sent, or the socket gone (client abort).
  function done(req: object): void {
    if (counted.delete(req)) inFlight--;
  }
  app.addHook('onResponse', async (req) => done(req));
  app.addHook('onRequestAbort', async (req) => done(req));
  // An event stream (GraphQL over SSE) stays open for as long as its subscriber listens: once its
  // headers leave it is no longer work in flight (its own limits bound how many stay open).
  app.addHook('onSend', async (req, reply) => {
    if (String(reply.getHeader('content-type') ?? '').startsWith('text/event-stream')) done(req);
  });

  return { overloaded: () => lagging || inFlight >= settings.maxInFlight, inFlight: () => inFlight };
}

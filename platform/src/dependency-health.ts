import { DomainError } from './errors.js';
import type { Logger } from './logging.js';

/**
 * What every 503 caused by a dependency outage tells the caller in Retry-After: long enough for a
 * reconnect (the Redis and probe back-off tops out at 2 s), short enough that a client comes back
 * soon after the dependency does.
 */
export const RETRY_AFTER_SECONDS = 5;

/** How long one readiness probe of a dependency may take before it counts as down. */
export const PROBE_TIMEOUT_MS = 2_000;

/** While a dependency is down, it is probed this often, so its recovery is noticed (and logged) without traffic. */
const REPROBE_INTERVAL_MS = 1_000;

/**
 * After a recovery, a reported failure is first checked by the probe for this long: requests sent
 * during the outage still fail, sometimes many seconds later on a busy machine (queued commands,
 * connect retries). A real new outage is still noticed at once, by the probe.
 */
const RECOVERY_SETTLE_MS = 30_000;

/**
 * A request could not be served because a dependency (a subgraph, the gateway, Redis, a database)
 * is unreachable. It is a 503 with Retry-After on every surface; `dependency` names what failed for
 * the logs, never for the caller.
 */
export class DependencyUnavailable extends DomainError {
  constructor(
    readonly dependency: string,
    cause?: unknown,
    message = 'A service this request needs is unavailable right now; retry shortly.',
  ) {
    super('UPSTREAM_UNAVAILABLE', message, { cause, details: { retry_after: RETRY_AFTER_SECONDS } });
  }
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  // PostgreSQL: the server is shutting down or refuses more connections.
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);
const CONNECTION_MESSAGES =
  /Connection terminated|Connection is closed|Stream isn't writeable|Timeout acquiring a connection|connect ECONNREFUSED|Client has encountered a connection error|Connection ended unexpectedly|server closed the connection unexpectedly|the database system is (shutting down|starting up)|Reached the max retries per request limit/i;

/**
 * Whether an error means a backing service could not be reached (as opposed to a bug or a bad
 * query): a refused or reset connection, a driver that gave up reconnecting, a pool that found no
 * connection. Looks through `cause` chains, as drivers and ORMs wrap the socket error.
 */
export function isConnectionFailure(err: unknown): boolean {
  for (let current = err, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof DependencyUnavailable) return true;
    const { code, sqlState, name } = current as Error & { code?: unknown; sqlState?: unknown };
    if (typeof code === 'string' && (CONNECTION_CODES.has(code) || code.startsWith('08'))) return true;
    if (typeof sqlState === 'string' && (CONNECTION_CODES.has(sqlState) || sqlState.startsWith('08'))) return true;
    if (name === 'MaxRetriesPerRequestError' || name === 'KnexTimeoutError' || name === 'ConnectionException') return true;
    if (CONNECTION_MESSAGES.test(current.message)) return true;
    current = (current as Error & { cause?: unknown; previous?: unknown }).cause ?? (current as { previous?: unknown }).previous;
  }
  return false;
}

/** A short, secret-free description of why a dependency failed: an error code, else the first line of the message. */
function reasonOf(err: unknown): string | undefined {
  if (err === undefined) return undefined;
  if (err instanceof Error) {
    const code = (err as Error & { code?: unknown }).code;
    const message = err.message.split('\n')[0]!.replace(/\/\/[^@\s/]*@/g, '//[redacted]@').slice(0, 200);
    return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
  }
  return String(err).slice(0, 200);
}

/** Resolve with `promise`, or with `fallback` once `ms` have passed. */
export async function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<T>((resolve) => (timer = setTimeout(() => resolve(fallback), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

type Probe = () => Promise<boolean>;

interface DependencyState {
  up: boolean;
  since: number;
}

/**
 * The health of everything one process depends on, by name (`redis`, `database:partner`,
 * `subgraph:fhir`, `gateway`). Requests that fail to reach a dependency and readiness probes report
 * to it; it logs one structured line when a dependency goes down and one when it is back, however
 * many requests fail in between. While a dependency is down its probe runs every second, so the
 * recovery is noticed without traffic. /ready runs the probes.
 */
export class DependencyHealth {
  private readonly states = new Map<string, DependencyState>();
  private readonly probes = new Map<string, Probe>();
  private readonly reprobes = new Map<string, NodeJS.Timeout>();
  private closed = false;

  constructor(private readonly logger: Logger) {}

  /** Register how to check a dependency (for /ready, and to notice its recovery). */
  watch(name: string, probe: Probe): void {
    this.probes.set(name, probe);
  }

  /**
   * The dependency answered. When it was down and has a probe, the probe decides: one connection of
   * several (Redis has one per purpose) may be back while the others still wait out their back-off,
   * and a recovery declared early would be followed by a second "down" from the next /ready.
   */
  up(name: string): void {
    const state = this.states.get(name);
    if (state?.up || this.closed) return;
    if (state && this.probes.has(name)) {
      void this.check(name);
      return;
    }
    this.markUp(name);
  }

  private markUp(name: string): void {
    const state = this.states.get(name);
    if (state?.up || this.closed) return;
    this.states.set(name, { up: true, since: Date.now() });
    this.stopReprobe(name);
    if (state) this.logger.warn({ dependency: name, state: 'up', downForMs: Date.now() - state.since }, 'dependency recovered');
  }

  /**
   * The dependency could not be reached; `err` says why (logged once, without secrets). Just after a
   * recovery, a failure may belong to a request sent during the outage: the probe decides then, so
   * one outage is never logged as two.
   */
  down(name: string, err?: unknown, confirmed = false): void {
    const state = this.states.get(name);
    // A shutting-down process closes its own connections: that is no outage.
    if ((state && !state.up) || this.closed) return;
    if (!confirmed && state?.up && Date.now() - state.since < RECOVERY_SETTLE_MS && this.probes.has(name)) {
      void this.probe(name).then((result) => {
        if (!result.ok) this.down(name, err ?? result.failure, true);
      });
      return;
    }
    this.states.set(name, { up: false, since: Date.now() });
    this.logger.error({ dependency: name, state: 'down', reason: reasonOf(err) }, 'dependency unavailable');
    this.startReprobe(name);
  }

  report(name: string, up: boolean, err?: unknown): void {
    if (up) this.up(name);
    else this.down(name, err);
  }

  /** Run the registered probe of `name` (down when it fails, throws or takes too long) and report it. */
  async check(name: string): Promise<boolean> {
    if (!this.probes.has(name)) return this.states.get(name)?.up ?? true;
    const { ok, failure } = await this.probe(name);
    if (ok) this.markUp(name);
    else this.down(name, failure, true);
    return ok;
  }

  /** Run the registered probe of `name` within the probe timeout. */
  private async probe(name: string): Promise<{ ok: boolean; failure?: unknown }> {
    const probe = this.probes.get(name);
    if (!probe) return { ok: true };
    let failure: unknown;
    const ok = await withTimeout(
      probe().catch((err: unknown) => {
        failure = err;
        return false;
      }),
      PROBE_TIMEOUT_MS,
      false,
    );
    return ok ? { ok } : { ok, failure: failure ?? new Error('the readiness probe failed or timed out') };
  }

  /** Probe every named dependency at once: the checks of a /ready answer. */
  async checkAll(names: readonly string[]): Promise<Record<string, boolean>> {
    return Object.fromEntries(await Promise.all(names.map(async (n) => [n, await this.check(n)] as const)));
  }

  /** Stop re-probing (on shutdown). */
  close(): void {
    this.closed = true;
    for (const name of [...this.reprobes.keys()]) this.stopReprobe(name);
  }

  private startReprobe(name: string): void {
    if (this.closed || this.reprobes.has(name) || !this.probes.has(name)) return;
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      void this.check(name).finally(() => (running = false));
    }, REPROBE_INTERVAL_MS);
    timer.unref();
    this.reprobes.set(name, timer);
  }

  private stopReprobe(name: string): void {
    clearInterval(this.reprobes.get(name));
    this.reprobes.delete(name);
  }
}

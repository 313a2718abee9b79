/**
 * The load generator, run as a child process of bench/run.ts so that it never competes with the
 * server for the same event loop. It receives one bounded autocannon run at a time over IPC and
 * answers with every response's latency (milliseconds, sub-millisecond precision) and status.
 */
import autocannon from 'autocannon';

export interface LoadSpec {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** When given, every request picks one of these paths (same origin as `url`) at random. */
  paths?: string[];
  /** When given, every request sends one of these bodies, picked at random. */
  bodies?: string[];
  connections: number;
  /** When given, at most this many requests per second in all (autocannon's overallRate). */
  overallRate?: number;
  /** Seconds; the run stops after this however many requests are in flight. */
  duration: number;
}

export interface LoadRun {
  /** Latency of every response (any status), in milliseconds. */
  latencies: Float64Array;
  statusCounts: Record<string, number>;
  /** Connection errors, timeouts included. */
  errors: number;
  timeouts: number;
  /** Seconds the run actually lasted. */
  durationSeconds: number;
}

export type ToLoad = { kind: 'run'; id: number; spec: LoadSpec } | { kind: 'exit' };
export type FromLoad = { kind: 'done'; id: number; run: LoadRun } | { kind: 'failed'; id: number; message: string };

const pick = (list: readonly string[]): string => list[Math.floor(Math.random() * list.length)]!;

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

function runOnce(spec: LoadSpec): Promise<LoadRun> {
  const target = new URL(spec.url);
  if (!LOOPBACK.has(target.hostname)) return Promise.reject(new Error(`refusing to load a non-loopback target: ${target.host}`));
  return new Promise((resolve, reject) => {
    let latencies = new Float64Array(1 << 16);
    let count = 0;
    const instance = autocannon(
      {
        url: spec.url,
        method: spec.method,
        headers: spec.headers,
        ...(spec.body === undefined ? {} : { body: spec.body }),
        connections: spec.connections,
        duration: spec.duration,
        ...(spec.overallRate ? { overallRate: spec.overallRate } : {}),
        ...(spec.paths?.length || spec.bodies?.length
          ? { requests: [{ setupRequest: (req: autocannon.Request) => ({ ...req, ...(spec.paths?.length ? { path: pick(spec.paths) } : {}), ...(spec.bodies?.length ? { body: pick(spec.bodies) } : {}) }) }] }
          : {}),
        timeout: 10,
      },
      (err, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const statusCounts: Record<string, number> = {};
        for (const [status, stats] of Object.entries(result.statusCodeStats ?? {})) statusCounts[status] = stats.count ?? 0;
        resolve({ latencies: latencies.slice(0, count), statusCounts, errors: result.errors, timeouts: result.timeouts, durationSeconds: result.duration });
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2);
        grown.set(latencies);
        latencies = grown;
      }
      latencies[count++] = responseTime;
    });
  });
}

const send = (message: FromLoad) => process.send?.(message);

process.on('message', (message: ToLoad) => {
  if (message.kind === 'exit') {
    process.disconnect?.();
    return;
  }
  runOnce(message.spec).then(
    (run) => send({ kind: 'done', id: message.id, run }),
    (err: unknown) => send({ kind: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) }),
  );
});

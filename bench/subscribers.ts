/**
 * The subscriber pool of bench/subscriptions-fanout.ts, run as a child process (bench/child.ts) so
 * that a thousand sockets' parsing never shares the server's event loop. One job at a time over IPC:
 *
 * - `open`: `count` graphql-ws connections to `url`, round-robin over `tokens` (each in
 *   `connection_init`), each subscribing to `query`; answers once every connection is acknowledged
 *   and has sent its subscribe message;
 * - `await`: waits until every subscriber holds `perSubscriber` deliveries (or `timeoutMs` passed)
 *   and answers with every delivery since the last `reset`, stamped on arrival;
 * - `produce`: completes the given sync jobs through `POST /graphql` (`completeSyncJob`, one
 *   `pipeline.sync.completed` each), `interval` ms apart, from this process so the producer never
 *   waits on the server's event loop for its own stamps; answers when each mutation returned;
 * - `reset`: forgets the deliveries so far (after the warm-up event);
 * - `close`: disposes every client.
 *
 * Arrival times are `performance.timeOrigin + performance.now()`: wall-clock milliseconds with a
 * fraction, comparable with the parent's stamps on the same machine.
 */
import { createClient, type Client } from 'graphql-ws';
import { createClient as createSseClient } from 'graphql-sse';
import WebSocket from 'ws';

export type SubscriberSpec =
  | { op: 'open'; url: string; tokens: string[]; count: number; query: string; field: string; transport?: 'ws' | 'sse' }
  | { op: 'await'; perSubscriber: number; timeoutMs: number }
  | { op: 'produce'; url: string; token: string; jobIds: string[]; interval: number }
  | { op: 'reset' }
  | { op: 'close' };

export interface Delivery {
  subscriber: number;
  eventId: string;
  /** The event's `occurredAt` (ISO 8601). */
  occurredAt: string;
  /** `data.job_id` of a pipeline.sync.* event, to match the producing mutation. */
  jobId: string | null;
  receivedAt: number;
}

export interface SubscriberRun {
  connected: number;
  deliveries: Delivery[];
  /** Subscribers holding fewer than asked for when `await` gave up. */
  short: number;
  /** Error results, subscription errors and unexpected closes, first 20. */
  errors: string[];
  errorCount: number;
  /** `produce`: when each job's completing mutation returned, by job id. */
  returned?: [string, number][];
}

type ToPool = { kind: 'run'; id: number; spec: SubscriberSpec } | { kind: 'exit' };
type FromPool = { kind: 'done'; id: number; run: SubscriberRun } | { kind: 'failed'; id: number; message: string };

const now = () => performance.timeOrigin + performance.now();

const clients: Pick<Client, 'dispose'>[] = [];
let counts: number[] = [];
let deliveries: Delivery[] = [];
const errors: string[] = [];
let errorCount = 0;
let connected = 0;
let onDelivery: (() => void) | undefined;

function noteError(message: string): void {
  errorCount++;
  if (errors.length < 20) errors.push(message);
}

function snapshot(short = 0): SubscriberRun {
  return { connected, deliveries, short, errors: [...errors], errorCount };
}

type DeliveredData = Record<string, { id: string; occurredAt: string; data: Record<string, unknown> } | null>;

/** What subscriber `i` does with each message, whatever its transport: record the delivery, or the error. */
function deliveryObserver(spec: Extract<SubscriberSpec, { op: 'open' }>, i: number) {
  return {
    next: (value: { data?: DeliveredData | null; errors?: readonly unknown[] }) => {
      const receivedAt = now();
      const event = value.data?.[spec.field];
      if (value.errors?.length || !event) {
        noteError(JSON.stringify(value.errors ?? value).slice(0, 300));
        return;
      }
      counts[i] = (counts[i] ?? 0) + 1;
      deliveries.push({ subscriber: i, eventId: event.id, occurredAt: event.occurredAt, jobId: typeof event.data['job_id'] === 'string' ? event.data['job_id'] : null, receivedAt });
      onDelivery?.();
    },
    error: (err: unknown) => noteError(`subscriber ${i}: ${err instanceof Error ? err.message : JSON.stringify(err).slice(0, 300)}`),
    complete: () => undefined,
  };
}

async function open(spec: Extract<SubscriberSpec, { op: 'open' }>): Promise<SubscriberRun> {
  const BATCH = 50;
  errors.length = 0;
  errorCount = 0;
  for (let start = 0; start < spec.count; start += BATCH) {
    const batch: Promise<void>[] = [];
    for (let i = start; i < Math.min(spec.count, start + BATCH); i++) {
      const token = spec.tokens[i % spec.tokens.length]!;
      if (spec.transport === 'sse') {
        batch.push(openSse(spec, i, token));
        continue;
      }
      const client = createClient({ url: spec.url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, lazy: false, retryAttempts: 0, keepAlive: 0 });
      clients.push(client);
      counts[i] = 0;
      batch.push(
        new Promise<void>((resolve, reject) => {
          client.on('connected', () => {
            connected++;
            resolve();
          });
          client.on('closed', (event) => {
            const code = (event as { code?: number }).code;
            if (code !== 1000) noteError(`subscriber ${i} closed with ${String(code)}`);
            reject(new Error(`subscriber ${i} closed with ${String(code)} before it was acknowledged`));
          });
        }),
      );
      client.subscribe<DeliveredData>({ query: spec.query }, deliveryObserver(spec, i));
    }
    await Promise.all(batch);
  }
  return snapshot();
}

/**
 * One GraphQL-over-SSE subscriber (graphql-sse's client, one stream per subscription, as an
 * integrator behind a proxy without WebSocket would run it). The stream has no acknowledgement
 * either: it counts as connected once its request is sent; the warm-up event proves it is served.
 */
async function openSse(spec: Extract<SubscriberSpec, { op: 'open' }>, i: number, token: string): Promise<void> {
  const client = createSseClient({ url: spec.url, headers: { authorization: `Bearer ${token}` }, retryAttempts: 0 });
  clients.push(client);
  counts[i] = 0;
  connected++;
  client.subscribe<DeliveredData>({ query: spec.query }, deliveryObserver(spec, i));
}

function awaitDeliveries(spec: Extract<SubscriberSpec, { op: 'await' }>): Promise<SubscriberRun> {
  const expected = spec.perSubscriber * counts.length;
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      onDelivery = undefined;
      resolve(snapshot(counts.filter((c) => c < spec.perSubscriber).length));
    };
    const timer = setTimeout(finish, spec.timeoutMs);
    onDelivery = () => {
      if (deliveries.length >= expected && counts.every((c) => c >= spec.perSubscriber)) finish();
    };
    onDelivery();
  });
}

async function produce(spec: Extract<SubscriberSpec, { op: 'produce' }>): Promise<SubscriberRun> {
  const returned: [string, number][] = [];
  for (const jobId of spec.jobIds) {
    const res = await fetch(spec.url, {
      method: 'POST',
      headers: { authorization: `Bearer ${spec.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 1) { status } }', variables: { j: jobId } }),
    });
    const body = (await res.json()) as { errors?: unknown };
    returned.push([jobId, now()]);
    if (!res.ok || body.errors) throw new Error(`completeSyncJob ${res.status}: ${JSON.stringify(body.errors ?? body).slice(0, 300)}`);
    if (spec.interval) await new Promise((resolve) => setTimeout(resolve, spec.interval));
  }
  return { ...snapshot(), returned };
}

async function handle(spec: SubscriberSpec): Promise<SubscriberRun> {
  switch (spec.op) {
    case 'produce':
      return produce(spec);
    case 'open':
      return open(spec);
    case 'await':
      return awaitDeliveries(spec);
    case 'reset':
      deliveries = [];
      counts = counts.map(() => 0);
      return snapshot();
    case 'close':
      await Promise.all(clients.splice(0).map((c) => c.dispose()));
      counts = [];
      connected = 0;
      return snapshot();
  }
}

const send = (message: FromPool) => process.send?.(message);

process.on('message', (message: ToPool) => {
  if (message.kind === 'exit') {
    void Promise.all(clients.map((c) => c.dispose())).finally(() => process.disconnect?.());
    return;
  }
  handle(message.spec).then(
    (run) => send({ kind: 'done', id: message.id, run }),
    (err: unknown) => send({ kind: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) }),
  );
});

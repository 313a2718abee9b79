import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import pg from 'pg';
import { freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { startOwnRedis, type OwnRedis } from './support/redis-server.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const EVENTS = 300;
/**
 * How long the test may go without any progress, or until production ends, before it fails and says
 * where it is: generous, since every kill and restart boots a process on a machine the other test
 * files share.
 */
const STALL_MS = 90_000;
const PRODUCTION_MS = 300_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const portOf = (url: string) => Number(new URL(url).port);

/** Something that should see every committed event: a live subscriber now, a webhook receiver later. */
interface Observer {
  name: string;
  /** Event ids delivered with their data. */
  ids: Set<string>;
  /** Event ids delivered with an error on the field (retries exhausted): delivered, not dropped. */
  failed: Set<string>;
  stop(): Promise<void>;
}

/**
 * A subscriber of one gateway replica that reconnects after a drop and resumes with `after` (the
 * last event id it saw), as a client library would.
 */
function liveSubscriber(name: string, gatewayUrl: () => string, token: string): Observer & { connected: Promise<void> } {
  const ids = new Set<string>();
  const failed = new Set<string>();
  let lastId: string | null = null;
  let client: Client | undefined;
  let stopped = false;
  let markConnected!: () => void;
  const connected = new Promise<void>((r) => (markConnected = r));
  const run = async () => {
    while (!stopped) {
      await new Promise<void>((resolve) => {
        client = createClient({ url: `${gatewayUrl().replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, lazy: false, retryAttempts: 0 });
        client.on('connected', () => setTimeout(markConnected, 300));
        client.on('closed', () => resolve());
        client.subscribe<{ events: { id: string } | null }>(
          { query: 'subscription($after: ID) { events(types: ["pipeline.sync.completed"], after: $after) { id } }', variables: { after: lastId } },
          {
            next: (value) => {
              const id = value.data?.events?.id;
              if (id) {
                ids.add(id);
                lastId = id;
              }
              for (const error of value.errors ?? []) {
                const eventId = (error.extensions as { eventId?: string } | undefined)?.eventId;
                if (eventId) failed.add(eventId);
              }
            },
            error: () => resolve(),
            complete: () => resolve(),
          },
        );
      });
      await client?.dispose();
      if (!stopped) await sleep(300);
    }
  };
  const loop = run();
  return {
    name,
    ids,
    failed,
    connected,
    async stop() {
      stopped = true;
      await client?.dispose();
      await loop;
    },
  };
}

/**
 * A webhook receiver in this process (never killed): it verifies every request with
 * standardwebhooks and processes each webhook-id once; an event counts as delivered when a verified
 * delivery of it was processed. `ids` is computed from what it processed, deduplicated by webhook-id.
 */
function webhookObserver(receiver: WebhookReceiver, path: string): Observer & { deliveries: () => number; requests: () => number } {
  const processed = () => [...receiver.state(path).processed.values()].map((body) => (body as { event_id: string }).event_id);
  return {
    name: 'webhook receiver',
    get ids() {
      return new Set(processed());
    },
    failed: new Set<string>(),
    /** Distinct webhook-ids processed (one delivery per event and endpoint). */
    deliveries: () => processed().length,
    /** Every request, retries and redeliveries included. */
    requests: () => receiver.of(path).length,
    stop: () => receiver.close(),
  };
}

/**
 * The proof of the durable backbone, in the distributed mode as separate processes on PostgreSQL
 * and a private Redis: 300 events are produced while the emitting subgraph (pipeline), the worker,
 * a gateway replica and Redis are each SIGKILLed and restarted. Afterwards every committed event is
 * in the event log exactly once, reached a live subscriber on each gateway replica (deduplicated
 * by id) and reached a webhook receiver once (verified with standardwebhooks, deduplicated by
 * webhook-id). To prove another consumer, add an Observer to `observers`.
 */
describe.runIf(USE_POSTGRES)('durable events under SIGKILL (distributed mode)', () => {
  let storage: TestStorage;
  let redis: OwnRedis;
  let env: Record<string, string>;
  const processes = new Map<string, ServiceProcess>();
  const observers: Observer[] = [];
  const token = `kill_${randomBytes(18).toString('base64url')}`;
  const gatewayA = () => processes.get('gatewayA')!;
  /** What the test is doing and the last answer it retried: named in the failure if it stalls. */
  const watch = { step: 'starting', lastRetried: '', stalled: false };
  let stopWatching: () => void = () => {};
  /**
   * Rejects when `signature` has not changed for `STALL_MS` (nothing produced, delivered or
   * restarted) or production has not ended after `PRODUCTION_MS`, naming the state and each component's
   * last output, rather than leaving the test to time out without a word.
   */
  const watchForStall = (signature: () => string, state: () => object) => {
    let last = signature();
    const started = Date.now();
    let since = started;
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<never>((_, reject) => {
      timer = setInterval(() => {
        const now = signature();
        if (now !== last) [last, since] = [now, Date.now()];
        if (Date.now() - since > STALL_MS || Date.now() - started > PRODUCTION_MS) {
          watch.stalled = true;
          clearInterval(timer);
          const outputs = [...processes.entries()].map(([key, p]) => `--- ${key} (${p.role}, exit ${p.child.exitCode ?? p.child.signalCode ?? 'running'}):\n${p.output().slice(-2_000)}`);
          reject(new Error(`no progress for ${Date.now() - since} ms, ${Date.now() - started} ms into the test: ${JSON.stringify(state())}\n${outputs.join('\n')}`));
        }
      }, 1_000);
    });
    // Also seen by whoever races it; this only keeps an unraced rejection from going unhandled.
    promise.catch(() => undefined);
    stopWatching = () => clearInterval(timer);
    return promise;
  };

  const start = async (key: string, role: string, extra: Record<string, string> = {}, ports?: { port: number; internalPort: number }) => {
    const service = await startProcess(role, { ...env, ...extra }, ports ?? {});
    processes.set(key, service);
    return service;
  };
  /** SIGKILL a component and start it again on the same ports. */
  const killAndRestart = async (key: string, extra: Record<string, string> = {}) => {
    watch.step = `killing and restarting ${key}`;
    const old = processes.get(key)!;
    await old.stop('SIGKILL');
    const again = await start(key, old.role, extra, { port: portOf(old.url), internalPort: portOf(old.internalUrl) });
    await waitUntilReady(again, 120_000);
  };

  beforeAll(async () => {
    storage = await freshStorage();
    redis = await startOwnRedis();
    env = {
      ...storage.env,
      SVC_REDIS_URL: redis.url,
      SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'),
      SVC_OUTBOX_POLL_MS: '100',
      SVC_EVENT_CLAIM_IDLE_MS: '3000',
      SVC_RATE_LIMITS: 'off',
      // The webhook receiver listens on loopback; retries stay short (a killed sender's lease ends
      // after two attempt timeouts plus 2 s) and many, so no delivery runs out of attempts here.
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      SVC_WEBHOOK_RETRY_BASE_MS: '200',
      SVC_WEBHOOK_BACKOFF_FACTOR: '2',
      SVC_WEBHOOK_RETRY_MAX_DELAY_MS: '2000',
      SVC_WEBHOOK_MAX_ATTEMPTS: '50',
      SVC_WEBHOOK_TIMEOUT_MS: '2000',
      SVC_WEBHOOK_POLL_MS: '100',
      SVC_WEBHOOK_ENDPOINT_CONCURRENCY: '8',
    };
    const names = ['partner', 'identity', 'fhir', 'pipeline'];
    await Promise.all(names.map((n) => start(n, `subgraph:${n}`, n === 'partner' ? { SVC_BOOTSTRAP_TOKEN: token } : {})));
    // A fresh database: the subgraphs run their migrations (FHIR's are many); on a busy machine this dominates.
    await Promise.all(names.map((n) => waitUntilReady(processes.get(n)!, 300_000)));
    const urls = Object.fromEntries(names.map((n) => [`SVC_SUBGRAPH_${n.toUpperCase()}_URL`, `${processes.get(n)!.url}/graphql`]));
    env = { ...env, ...urls };
    await Promise.all([start('worker', 'worker'), start('gatewayA', 'gateway'), start('gatewayB', 'gateway')]);
    await Promise.all(['worker', 'gatewayA', 'gatewayB'].map((k) => waitUntilReady(processes.get(k)!, 200_000)));
  }, 540_000);

  afterAll(async () => {
    stopWatching();
    await Promise.all(observers.map((o) => o.stop()));
    await Promise.all([...processes.values()].map((s) => s.stop('SIGKILL')));
    await redis?.dispose();
    await storage?.dispose();
  });

  it('loses no committed event: all in the event log once, all delivered to a live subscriber on each gateway and to a webhook receiver once', async () => {
    let produced = 0;
    const started = Date.now();
    const stalled = watchForStall(() => [produced, watch.step, ...observers.map((o) => o.ids.size)].join(' '), () => ({ produced, ...watch }));
    const unlessStalled = <T>(work: Promise<T>) => Promise.race([work, stalled]);
    const gql = async <T>(query: string, variables: Record<string, unknown>) => {
      const res = await fetch(`${gatewayA().url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }), signal: AbortSignal.timeout(60_000) });
      return (await res.json()) as { data?: T | null; errors?: { extensions?: { code?: string } }[] };
    };
    /** Retry a mutation until it answers without a transient error (the component may be down). */
    const persist = async <T>(query: string, variables: Record<string, unknown>): Promise<{ data?: T | null; errors?: unknown[] }> => {
      while (!watch.stalled) {
        try {
          const res = await gql<T>(query, variables);
          const transient = (res.errors ?? []).some((e) => ['UPSTREAM_UNAVAILABLE', 'SERVICE_UNAVAILABLE', 'INTERNAL', 'INTERNAL_SERVER_ERROR'].includes(e.extensions?.code ?? ''));
          if (!transient) return res;
          watch.lastRetried = JSON.stringify(res.errors);
        } catch (err) {
          // Connection refused while a component restarts, or no answer within the request's timeout.
          watch.lastRetried = String(err);
        }
        await sleep(200);
      }
      throw new Error('stalled');
    };
    watch.step = 'registering a partner and its webhook';
    const partner = await persist<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Durable Health", organizationType: "PAYER" }) { gpid } }', {});
    const gpid = partner.data!.registerPartner.gpid;

    // A webhook of the partner for the produced event type, registered before production.
    const receiver = await WebhookReceiver.start();
    const url = receiver.path('hook');
    const created = await persist<{ createWebhook: { secret: string } }>('mutation($i: CreateWebhookInput!) { createWebhook(input: $i) { secret } }', {
      i: { partnerGpid: gpid, url, eventTypes: ['pipeline.sync.completed'] },
    });
    expect(created.errors).toBeUndefined();
    receiver.setSecrets('hook', [created.data!.createWebhook.secret]);
    const webhook = webhookObserver(receiver, 'hook');
    observers.push(webhook);

    observers.push(
      liveSubscriber('subscriber on gateway A', () => gatewayA().url, token),
      liveSubscriber('subscriber on gateway B (killed and restarted)', () => processes.get('gatewayB')!.url, token),
    );
    watch.step = 'connecting the subscribers';
    await unlessStalled(Promise.all(observers.map((o) => (o as Observer & { connected?: Promise<void> }).connected)));

    watch.step = 'producing';
    const producer = async () => {
      while (produced < EVENTS) {
        produced++;
        const job = await persist<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
        const jobId = job.data?.createSyncJob?.jobId;
        if (jobId) await persist('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 1) { status } }', { j: jobId });
      }
    };
    const after = async (count: number) => {
      while (produced < count) await sleep(50);
    };
    const chaos = async () => {
      await after(40);
      await killAndRestart('pipeline');
      await after(100);
      await killAndRestart('worker');
      await after(160);
      await killAndRestart('gatewayB');
      await after(220);
      watch.step = 'killing and restarting Redis';
      await redis.kill();
      await sleep(2_000);
      await redis.restart();
      watch.step = 'chaos done';
    };
    await unlessStalled(Promise.all([producer(), producer(), producer(), chaos()]));
    stopWatching();

    const db = new pg.Client({ connectionString: storage.env['SVC_DATABASE_URL'] });
    await db.connect();
    const ids = async (sql: string) => new Set(((await db.query<{ id: string }>(sql)).rows).map((r) => r.id));
    const committed = await ids("select id from pipeline_outbox where type = 'pipeline.sync.completed'");
    let logged = new Set<string>();
    const missing = (seen: Set<string>) => [...committed].filter((id) => !seen.has(id));
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      logged = await ids("select id from pipeline_events where type = 'pipeline.sync.completed'");
      if (missing(logged).length === 0 && observers.every((o) => missing(new Set([...o.ids, ...o.failed])).length === 0)) break;
      await sleep(500);
    }
    const unpublished = (await db.query("select count(*)::int as n from pipeline_outbox where published_at is null")).rows[0] as { n: number };
    const logRows = (await db.query("select count(*)::int as n from pipeline_events where type = 'pipeline.sync.completed'")).rows[0] as { n: number };
    await db.end();

    const counts = {
      seconds: Math.round((Date.now() - started) / 1000),
      committed: committed.size,
      inEventLog: logRows.n,
      missingFromLog: missing(logged).length,
      unpublishedOutboxRows: unpublished.n,
      'webhook receiver: distinct deliveries processed': webhook.deliveries(),
      'webhook receiver: requests (retries included)': webhook.requests(),
      'webhook receiver: requests not verified': receiver.of('hook').filter((r) => r.verifiedWith === -1).length,
      ...Object.fromEntries(observers.flatMap((o) => [[`${o.name}: delivered`, o.ids.size], [`${o.name}: with error`, o.failed.size], [`${o.name}: missing`, missing(new Set([...o.ids, ...o.failed])).length]])),
    };
    console.log('durable events under SIGKILL:', JSON.stringify(counts, null, 2));

    expect(committed.size).toBeGreaterThanOrEqual(EVENTS);
    expect(missing(logged)).toEqual([]);
    expect(logRows.n).toBe(committed.size);
    expect(unpublished.n).toBe(0);
    for (const o of observers) expect(missing(new Set([...o.ids, ...o.failed]))).toEqual([]);
    // Once each: one delivery (webhook-id) per committed event, every request verified.
    expect(webhook.deliveries()).toBe(committed.size);
    expect(webhook.ids.size).toBe(committed.size);
    expect(receiver.of('hook').filter((r) => r.verifiedWith === -1)).toEqual([]);
    // Production may take PRODUCTION_MS on a busy machine, then the checks wait for the deliveries.
  }, PRODUCTION_MS + 300_000);
});

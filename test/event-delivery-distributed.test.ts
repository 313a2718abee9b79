import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import pg from 'pg';
import { Redis } from 'ioredis';
import { freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { eventually } from './support/patience.js';

interface Registered {
  id: string;
  type: string;
  occurredAt: string;
  partnerGpid: string;
  data: { event: string; partner_gpid: string; legal_name: string };
  partner: { gpid: string; legalName: string } | null;
}
interface Result {
  data?: { events: Registered | null } | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

const SELECTION = 'id type occurredAt partnerGpid data partner { gpid legalName }';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const OUTBOXES = ['partner_outbox', 'identity_outbox', 'fhir_outbox', 'pipeline_outbox'];

/**
 * Event delivery in the distributed mode (issue #32, point 6), every component its own process on
 * PostgreSQL and Redis, the partner subgraph and the worker both relaying the partner outbox:
 * each committed event is one stream entry and reaches a subscriber once; a subscriber gets full
 * payloads while the pipeline subgraph is stopped; a resume delivers exactly the events after the
 * given one.
 */
describe.runIf(USE_POSTGRES)('event delivery in the distributed mode: relayed once, payloads from the stream, exact resume', () => {
  let storage: TestStorage;
  const processes = new Map<string, ServiceProcess>();
  const clients: Client[] = [];
  let redis: Redis;
  let db: pg.Client;
  const token = `ev_${randomBytes(18).toString('base64url')}`;
  const gateway = () => processes.get('gateway')!;

  const gql = async <T>(query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${gateway().url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as { data?: T | null; errors?: { extensions?: { code?: string } }[] };
  };
  const register = async (legalName: string): Promise<string> => {
    const res = await gql<{ registerPartner: { gpid: string } }>('mutation($n: String!) { registerPartner(input: { legalName: $n, organizationType: "PAYER" }) { gpid } }', { n: legalName });
    expect(res.errors).toBeUndefined();
    return res.data!.registerPartner.gpid;
  };
  /** A graphql-ws subscription of partner.registered events (resuming after `after`), collecting what it receives. */
  const subscribe = async (after: string | null = null): Promise<{ results: Result[]; events: () => Registered[]; dispose: () => Promise<void> }> => {
    const client = createClient({ url: `${gateway().url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, lazy: false, retryAttempts: 0 });
    clients.push(client);
    const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
    const results: Result[] = [];
    client.subscribe(
      { query: `subscription($after: ID) { events(types: ["partner.registered"], after: $after) { ${SELECTION} } }`, variables: { after } },
      { next: (value) => void results.push(value as Result), error: (err) => void results.push({ errors: [{ message: String(err) }] }), complete: () => undefined },
    );
    await connected;
    // graphql-ws acknowledges the connection before the subscribe message is handled.
    await sleep(300);
    return { results, events: () => results.map((r) => r.data?.events).filter((e): e is Registered => !!e), dispose: async () => void (await client.dispose()) };
  };
  const count = async (sql: string) => Number(((await db.query<{ n: string }>(sql)).rows[0] ?? { n: 0 }).n);
  /** The event ids of every entry of the stream, in stream order. */
  const streamIds = async (): Promise<string[]> => {
    const entries = await redis.xrange(`${storage.env['SVC_REDIS_PREFIX']}:events:stream`, '-', '+');
    return entries.map(([, fields]) => (JSON.parse(fields[fields.indexOf('event') + 1]!) as { id: string }).id);
  };
  /** A counter's value summed over every series with these labels, from one process's /metrics. */
  const metric = async (service: ServiceProcess, name: string, owner: string): Promise<number> => {
    const text = await (await fetch(`${service.url}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith(`${name}{`) && line.includes(`owner="${owner}"`))
      .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
  };

  beforeAll(async () => {
    storage = await freshStorage();
    const env = { ...storage.env, SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'), SVC_OUTBOX_POLL_MS: '100', SVC_RATE_LIMITS: 'off' };
    const names = ['partner', 'identity', 'fhir', 'pipeline'];
    const subgraphs = await Promise.all(names.map((n) => startProcess(`subgraph:${n}`, n === 'partner' ? { ...env, SVC_BOOTSTRAP_TOKEN: token } : env)));
    subgraphs.forEach((s, i) => processes.set(names[i]!, s));
    await Promise.all(subgraphs.map((s) => waitUntilReady(s, 300_000)));
    const urls = Object.fromEntries(names.map((n) => [`SVC_SUBGRAPH_${n.toUpperCase()}_URL`, `${processes.get(n)!.url}/graphql`]));
    // The worker relays every outbox too, the partner's beside the partner subgraph's own relay.
    const [worker, gw] = await Promise.all([startProcess('worker', env), startProcess('gateway', { ...env, ...urls })]);
    processes.set('worker', worker);
    processes.set('gateway', gw);
    await Promise.all([waitUntilReady(worker, 200_000), waitUntilReady(gw, 200_000)]);
    redis = new Redis(storage.env['SVC_REDIS_URL']!);
    db = new pg.Client({ connectionString: storage.env['SVC_DATABASE_URL'] });
    await db.connect();
  }, 540_000);

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await Promise.all([...processes.values()].map((s) => s.stop('SIGKILL')));
    redis?.disconnect();
    await db?.end();
    await storage?.dispose();
  });

  it('appends each committed event to the stream once, with two processes relaying the same outbox, and delivers it to a subscriber once', async () => {
    const sub = await subscribe();
    const gpids: string[] = [];
    // Concurrent commits, so both relays of the partner outbox are woken and sweep at the same time.
    for (let round = 0; round < 4; round++) gpids.push(...(await Promise.all(Array.from({ length: 5 }, (_, i) => register(`Relayed Once ${round}-${i}`)))));
    const outboxRows = () => count(`select (${OUTBOXES.map((t) => `(select count(*) from ${t})`).join(' + ')}) as n`);
    await eventually(async () => {
      expect(await count(`select (${OUTBOXES.map((t) => `(select count(*) from ${t} where published_at is null)`).join(' + ')}) as n`)).toBe(0);
      expect(sub.events().filter((e) => gpids.includes(e.partnerGpid))).toHaveLength(gpids.length);
    });
    await sleep(1_000); // a duplicate would arrive within this

    // The stream: one entry per outbox row, no event twice.
    const ids = await streamIds();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(await outboxRows());
    // Both processes relay the partner outbox; together they handed each row to the stream once.
    const partnerRows = await count('select count(*) as n from partner_outbox');
    const relayers = [processes.get('partner')!, processes.get('worker')!];
    const relayed = await Promise.all(relayers.map((p) => metric(p, 'svc_outbox_events_relayed_total', 'partner')));
    expect(relayed[0]! + relayed[1]!).toBe(partnerRows);
    expect(await Promise.all(relayers.map((p) => metric(p, 'svc_outbox_events_relayed_again_total', 'partner')))).toEqual([0, 0]);

    // The subscriber: each event once, with its payload.
    const mine = sub.events().filter((e) => gpids.includes(e.partnerGpid));
    expect(sub.results.filter((r) => r.errors)).toEqual([]);
    expect(new Set(mine.map((e) => e.id)).size).toBe(gpids.length);
    expect(new Set(mine.map((e) => e.partnerGpid))).toEqual(new Set(gpids));
    for (const e of mine) expect(e).toMatchObject({ type: 'partner.registered', data: { event: 'partner.registered', partner_gpid: e.partnerGpid }, partner: { gpid: e.partnerGpid, legalName: e.data.legal_name } });
    await sub.dispose();
  });

  it('delivers full payloads while the pipeline subgraph is stopped', async () => {
    expect(await processes.get('pipeline')!.stop('SIGTERM')).toBe(0);
    // The pipeline's own data is out of reach...
    const log = await gql('{ events(first: 1) { edges { node { id } } } }');
    expect(log.errors?.[0]?.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    // ...but events still reach subscribers whole: the envelope comes from the stream, the partner from its subgraph.
    const sub = await subscribe();
    const gpids = [await register('Pipeline Down A'), await register('Pipeline Down B'), await register('Pipeline Down C')];
    await eventually(async () => expect(sub.results).toHaveLength(3));
    expect(sub.results.filter((r) => r.errors)).toEqual([]);
    const got = sub.events();
    expect(got.map((e) => e.partnerGpid)).toEqual(gpids);
    got.forEach((e, i) => {
      expect(e).toMatchObject({ type: 'partner.registered', partnerGpid: gpids[i], data: { event: 'partner.registered', partner_gpid: gpids[i], legal_name: `Pipeline Down ${'ABC'[i]}` } });
      expect(e.partner).toEqual({ gpid: gpids[i], legalName: `Pipeline Down ${'ABC'[i]}` });
      expect(Date.parse(e.occurredAt)).not.toBeNaN();
    });
    await sub.dispose();
  });

  it('resumes after an event with exactly the events that came after it, then live ones (the pipeline subgraph still stopped)', async () => {
    const live = await subscribe();
    const gpids: string[] = [];
    for (let i = 0; i < 6; i++) gpids.push(await register(`Resumed ${i}`));
    await eventually(async () => expect(live.events()).toHaveLength(6));
    const seen = live.events().map((e) => e.id);
    expect(live.events().map((e) => e.partnerGpid)).toEqual(gpids);

    const resumed = await subscribe(seen[2]!);
    await eventually(async () => expect(resumed.results).toHaveLength(3));
    const later = await register('Resumed live');
    await eventually(async () => expect(resumed.results).toHaveLength(4));
    await sleep(1_000); // a repeat would arrive within this
    expect(resumed.results.filter((r) => r.errors)).toEqual([]);
    expect(resumed.events().map((e) => e.id).slice(0, 3)).toEqual(seen.slice(3));
    expect(resumed.events().map((e) => e.partnerGpid)).toEqual([...gpids.slice(3), later]);
    await Promise.all([live.dispose(), resumed.dispose()]);
  });
});

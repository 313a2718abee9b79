import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, registerPartner } from './support/fhir.js';
import { eventually as eventuallyAsync } from './support/identity.js';

const eventually = (check: () => unknown) => eventuallyAsync(async () => check(), 10_000);

interface Result {
  data?: Record<string, { id: string; type: string; partnerGpid: string | null; data: Record<string, unknown> } | null> | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/** A live subscription: every result it received so far. */
function subscribe(client: Client, query: string): { results: Result[]; dispose: () => void } {
  const results: Result[] = [];
  const dispose = client.subscribe<Result['data']>({ query }, {
    next: (value) => void results.push(value as Result),
    error: (err) => void results.push({ errors: [{ message: String(err) }] }),
    complete: () => undefined,
  });
  return { results, dispose };
}

/**
 * The embedded default's event backbone through its public doors: subscriptions per event type over
 * graphql-ws (tenancy, scopes, resume with `after`), and the event log that records every event once.
 */
describe('event backbone (embedded): per-type subscriptions, resume, and the event log', () => {
  let t: TestSystem;
  let url: string;
  const clients: Client[] = [];
  const connect = async (token: string) => {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${token}` }, lazy: false, retryAttempts: 0 });
    clients.push(client);
    await new Promise<void>((resolve) => client.on('connected', () => resolve()));
    return client;
  };
  /** Create and complete a sync job of `gpid`; answers its job id. */
  const completeJob = async (gpid: string, records: number) => {
    const job = await t.graphql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
    const jobId = job.data!.createSyncJob.jobId;
    const done = await t.graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: $n) { status } }'.replace('$n', String(records)), { j: jobId });
    expect(done.errors).toBeUndefined();
    return jobId;
  };
  const settle = () => new Promise((r) => setTimeout(r, 200));

  beforeAll(async () => {
    t = await bootSystem();
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t?.close();
  });

  it('has one root field per event type; a partner receives only its own events, and needs the scope', async () => {
    const [a, b] = [await registerPartner(t, 'Typed Events A'), await registerPartner(t, 'Typed Events B')];
    const tokenA = await apiToken(t, a, ['cms.pipeline.read']);
    const unscoped = await apiToken(t, a, ['cms.sdk.read']);
    const sub = subscribe(await connect(tokenA), 'subscription { pipelineSyncCompleted { id type partnerGpid data } }');
    const refused = subscribe(await connect(unscoped), 'subscription { pipelineSyncCompleted { id } }');
    await settle();
    await completeJob(b, 1);
    const jobA = await completeJob(a, 2);
    await eventually(() => expect(sub.results.length).toBe(1));
    await settle();
    expect(sub.results).toHaveLength(1);
    expect(sub.results[0]!.data!['pipelineSyncCompleted']).toMatchObject({ type: 'pipeline.sync.completed', partnerGpid: a, data: { event: 'pipeline.sync.completed', job_id: jobA, partner_gpid: a, records_processed: 2 } });
    expect(refused.results[0]!.errors![0]!.extensions).toMatchObject({ code: 'INSUFFICIENT_SCOPE', required_scope: 'cms.pipeline.read' });
    sub.dispose();
  });

  it('resumes after a disconnect with after: the missed events first, then live ones, none twice', async () => {
    const gpid = await registerPartner(t, 'Resuming Health');
    const token = await apiToken(t, gpid, ['cms.pipeline.read']);
    const query = (after?: string) => `subscription { seen: pipelineSyncCompleted${after ? `(after: "${after}")` : ''} { id data } }`;
    const first = subscribe(await connect(token), query());
    await settle();
    const job1 = await completeJob(gpid, 1);
    await eventually(() => expect(first.results.length).toBe(1));
    const lastSeen = first.results[0]!.data!['seen']!.id;
    expect(first.results[0]!.data!['seen']!.data['job_id']).toBe(job1);
    first.dispose();
    await clients.shift()!.dispose();

    // Missed while disconnected.
    const missed = [await completeJob(gpid, 2), await completeJob(gpid, 3)];
    const resumed = subscribe(await connect(token), query(lastSeen));
    await eventually(() => expect(resumed.results.length).toBe(2));
    const live = await completeJob(gpid, 4);
    await eventually(() => expect(resumed.results.length).toBe(3));
    await settle();
    const jobs = resumed.results.map((r) => r.data!['seen']!.data['job_id']);
    expect(jobs).toEqual([...missed, live]);
    expect(new Set(resumed.results.map((r) => r.data!['seen']!.id)).size).toBe(3);
    resumed.dispose();
  });

  it('delivers each committed event to a subscriber exactly once, with its payload from the stream', async () => {
    type Registered = { id: string; partnerGpid: string; data: { legal_name: string }; partner: { legalName: string } };
    const sub = subscribe(await connect(t.operatorToken), 'subscription { events(types: ["partner.registered"]) { id partnerGpid data partner { legalName } } }');
    await settle();
    const gpids = (await Promise.all(Array.from({ length: 12 }, (_, i) => registerPartner(t, `Once Only ${i}`)))).sort();
    const mine = () => sub.results.map((r) => r.data?.['events'] as unknown as Registered).filter((e) => e && gpids.includes(e.partnerGpid));
    await eventually(() => expect(mine()).toHaveLength(gpids.length));
    await settle();
    expect(sub.results.filter((r) => r.errors)).toEqual([]);
    expect(mine()).toHaveLength(gpids.length);
    expect(new Set(mine().map((e) => e.id)).size).toBe(gpids.length);
    expect(mine().map((e) => e.partnerGpid).sort()).toEqual(gpids);
    for (const e of mine()) expect(e.partner.legalName).toBe(e.data.legal_name);
    const metrics = (await t.system.internalApp!.inject({ url: '/metrics' })).body;
    expect(metrics).toMatch(/^svc_outbox_events_relayed_total\{owner="partner"\} [1-9]/m);
    expect(metrics).not.toMatch(/^svc_outbox_events_relayed_again_total\{[^}]*\} [1-9]/m);
    sub.dispose();
  });

  it('resumes after an event in the middle with exactly the events that came after it', async () => {
    const gpid = await registerPartner(t, 'Exact Resume Health');
    const token = await apiToken(t, gpid, ['cms.pipeline.read']);
    const query = (after?: string) => `subscription { seen: pipelineSyncCompleted${after ? `(after: "${after}")` : ''} { id data } }`;
    const live = subscribe(await connect(token), query());
    await settle();
    const jobs: string[] = [];
    for (let i = 0; i < 6; i++) jobs.push(await completeJob(gpid, i));
    await eventually(() => expect(live.results.length).toBe(6));
    const seen = live.results.map((r) => r.data!['seen']!.id);

    const resumed = subscribe(await connect(token), query(seen[2]));
    await eventually(() => expect(resumed.results.length).toBe(3));
    const later = await completeJob(gpid, 6);
    await eventually(() => expect(resumed.results.length).toBe(4));
    await settle();
    expect(resumed.results).toHaveLength(4);
    expect(resumed.results.slice(0, 3).map((r) => r.data!['seen']!.id)).toEqual(seen.slice(3));
    expect(resumed.results.map((r) => r.data!['seen']!.data['job_id'])).toEqual([...jobs.slice(3), later]);
    live.dispose();
    resumed.dispose();
  });

  it('refuses to resume after an unknown event id, naming the field', async () => {
    const sub = subscribe(await connect(t.operatorToken), 'subscription { events(after: "evt_01jzzzzzzzzzzzzzzzzzzzzzzz") { id } }');
    await eventually(() => expect(sub.results.length).toBe(1));
    expect(sub.results[0]!.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('records every event in the event log exactly once, readable through GraphQL', async () => {
    const gpid = await registerPartner(t, 'Logged Health');
    const jobs: string[] = [];
    for (let i = 0; i < 5; i++) jobs.push(await completeJob(gpid, i));
    await eventually(async () => {
      const res = await t.graphql<{ events: { edges: { node: { id: string; data: { job_id: string } } }[] } }>(
        '{ events(first: 50, types: ["pipeline.sync.completed"]) { edges { node { id data } } } }',
      );
      const mine = res.data!.events.edges.map((e) => e.node).filter((n) => jobs.includes(n.data.job_id));
      expect(mine).toHaveLength(5);
      expect(new Set(mine.map((n) => n.id)).size).toBe(5);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventually } from './support/patience.js';

interface Delivered {
  events: { id: string; type: string; data: Record<string, unknown>; partner: { gpid: string; legalName: string; syncJobs: { jobId: string; status: string }[] } | null };
}

/** Collect the next `count` results of a subscription. */
function collect(client: Client, query: string, count: number): { done: Promise<Delivered[]>; ready: Promise<void> } {
  const results: Delivered[] = [];
  let resolveReady!: () => void;
  const ready = new Promise<void>((r) => (resolveReady = r));
  const done = new Promise<Delivered[]>((resolve, reject) => {
    const dispose = client.subscribe<Delivered>({ query }, {
      next: (value) => {
        if (value.errors) reject(new Error(JSON.stringify(value.errors)));
        results.push(value.data!);
        if (results.length === count) {
          dispose();
          resolve(results);
        }
      },
      error: reject,
      complete: () => resolve(results),
    });
  });
  // graphql-ws acknowledges the connection before subscribing; a short settle lets the subscribe land.
  client.on('connected', () => setTimeout(resolveReady, 100));
  return { done, ready };
}

describe('subscriptions over WebSocket (graphql-ws), federated through the gateway', () => {
  let t: TestSystem;
  let url: string;
  beforeAll(async () => {
    t = await bootSystem();
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/graphql`;
  });
  afterAll(() => t?.close());

  it('delivers an event with a selection that reaches into the partner and pipeline subgraphs', async () => {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${t.operatorToken}` }, lazy: false });
    const { done, ready } = collect(
      client,
      'subscription { events(types: ["pipeline.sync.completed"]) { id type data partner { gpid legalName syncJobs { jobId status } } } }',
      1,
    );
    await ready;

    const partner = await t.graphql<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Streamed Health", organizationType: "LABORATORY" }) { gpid } }');
    const gpid = partner.data!.registerPartner.gpid;
    const job = await t.graphql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
    const jobId = job.data!.createSyncJob.jobId;
    await t.graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 42) { status } }', { j: jobId });

    const [delivered] = await done;
    expect(delivered!.events.type).toBe('pipeline.sync.completed');
    expect(delivered!.events.id).toMatch(/^evt_/);
    expect(delivered!.events.data).toMatchObject({ event: 'pipeline.sync.completed', job_id: jobId, partner_gpid: gpid, resource_types: ['Patient'], records_processed: 42 });
    expect(delivered!.events.data['completed_at']).toMatch(/Z$/);
    expect(delivered!.events.partner).toEqual({ gpid, legalName: 'Streamed Health', syncJobs: [{ jobId, status: 'COMPLETED' }] });
    await client.dispose();
  });

  it('lets a subscriber go as soon as its client leaves, even when no event came (svc_graphql_subscribers)', async () => {
    const subscribers = async () => {
      const res = await t.system.internalApp!.inject({ url: '/metrics' });
      return Number(res.body.split('\n').find((l) => l.startsWith('svc_graphql_subscribers '))?.split(' ')[1]);
    };
    // The other tests' subscribers have left (their clients are gone).
    await eventually(async () => expect(await subscribers()).toBe(0));
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${t.operatorToken}` }, lazy: false });
    const { ready, done } = collect(client, 'subscription { events(types: ["pipeline.sync.failed"]) { id } }', 1);
    done.catch(() => undefined);
    try {
      await ready;
      await eventually(async () => expect(await subscribers()).toBe(1));
    } finally {
      // The socket closes while the subscription waits for an event that never comes.
      await client.dispose();
    }
    await eventually(async () => expect(await subscribers()).toBe(0));
  });

  it('refuses a connection with an invalid credential', async () => {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: 'Bearer wrong' }, lazy: false, retryAttempts: 0 });
    const closed = await new Promise<number>((resolve) => client.on('closed', (event) => resolve((event as { code: number }).code)));
    expect(closed).toBe(4403);
    await client.dispose();
  });

  it('answers queries over the same socket', async () => {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${t.operatorToken}` } });
    const result = await new Promise<unknown>((resolve, reject) => {
      client.subscribe({ query: '{ viewer { kind partnerGpid } }' }, { next: resolve, error: reject, complete: () => undefined });
    });
    expect(result).toEqual({ data: { viewer: { kind: 'service', partnerGpid: 'CMS-00000000' } } });
    await client.dispose();
  });
});

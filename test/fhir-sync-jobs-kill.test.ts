import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freshStorage, USE_POSTGRES } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * kill -9 of the process running a sync job, on PostgreSQL: another process takes the job over once
 * its lease has expired and finishes it; every line is written exactly once and the job ends with
 * one pipeline.sync.completed. Runs in the PostgreSQL + Redis pass of the suite.
 */
describe.runIf(USE_POSTGRES)('a sync job survives kill -9 of its worker (PostgreSQL)', async () => {
  const storage = await freshStorage();
  const token = `kill_${randomBytes(18).toString('base64url')}`;
  // Two seconds between entries: the kill comes at least two entries (4 s) before the job would end,
  // however long a busy machine takes to show the progress.
  const env = { ...storage.env, SVC_BOOTSTRAP_TOKEN: token, SVC_RATE_LIMITS: 'off', SVC_OUTBOX_POLL_MS: '100', SVC_FHIR_SYNC_ENTRY_PAUSE_MS: '2000', SVC_FHIR_SYNC_LEASE_MS: '1000' };
  const processes: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await storage.dispose();
  });

  const call = (base: string, path: string, init: RequestInit = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) } });

  it('is taken over after the lease and completed once', async () => {
    const first = await startProcess('all', env);
    processes.push(first);
    await waitUntilReady(first);
    const body = Array.from({ length: 10 }, (_, i) => JSON.stringify({ resourceType: 'Patient', name: [{ family: 'Killnine' }], birthDate: `2001-02-${String(i + 10)}` })).join('\n');
    const accepted = await call(first.url, '/fhir/R4', { method: 'POST', headers: { 'content-type': 'application/fhir+ndjson' }, body });
    expect(accepted.status).toBe(202);
    const statusPath = new URL(accepted.headers.get('content-location')!).pathname;
    const jobId = statusPath.split('/').at(-1)!;
    await vi.waitFor(
      async () => {
        const res = await call(first.url, statusPath);
        expect(res.status).toBe(202);
        expect(res.headers.get('x-progress')).toMatch(/running .*, [1-8] of 10 entries processed/);
      },
      { timeout: 2 * PATIENCE_MS, interval: 20 },
    );
    await first.stop('SIGKILL');

    const second = await startProcess('all', env);
    processes.push(second);
    await waitUntilReady(second);
    await vi.waitFor(
      async () => {
        const res = await call(second.url, statusPath);
        expect(res.status).toBe(200);
      },
      // The lease, then up to nine paced entries.
      { timeout: 2 * PATIENCE_MS + 20_000, interval: 200 },
    );
    const found = (await (await call(second.url, '/fhir/R4/Patient?family=Killnine&_count=50')).json()) as { total: number; entry: { resource: { birthDate: string } }[] };
    expect(found.total).toBe(10);
    expect(new Set(found.entry.map((e) => e.resource.birthDate)).size).toBe(10);

    const types = async () => {
      const res = await call(second.url, '/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ events(first: 100, types: ["pipeline.sync.started", "pipeline.sync.completed"]) { edges { node { type data } } } }' }),
      });
      const json = (await res.json()) as { data: { events: { edges: { node: { type: string; data: Record<string, unknown> } }[] } } };
      return json.data.events.edges.map((e) => e.node).filter((n) => n.data['job_id'] === jobId);
    };
    await vi.waitFor(async () => expect((await types()).filter((e) => e.type === 'pipeline.sync.completed')).toHaveLength(1), { timeout: PATIENCE_MS, interval: 200 });
    const events = await types();
    expect(events.find((e) => e.type === 'pipeline.sync.completed')!.data).toMatchObject({ records_processed: 10 });
    // The takeover is a second attempt.
    expect(events.filter((e) => e.type === 'pipeline.sync.started').map((e) => e.data['attempt']).sort()).toEqual([1, 2]);
    console.log(`kill -9 takeover: job ${jobId} completed with ${found.total} patients written once`);
  }, 900_000);
});

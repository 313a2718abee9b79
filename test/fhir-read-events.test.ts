import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * SVC_FHIR_READ_EVENTS: which FHIR reads commit a `fhir.resource.read` audit event (each, batched,
 * sampled:<ratio>, off), while the certification evidence counts every successful read of the
 * partner exactly, in one piece of evidence per partner, under every setting.
 */
const READS = 24;

interface ReadEventNode {
  partnerGpid: string;
  data: Record<string, unknown>;
}

async function readEventsOf(t: TestSystem, gpid: string): Promise<ReadEventNode[]> {
  const res = await t.graphql<{ events: { edges: { node: ReadEventNode }[] } }>('{ events(first: 100, types: ["fhir.resource.read"]) { edges { node { partnerGpid data } } } }', {}, t.operatorToken);
  expect(res.errors).toBeUndefined();
  return res.data!.events.edges.map((e) => e.node).filter((n) => n.partnerGpid === gpid);
}

async function readEvidence(t: TestSystem, gpid: string): Promise<{ count: number; detail: string | null }[]> {
  const res = await t.graphql<{ partner: { certification: { evidence: { itemId: string; count: number; detail: string | null }[] } } }>(
    'query($g: ID!) { partner(gpid: $g) { certification { evidence { itemId count detail } } } }',
    { g: gpid },
    t.operatorToken,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.partner.certification.evidence.filter((e) => e.itemId === 'fhir_r4_sandbox_read').map(({ count, detail }) => ({ count, detail }));
}

describe.each([
  { setting: 'each', check: (events: ReadEventNode[]) => expect(events.map((e) => e.data['count'])).toEqual(new Array(READS).fill(1)) },
  {
    setting: 'batched',
    check: (events: ReadEventNode[]) => {
      // The first read has an event of its own; the others are counted into one event per second.
      expect(events.reduce((sum, e) => sum + Number(e.data['count']), 0)).toBe(READS);
      expect(events.length).toBeLessThan(READS);
    },
  },
  {
    setting: 'sampled:0.5',
    check: (events: ReadEventNode[]) => {
      // Each read has its own event with probability 0.5 (all or none of 24: about 1 in 8 million).
      expect(events.length).toBeGreaterThan(0);
      expect(events.length).toBeLessThan(READS);
      for (const e of events) expect(e.data).toMatchObject({ count: 1, sample_ratio: 0.5 });
    },
  },
  { setting: 'off', check: (events: ReadEventNode[]) => expect(events).toEqual([]) },
])('SVC_FHIR_READ_EVENTS=$setting', ({ setting, check }) => {
  let t: TestSystem;
  let gpid: string;
  let token: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_READ_EVENTS: setting });
    gpid = await registerPartner(t, `Reader ${setting}`);
    token = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  });
  afterAll(() => t?.close());

  it(`commits the read events the setting asks for, and the certification evidence counts all ${READS} reads in one piece`, async () => {
    const created = await fhir(t, token, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'Counted' }] });
    expect(created.statusCode).toBe(201);
    const id = created.json().id as string;
    for (let i = 0; i < READS / 2; i++) expect((await fhir(t, token, 'GET', `/Patient/${id}`)).statusCode).toBe(200);
    for (let i = 0; i < READS / 2; i++) expect((await fhir(t, token, 'GET', `/Patient?_id=${id}`)).statusCode).toBe(200);
    // A refused read is no evidence, and is not counted.
    expect((await fhir(t, token, 'GET', '/Patient/00000000-0000-4000-8000-000000000000')).statusCode).toBe(404);
    await vi.waitFor(async () => expect(await readEvidence(t, gpid)).toEqual([{ count: READS, detail: expect.stringContaining('FHIR R4 reads') }]), { timeout: PATIENCE_MS, interval: 200 });
    // The audit events are written apart from the counts (a batched window when its second ends).
    await vi.waitFor(async () => check((await readEventsOf(t, gpid)).filter((e) => e.data['status'] === 200)), { timeout: PATIENCE_MS, interval: 200 });
    // More reads add to the same piece of evidence.
    for (let i = 0; i < 3; i++) expect((await fhir(t, token, 'GET', `/Patient/${id}`)).statusCode).toBe(200);
    await vi.waitFor(async () => expect((await readEvidence(t, gpid)).map((e) => e.count)).toEqual([READS + 3]), { timeout: PATIENCE_MS, interval: 200 });
    // Every durable consumer's lag is on /metrics, read from the stream, and comes down to 0.
    await vi.waitFor(
      async () => {
        const metrics = (await t.system.internalApp!.inject({ url: '/metrics' })).body;
        const lags = Object.fromEntries([...metrics.matchAll(/^svc_event_consumer_lag_events\{consumer="([^"]+)"\} (\S+)$/gm)].map((m) => [m[1], Number(m[2])]));
        expect(Object.keys(lags).sort()).toEqual(['certification', 'event-log', 'fhir-identity-link', 'identity-fhir-link', 'sync-jobs', 'tefca-exchanges', 'webhooks']);
        expect(Object.values(lags).every((n) => n === 0)).toBe(true);
        expect(metrics).toMatch(/^svc_event_consumer_oldest_age_seconds\{consumer="certification"\} 0$/m);
      },
      { timeout: PATIENCE_MS, interval: 200 },
    );
  });
});

describe('SVC_FHIR_READ_EVENTS', () => {
  it('refuses a value it does not know, naming the setting', async () => {
    await expect(bootSystem({ SVC_FHIR_READ_EVENTS: 'sampled:2' })).rejects.toThrow(/SVC_FHIR_READ_EVENTS must be each, batched, sampled:<ratio>/);
  });
});

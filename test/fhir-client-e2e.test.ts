import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from 'fhir-kit-client';
import { freePort } from './support/processes.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken } from './support/fhir.js';

interface Resource {
  resourceType: string;
  id?: string;
  meta?: { versionId?: string };
  [key: string]: unknown;
}

interface Bundle extends Resource {
  type: string;
  entry?: { resource?: Resource; response?: { status: string; location?: string } }[];
  link: { relation: string; url: string }[];
}

/**
 * A real FHIR client library (fhir-kit-client) drives the running server over a real HTTP
 * listener: create, read, search following the Bundle's next links, a transaction, and $export
 * (kick-off with Prefer: respond-async, polling the status URL, downloading NDJSON with the token).
 */
describe('FHIR R4 with fhir-kit-client over HTTP', () => {
  let t: TestSystem;
  let client: Client;
  let token: string;
  let baseUrl: string;
  let patientId = '';

  beforeAll(async () => {
    const port = await freePort();
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_PUBLIC_URL: `http://127.0.0.1:${port}` });
    await t.system.app.listen({ host: '127.0.0.1', port });
    // The operator's own partner: FHIR read/write, bundles, and system-level bulk export.
    token = await apiToken(t, null, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push', 'system/*.read']);
    baseUrl = `http://127.0.0.1:${port}/fhir/R4`;
    client = new Client({ baseUrl, bearerToken: token });
  });
  afterAll(() => t?.close());

  it('reads the CapabilityStatement, creates and reads a Patient', async () => {
    const capability = (await client.capabilityStatement()) as Resource;
    expect(capability.resourceType).toBe('CapabilityStatement');
    const created = (await client.create({ resourceType: 'Patient', body: { resourceType: 'Patient', name: [{ family: 'Kitclient', given: ['Ada'] }], gender: 'female', birthDate: '1980-02-03' } })) as Resource;
    expect(created).toMatchObject({ resourceType: 'Patient', meta: { versionId: '1' } });
    patientId = created.id!;
    expect(Client.httpFor(created).response?.status).toBe(201);
    const read = (await client.read({ resourceType: 'Patient', id: patientId })) as Resource;
    expect(read).toMatchObject({ id: patientId, name: [{ family: 'Kitclient', given: ['Ada'] }], birthDate: '1980-02-03' });
    // Errors arrive as the library's errors carrying the OperationOutcome.
    await expect(client.read({ resourceType: 'Patient', id: 'no-such-patient' })).rejects.toMatchObject({ response: { status: 404, data: { resourceType: 'OperationOutcome' } } });
  });

  it('runs a transaction with urn:uuid references', async () => {
    const patientUrl = 'urn:uuid:0c3a3b7e-5b1a-4d7e-9a55-0d1f1c2b3a40';
    const observation = (code: string) => ({
      fullUrl: `urn:uuid:${crypto.randomUUID()}`,
      request: { method: 'POST', url: 'Observation' },
      resource: { resourceType: 'Observation', status: 'final', code: { coding: [{ system: 'http://loinc.org', code }] }, subject: { reference: patientUrl }, valueQuantity: { value: 72, unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' } },
    });
    const answer = (await client.transaction({
      body: {
        resourceType: 'Bundle',
        type: 'transaction',
        entry: [{ fullUrl: patientUrl, request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient', name: [{ family: 'Kitclient', given: ['Bob'] }] } }, observation('8867-4'), observation('8310-5')],
      },
    })) as Bundle;
    expect(answer.type).toBe('transaction-response');
    expect(answer.entry!.map((e) => e.response!.status)).toEqual(['201 Created', '201 Created', '201 Created']);
    const newPatient = answer.entry![0]!.response!.location!.split('/')[1]!;
    const observationId = answer.entry![1]!.response!.location!.split('/')[1]!;
    const stored = (await client.read({ resourceType: 'Observation', id: observationId })) as Resource;
    expect(stored['subject']).toEqual({ reference: `Patient/${newPatient}` });
    const found = (await client.search({ resourceType: 'Observation', searchParams: { subject: `Patient/${newPatient}`, code: 'http://loinc.org|8310-5' } })) as Bundle;
    expect(found.entry?.map((e) => e.resource!.id)).toEqual([answer.entry![2]!.response!.location!.split('/')[1]]);
  });

  it('searches with paging, following the next links to the end', async () => {
    for (const given of ['Cy', 'Di', 'Ed', 'Fo']) await client.create({ resourceType: 'Patient', body: { resourceType: 'Patient', name: [{ family: 'Kitclient', given: [given] }] } });
    const seen: string[] = [];
    let page: Bundle | undefined = (await client.search({ resourceType: 'Patient', searchParams: { family: 'kitclient', _count: 2, _sort: 'given' } })) as Bundle;
    let pages = 0;
    while (page) {
      pages++;
      expect(page.entry!.length).toBeLessThanOrEqual(2);
      seen.push(...page.entry!.map((e) => (e.resource!['name'] as { given: string[] }[])[0]!.given[0]!));
      expect(pages).toBeLessThan(10);
      page = (await client.nextPage({ bundle: page })) as Bundle | undefined;
    }
    // Ada, Bob (transaction) and the four above, in _sort order, each exactly once.
    expect(pages).toBe(3);
    expect(seen).toEqual(['Ada', 'Bob', 'Cy', 'Di', 'Ed', 'Fo']);
  });

  it('exports in bulk: kick-off, polling, NDJSON downloads with the bearer token', async () => {
    const kickoff = await client.request('$export?_type=Patient,Observation', { options: { headers: { prefer: 'respond-async', accept: 'application/fhir+json' } } });
    const accepted = Client.httpFor(kickoff).response!;
    expect(accepted.status).toBe(202);
    const statusUrl = accepted.headers.get('content-location')!;
    expect(statusUrl.startsWith(`${baseUrl}/$export-status/`)).toBe(true);

    let manifest: { requiresAccessToken: boolean; output: { type: string; url: string; count: number }[]; error: unknown[] } | undefined;
    await vi.waitFor(
      async () => {
        const polled = await client.request(statusUrl);
        const status = Client.httpFor(polled).response!.status;
        if (status === 202) expect(Client.httpFor(polled).response!.headers.get('x-progress')).toBeTruthy();
        expect(status).toBe(200);
        manifest = polled as unknown as typeof manifest;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(manifest!.requiresAccessToken).toBe(true);
    expect(manifest!.output.map((o) => [o.type, o.count])).toEqual([['Patient', 6], ['Observation', 2]]);
    for (const output of manifest!.output) {
      // Bulk files are NDJSON, not one JSON document: fetched directly, with the same bearer token.
      expect((await fetch(output.url)).status).toBe(401);
      const file = await fetch(output.url, { headers: { authorization: `Bearer ${token}` } });
      expect(file.status).toBe(200);
      const lines = (await file.text()).split('\n').filter(Boolean).map((l) => JSON.parse(l) as Resource);
      expect(lines).toHaveLength(output.count);
      expect(lines.every((r) => r.resourceType === output.type)).toBe(true);
    }
  });
});

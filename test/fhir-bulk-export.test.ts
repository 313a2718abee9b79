import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { bootSystem, type TestSystem } from './support/system.js';
import { freshStorage } from './support/databases.js';
import { memoryLogger } from './support/logs.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { PATIENCE_MS } from './support/patience.js';

interface Manifest {
  transactionTime: string;
  request: string;
  requiresAccessToken: boolean;
  output: { type: string; url: string; count: number }[];
  error: unknown[];
}

const ASYNC = { prefer: 'respond-async', accept: 'application/fhir+json' };

/** Poll a status URL until the export completes; every in-progress answer is 202 with X-Progress and Retry-After. */
async function waitForManifest(t: TestSystem, token: string, statusUrl: string): Promise<Manifest> {
  const path = new URL(statusUrl).pathname;
  let manifest: Manifest | undefined;
  await vi.waitFor(
    async () => {
      const res = await t.request({ url: path, token });
      if (res.statusCode === 202) {
        expect(res.headers['x-progress']).toEqual(expect.any(String));
        expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
      }
      expect(res.statusCode, res.body).toBe(200);
      manifest = res.json() as Manifest;
    },
    // Twice the patience: the restarted export below still has its paced pages to write.
    { timeout: 2 * PATIENCE_MS, interval: 50 },
  );
  return manifest!;
}

async function download(t: TestSystem, token: string, url: string): Promise<LightMyRequestResponse> {
  return t.request({ url: new URL(url).pathname, token });
}

const lines = (res: LightMyRequestResponse) =>
  res.body
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { resourceType: string; id: string });

/**
 * Bulk Data $export per the Bulk Data Access IG: kick-off validation, polling, the manifest, file
 * download by the partner that asked only, _type, _since, Patient and Group level, cancel.
 */
describe('FHIR Bulk Data $export', () => {
  let t: TestSystem;
  let exporter: string;
  let writer: string;
  let stranger: string;
  const ids: Record<string, string> = {};
  let since = '';

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_EXPORT_PAGE_SIZE: '2' });
    // The exporter and the writer are credentials of the same partner (the operator's own).
    exporter = await apiToken(t, null, ['system/*.read']);
    writer = await apiToken(t, null, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const otherGpid = await registerPartner(t, 'Export Stranger');
    stranger = await apiToken(t, otherGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const create = async (token: string, key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    const obs = (patient: string) => ({ resourceType: 'Observation', status: 'final', code: { text: 'pulse' }, subject: { reference: `Patient/${ids[patient]!}` } });
    await create(writer, 'p1', { resourceType: 'Patient', name: [{ family: 'One' }] });
    await create(writer, 'p2', { resourceType: 'Patient', name: [{ family: 'Two' }] });
    await create(writer, 'org', { resourceType: 'Organization', name: 'Export Org' });
    await create(writer, 'o1', obs('p1'));
    await create(writer, 'o2', obs('p1'));
    await create(writer, 'o3', obs('p2'));
    await create(writer, 'group', { resourceType: 'Group', type: 'person', actual: true, member: [{ entity: { reference: `Patient/${ids['p1']!}` } }] });
    await create(stranger, 'foreign', { resourceType: 'Patient', name: [{ family: 'Foreign' }] });
    await new Promise((resolve) => setTimeout(resolve, 20));
    since = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 20));
    await create(writer, 'p3', { resourceType: 'Patient', name: [{ family: 'Three' }] });
    await create(writer, 'o4', obs('p3'));
  });
  afterAll(() => t?.close());

  const kickoff = async (path: string, token = exporter, headers: Record<string, string> = ASYNC) => fhir(t, token, 'GET', path, undefined, headers);

  it('validates the kick-off: Prefer: respond-async, scopes, _outputFormat, _type, _since, unknown parameters', async () => {
    expect((await kickoff('/$export', exporter, {})).statusCode).toBe(400);
    expect((await kickoff('/$export', writer)).statusCode).toBe(403);
    const format = await kickoff('/$export?_outputFormat=text/csv');
    expect(format.statusCode).toBe(400);
    expect(format.json().issue[0].expression).toEqual(['_outputFormat']);
    expect((await kickoff('/$export?_type=Nonsense')).json().issue[0].expression).toEqual(['_type']);
    expect((await kickoff('/$export?_since=yesterday')).json().issue[0].expression).toEqual(['_since']);
    expect((await kickoff('/$export?includeAssociatedData=LatestProvenanceResources')).statusCode).toBe(400);
    expect((await kickoff('/$export?includeAssociatedData=LatestProvenanceResources', exporter, { prefer: 'respond-async, handling=lenient' })).statusCode).toBe(202);
    const filterType = await kickoff('/$export?_type=Patient&_typeFilter=Observation%3Fcode%3Dx');
    expect(filterType.statusCode).toBe(400);
    expect(filterType.json().issue[0].expression).toEqual(['_typeFilter']);
    expect((await kickoff('/$export?_type=Patient&_typeFilter=Patient%3Fshoe-size%3D9')).json().issue[0].expression).toEqual(['_typeFilter']);
    expect((await kickoff('/$export?_type=Patient&_typeFilter=Patient%3F_count%3D9')).statusCode).toBe(400);
    expect((await kickoff('/$export?_type=Patient&_typeFilter=not-a-query')).statusCode).toBe(400);
    expect((await kickoff('/Group/no-such-group/$export')).statusCode).toBe(404);
    expect((await kickoff(`/Group/${ids['group']!}/$export`, stranger)).statusCode).toBe(403);
  });

  it('exports _type with counts, serves NDJSON files to the partner that asked only', async () => {
    const accepted = await kickoff('/$export?_type=Patient,Observation&_outputFormat=application/fhir%2Bndjson');
    expect(accepted.statusCode).toBe(202);
    const statusUrl = accepted.headers['content-location'] as string;
    expect(statusUrl).toMatch(new RegExp(`^${t.config.publicUrl}/fhir/R4/\\$export-status/[0-9a-f-]{36}$`));

    const manifest = await waitForManifest(t, exporter, statusUrl);
    expect(manifest).toMatchObject({ request: `${t.config.publicUrl}/fhir/R4/$export?_type=Patient%2CObservation&_outputFormat=application%2Ffhir%2Bndjson`, requiresAccessToken: true, error: [] });
    expect(Date.parse(manifest.transactionTime)).not.toBeNaN();
    expect(manifest.output.map((o) => [o.type, o.count])).toEqual([['Patient', 3], ['Observation', 4]]);

    const patients = await download(t, exporter, manifest.output[0]!.url);
    expect(patients.statusCode).toBe(200);
    expect(patients.headers['content-type']).toMatch(/^application\/fhir\+ndjson/);
    expect(lines(patients).map((r) => r.id).sort()).toEqual([ids['p1'], ids['p2'], ids['p3']].sort());
    expect(lines(await download(t, exporter, manifest.output[1]!.url)).every((r) => r.resourceType === 'Observation')).toBe(true);
    // Any credential of the same partner may fetch; another partner gets a 404 for the status and the files.
    expect((await download(t, writer, manifest.output[0]!.url)).statusCode).toBe(200);
    expect((await download(t, stranger, manifest.output[0]!.url)).statusCode).toBe(404);
    expect((await t.request({ url: new URL(statusUrl).pathname, token: stranger })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: new URL(statusUrl).pathname, token: stranger })).statusCode).toBe(404);
    expect((await download(t, exporter, manifest.output[0]!.url.replace(/\/0-Patient/, '/7-Patient'))).statusCode).toBe(404);
  });

  it('exports only what changed _since, and the Patient and Group compartments', async () => {
    const recent = await waitForManifest(t, exporter, (await kickoff(`/$export?_since=${encodeURIComponent(since)}`)).headers['content-location'] as string);
    expect(recent.output.map((o) => [o.type, o.count]).sort()).toEqual([['Observation', 1], ['Patient', 1]]);

    const patientLevel = await waitForManifest(t, exporter, (await kickoff('/Patient/$export')).headers['content-location'] as string);
    expect(patientLevel.output.map((o) => [o.type, o.count]).sort()).toEqual([['Group', 1], ['Observation', 4], ['Patient', 3]]);

    const groupLevel = await waitForManifest(t, exporter, (await kickoff(`/Group/${ids['group']!}/$export?_type=Patient,Observation`)).headers['content-location'] as string);
    expect(groupLevel.output.map((o) => [o.type, o.count])).toEqual([['Patient', 1], ['Observation', 2]]);
    const observations = lines(await download(t, exporter, groupLevel.output[1]!.url)).map((r) => r.id).sort();
    expect(observations).toEqual([ids['o1'], ids['o2']].sort());
    // The $export routes leave the resource routes of Group and Patient alone.
    expect((await fhir(t, writer, 'GET', `/Group/${ids['group']!}/_history`)).statusCode).toBe(200);
    expect((await fhir(t, writer, 'GET', `/Patient/${ids['p1']!}`)).statusCode).toBe(200);
    expect((await fhir(t, writer, 'GET', '/Patient?_count=1')).statusCode).toBe(200);
  });

  it('applies _typeFilter with the search engine (chains included), within the partner that asked', async () => {
    const filter = encodeURIComponent('Observation?patient.family=two');
    const manifest = await waitForManifest(t, exporter, (await kickoff(`/$export?_type=Patient,Observation&_typeFilter=Patient%3Ffamily%3Done,Patient%3Ffamily%3Dthree&_typeFilter=${filter}`)).headers['content-location'] as string);
    expect(manifest.output.map((o) => [o.type, o.count])).toEqual([['Patient', 2], ['Observation', 1]]);
    expect(lines(await download(t, exporter, manifest.output[0]!.url)).map((r) => r.id).sort()).toEqual([ids['p1'], ids['p3']].sort());
    expect(lines(await download(t, exporter, manifest.output[1]!.url)).map((r) => r.id)).toEqual([ids['o3']]);
    // The stranger's Patient is never in the exporter's output, filter or not.
    const foreign = await waitForManifest(t, exporter, (await kickoff('/$export?_type=Patient&_typeFilter=Patient%3Ffamily%3Dforeign')).headers['content-location'] as string);
    expect(foreign.output).toEqual([]);
  });

  it('kicks off by POST with a Parameters body (_type, _typeFilter, _since), naming a bad parameter', async () => {
    const post = (body: unknown, path = '/$export', headers: Record<string, string> = ASYNC) => fhir(t, exporter, 'POST', path, body, headers);
    const parameters = {
      resourceType: 'Parameters',
      parameter: [
        { name: '_type', valueString: 'Observation' },
        { name: '_typeFilter', valueString: `Observation?subject=Patient/${ids['p1']!}` },
        { name: '_outputFormat', valueString: 'application/fhir+ndjson' },
      ],
    };
    const accepted = await post(parameters);
    expect(accepted.statusCode, accepted.body).toBe(202);
    const manifest = await waitForManifest(t, exporter, accepted.headers['content-location'] as string);
    expect(manifest.output.map((o) => [o.type, o.count])).toEqual([['Observation', 2]]);
    expect(new URL(manifest.request).searchParams.get('_type')).toBe('Observation');
    const patientLevel = await waitForManifest(t, exporter, (await post({ resourceType: 'Parameters', parameter: [{ name: '_since', valueInstant: since }] }, '/Patient/$export')).headers['content-location'] as string);
    expect(patientLevel.output.map((o) => [o.type, o.count]).sort()).toEqual([['Observation', 1], ['Patient', 1]]);
    const group = await post({ resourceType: 'Parameters', parameter: [{ name: '_type', valueString: 'Patient' }] }, `/Group/${ids['group']!}/$export`);
    expect((await waitForManifest(t, exporter, group.headers['content-location'] as string)).output.map((o) => [o.type, o.count])).toEqual([['Patient', 1]]);

    const unknown = await post({ resourceType: 'Parameters', parameter: [{ name: 'includeAssociatedData', valueCode: 'LatestProvenanceResources' }] });
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().issue[0].expression).toEqual(['Parameters.parameter[0].name']);
    const noValue = await post({ resourceType: 'Parameters', parameter: [{ name: '_type', valueInteger: 3 }] });
    expect(noValue.json().issue[0].expression).toEqual(['Parameters.parameter[0]']);
    expect((await post({ resourceType: 'Patient' })).statusCode).toBe(400);
    expect((await post(parameters, '/$export', {})).statusCode).toBe(400);
    expect((await post({ resourceType: 'Parameters', parameter: [{ name: 'includeAssociatedData', valueString: 'x' }] }, '/$export', { prefer: 'respond-async, handling=lenient' })).statusCode).toBe(202);
  });

  it('cancels with DELETE on the status URL: afterwards the job and its files are gone', async () => {
    const statusUrl = (await kickoff('/$export')).headers['content-location'] as string;
    const cancelled = await t.request({ method: 'DELETE', url: new URL(statusUrl).pathname, token: exporter });
    expect(cancelled.statusCode).toBe(202);
    expect((await t.request({ url: new URL(statusUrl).pathname, token: exporter })).statusCode).toBe(404);

    const done = (await kickoff('/$export?_type=Organization')).headers['content-location'] as string;
    const manifest = await waitForManifest(t, exporter, done);
    expect((await t.request({ method: 'DELETE', url: new URL(done).pathname, token: exporter })).statusCode).toBe(202);
    expect((await download(t, exporter, manifest.output[0]!.url)).statusCode).toBe(404);
  });
});

describe('FHIR Bulk Data $export output expires', () => {
  it('answers 404 for the status and files of an expired job, and the sweep deletes it', async () => {
    const logs = memoryLogger();
    // A minute of life, reached by moving the clock (the whole system runs in this process), not by
    // waiting: the download before it must not race a short expiry on a busy machine.
    const t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_EXPORT_EXPIRY_SECONDS: '60', SVC_LOG_LEVEL: 'info' }, { logger: logs.logger });
    try {
      const exporter = await apiToken(t, null, ['system/*.read']);
      const writer = await apiToken(t, null, ['cms.fhir.rest.write']);
      await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'Expiring' }] });
      const statusUrl = (await fhir(t, exporter, 'GET', '/$export?_type=Patient', undefined, ASYNC)).headers['content-location'] as string;
      const manifest = await waitForManifest(t, exporter, statusUrl);
      expect((await download(t, exporter, manifest.output[0]!.url)).statusCode).toBe(200);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
      expect((await t.request({ url: new URL(statusUrl).pathname, token: exporter })).statusCode).toBe(404);
      expect((await download(t, exporter, manifest.output[0]!.url)).statusCode).toBe(404);
      await vi.waitFor(() => expect(logs.lines.some((l) => l.includes('expired export jobs deleted'))).toBe(true), { timeout: PATIENCE_MS, interval: 200 });
    } finally {
      vi.useRealTimers();
      await t.close();
    }
  });
});

describe('FHIR Bulk Data $export survives a restart', async () => {
  const storage = await freshStorage();
  afterAll(() => storage.dispose());
  // A second between pages: the job is still running when a busy machine gets to see its progress.
  const env = { SVC_BOOTSTRAP_TOKEN: 'export-restart-operator-0123456789', SVC_RATE_LIMITS: 'off', SVC_FHIR_EXPORT_PAGE_SIZE: '1', SVC_FHIR_EXPORT_PAGE_PAUSE_MS: '1000' };

  it('resumes a job that was running when the system stopped, and completes it without duplicates', async () => {
    const first = await bootSystem(env, { storage });
    let exporter = '';
    let statusUrl = '';
    const created: string[] = [];
    try {
      exporter = await apiToken(first, null, ['system/*.read']);
      const writer = await apiToken(first, null, ['cms.fhir.rest.write']);
      for (let i = 0; i < 8; i++) created.push((await fhir(first, writer, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: `Restart${i}` }] })).json().id);
      statusUrl = (await fhir(first, exporter, 'GET', '/$export?_type=Patient', undefined, ASYNC)).headers['content-location'] as string;
      // Wait until the job is running and has written some pages, then stop mid-job. Twice the
      // patience: the job's first run also starts the job thread (seconds of a core).
      await vi.waitFor(
        async () => {
          const res = await first.request({ url: new URL(statusUrl).pathname, token: exporter });
          expect(res.statusCode).toBe(202);
          expect(res.headers['x-progress']).toMatch(/exporting .*, [1-9]\d* resources written/);
        },
        { timeout: 2 * PATIENCE_MS, interval: 20 },
      );
    } finally {
      await first.close();
    }

    const second = await bootSystem(env, { storage });
    try {
      const manifest = await waitForManifest(second, exporter, statusUrl);
      expect(manifest.output).toEqual([expect.objectContaining({ type: 'Patient', count: 8 })]);
      const exported = lines(await download(second, exporter, manifest.output[0]!.url)).map((r) => r.id);
      expect(exported).toHaveLength(8);
      expect([...exported].sort()).toEqual([...created].sort());
    } finally {
      await second.close();
    }
  });
});

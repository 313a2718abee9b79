import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken } from './support/fhir.js';

/**
 * R4 makes a decimal's written precision significant: `125.00` is stored and read back as `125.00`,
 * never `125`; `1e2` stays `1e2`; integers beyond 2^53 and long decimals are not rounded. Checked on
 * the text of every answer that carries a resource: create, read, vread, history, search, PUT,
 * PATCH, Prefer: return=representation, transaction and batch responses and $export NDJSON, plus
 * the GraphQL `resourceText` field (the JSON `resource` field and typed fields give numbers).
 */

/** The literals under test, each written as a client would and expected back verbatim. */
const LITERALS = ['125.00', '0.10', '1e2', '9007199254740993', '0.1000000000000000055511151231257827', '-0.0'] as const;

/** An Observation written as JSON text with those literals (as valueQuantity and component values). */
function observationText(marker: string, value = '125.00'): string {
  const components = LITERALS.slice(1)
    .map((literal, i) => `{"code":{"text":"c${i}"},"valueQuantity":{"value":${literal},"unit":"mg"}}`)
    .join(',');
  return `{"resourceType":"Observation","status":"final","code":{"text":"${marker}"},"valueQuantity":{"value":${value},"unit":"mg"},"component":[${components}]}`;
}

/** The number literals of a JSON text as written (outside strings), in order. */
function numberLiterals(json: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < json.length; i++) {
    const c = json[i]!;
    if (c === '"') {
      for (i++; i < json.length && json[i] !== '"'; i++) if (json[i] === '\\') i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(json.slice(i, i + 64))!;
      out.push(m[0]);
      i += m[0].length - 1;
    }
  }
  return out;
}

/** Every literal of the Observation (its value first) appears in `text`, in order, as written. */
function expectExact(text: string, value = '125.00'): void {
  const found = numberLiterals(text);
  const wanted = [value, ...LITERALS.slice(1)];
  let at = 0;
  for (const literal of found) if (literal === wanted[at]) at++;
  expect(found, text.slice(0, 400)).toEqual(expect.arrayContaining(wanted));
  expect(at, `the literals ${wanted.join(' ')} in order in ${text.slice(0, 400)}`).toBe(wanted.length);
}

describe('FHIR decimal precision, end to end', () => {
  let t: TestSystem;
  const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    t.request({ method, url: `/fhir/R4${path}`, headers: body === undefined ? headers : { 'content-type': 'application/fhir+json', ...headers }, ...(body === undefined ? {} : { body }) });
  let id = '';

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_EXPORT_PAGE_SIZE: '2' });
    const created = await send('POST', '/Observation', observationText('precision-create'));
    expect(created.statusCode, created.body).toBe(201);
    expectExact(created.body);
    id = (created.json() as { id: string }).id;
  });
  afterAll(() => t?.close());

  it('reads, vreads, and finds it in history and search bundles with every literal as written', async () => {
    expectExact((await send('GET', `/Observation/${id}`)).body);
    expectExact((await send('GET', `/Observation/${id}/_history/1`)).body);
    expectExact((await send('GET', `/Observation/${id}/_history`)).body);
    const found = await send('GET', '/Observation?code:text=precision-create&value-quantity=125.00');
    expect(found.json().total).toBe(1);
    expectExact(found.body);
    // Search on the value still honours its precision: 125.00 is 124.995 to 125.005.
    expect((await send('GET', '/Observation?code:text=precision-create&value-quantity=125.01')).json().total).toBe(0);
  });

  it('keeps literals of an application/json body too, and answers Prefer: return=representation exactly', async () => {
    const res = await send('POST', '/Observation', observationText('precision-json'), { 'content-type': 'application/json', prefer: 'return=representation' });
    expect(res.statusCode, res.body).toBe(201);
    expectExact(res.body);
    expectExact((await send('GET', `/Observation/${(res.json() as { id: string }).id}`)).body);
  });

  it('PUT and PATCH keep the new literals and the untouched ones; vread of the old version keeps its own', async () => {
    const put = await send('PUT', `/Observation/${id}`, observationText('precision-create', '72.50').replace('{"resourceType":"Observation",', `{"resourceType":"Observation","id":"${id}",`));
    expect(put.statusCode, put.body).toBe(200);
    expectExact(put.body, '72.50');
    // RFC 6902 `test` compares numbers by value: the stored 72.50 equals 72.5 and 72.500.
    const patch = [
      { op: 'test', path: '/valueQuantity/value', value: 'X' },
      { op: 'test', path: '/valueQuantity', value: { value: 72.5, unit: 'mg' } },
      { op: 'replace', path: '/valueQuantity/value', value: 'Y' },
      { op: 'test', path: '/valueQuantity/value', value: 'Z' },
    ];
    const patchText = JSON.stringify(patch).replace('"X"', '72.500').replace('"Y"', '3.140').replace('"Z"', '3.14');
    const refused = await send('PATCH', `/Observation/${id}`, JSON.stringify([{ op: 'test', path: '/valueQuantity/value', value: 72.51 }]), { 'content-type': 'application/json-patch+json' });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.json().issue[0].expression).toEqual(['patch[0]']);
    const patched = await send('PATCH', `/Observation/${id}`, patchText, { 'content-type': 'application/json-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expectExact(patched.body, '3.140');
    expectExact((await send('GET', `/Observation/${id}`)).body, '3.140');
    expectExact((await send('GET', `/Observation/${id}/_history/2`)).body, '72.50');
    expectExact((await send('GET', `/Observation/${id}/_history/1`)).body, '125.00');
  });

  it('transaction and batch responses carry each entry resource with its literals', async () => {
    for (const type of ['transaction', 'batch']) {
      const text = `{"resourceType":"Bundle","type":"${type}","entry":[{"fullUrl":"urn:uuid:0b3c7a53-4b8a-4d3e-9a36-2b8f9d1a2c11","resource":${observationText(`precision-${type}`)},"request":{"method":"POST","url":"Observation"}}]}`;
      const res = await send('POST', '', text);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().type).toBe(`${type}-response`);
      expectExact(res.body);
      const location = (res.json() as { entry: { response: { location: string } }[] }).entry[0]!.response.location;
      expectExact((await send('GET', `/${location.split('/_history')[0]!}`)).body);
    }
  });

  it('exports NDJSON lines with the literals as stored', async () => {
    const exporter = await apiToken(t, null, ['system/*.read']);
    const kickoff = await t.request({ url: '/fhir/R4/$export?_type=Observation', token: exporter, headers: { prefer: 'respond-async' } });
    expect(kickoff.statusCode, kickoff.body).toBe(202);
    const status = new URL(kickoff.headers['content-location'] as string).pathname;
    let output: { url: string }[] = [];
    await vi.waitFor(
      async () => {
        const res = await t.request({ url: status, token: exporter });
        expect(res.statusCode, res.body).toBe(200);
        output = res.json().output;
      },
      { timeout: 30_000, interval: 50 },
    );
    const files = await Promise.all(output.map((o) => t.request({ url: new URL(o.url).pathname, token: exporter })));
    const lines = files.flatMap((f) => f.body.split('\n').filter(Boolean));
    const line = lines.find((l) => l.includes('precision-json'));
    expect(line).toBeDefined();
    expectExact(line!);
  });

  it('GraphQL: resourceText is exact, resource and typed fields are numbers, and resourceText is accepted as input', async () => {
    const created = await t.graphql<{ fhirCreate: { status: number; resourceText: string } }>(
      'mutation C($text: String!) { fhirCreate(resourceType: "Observation", resourceText: $text) { status resourceText } }',
      { text: observationText('precision-graphql') },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data!.fhirCreate.status).toBe(201);
    expectExact(created.data!.fhirCreate.resourceText);
    const gid = (JSON.parse(created.data!.fhirCreate.resourceText) as { id: string }).id;

    const read = await t.graphql<{ fhirRead: { resource: { valueQuantity: { value: number } }; resourceText: string }; fhirObservation: { valueQuantity: { value: number }; component: { valueQuantity: { value: number } }[] } }>(
      'query R($id: ID!) { fhirRead(resourceType: "Observation", id: $id) { resource resourceText } fhirObservation(id: $id) { valueQuantity { value } component { valueQuantity { value } } } }',
      { id: gid },
    );
    expect(read.errors).toBeUndefined();
    expectExact(read.data!.fhirRead.resourceText);
    expect(read.data!.fhirRead.resource.valueQuantity.value).toBe(125);
    expect(read.data!.fhirObservation.valueQuantity.value).toBe(125);
    expect(read.data!.fhirObservation.component.map((c) => c.valueQuantity.value)).toEqual([0.1, 100, 9007199254740992, 0.1, 0]);

    const both = await t.graphql('mutation { fhirCreate(resourceType: "Observation", resource: {resourceType: "Observation"}, resourceText: "{}") { status } }');
    expect(both.errors?.[0]?.extensions?.['code']).toBe('BAD_REQUEST');
    const invalid = await t.graphql('mutation { fhirCreate(resourceType: "Observation", resourceText: "{\\"resourceType\\": ") { status } }');
    expect(invalid.errors?.[0]?.extensions?.['code']).toBe('BAD_REQUEST');
  });

  it('validation still sees numbers: a decimal where a string belongs is refused, naming the element', async () => {
    const res = await send('POST', '/Observation', '{"resourceType":"Observation","status":"final","code":{"text":125.00}}');
    expect(res.statusCode, res.body).toBe(422);
    expect((res.json() as { issue: { expression?: string[] }[] }).issue.flatMap((i) => i.expression ?? [])).toContain('Observation.code.text');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

interface Bundle {
  total?: number;
  link: { relation: string; url: string }[];
  entry?: { resource: { id: string; [k: string]: unknown } }[];
}

/** Search on the indexed tables: every parameter type, prefixes, modifiers, sorting and paging. */
describe('FHIR R4 search', () => {
  let t: TestSystem;
  let token: string;
  const ids: Record<string, string> = {};

  const search = async (query: string, headers: Record<string, string> = {}): Promise<Bundle> => {
    const res = await fhir(t, token, 'GET', query, undefined, headers);
    expect(res.statusCode, `${query}: ${res.body}`).toBe(200);
    return res.json() as Bundle;
  };
  const found = async (query: string): Promise<string[]> => ((await search(query)).entry ?? []).map((e) => e.resource.id).sort();
  const names = (...keys: string[]) => keys.map((k) => ids[k]!).sort();

  beforeAll(async () => {
    // Many searches a second: the burst limit is not what this file tests.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    token = await apiToken(t, await registerPartner(t, 'Search Clinic'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const create = async (key: string, resource: Record<string, unknown>) => {
      const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
      expect(res.statusCode, res.body).toBe(201);
      ids[key] = res.json().id;
    };
    await create('ada', { resourceType: 'Patient', gender: 'female', birthDate: '1984-03-02', name: [{ family: 'Müller', given: ['Ada'] }], identifier: [{ system: 'urn:mrn', value: 'A1' }], telecom: [{ system: 'email', value: 'ada@example.org' }] });
    await create('ben', { resourceType: 'Patient', gender: 'male', birthDate: '1990-07', name: [{ family: 'Mullins', given: ['Ben'] }], identifier: [{ value: 'B2' }] });
    await create('cyd', { resourceType: 'Patient', gender: 'other', birthDate: '2001-11-20', name: [{ family: 'Castro', given: ['Cyd'] }], identifier: [{ system: 'urn:other', value: 'A1' }] });
    await create('dee', { resourceType: 'Patient', name: [{ family: 'Dee' }] });
    await create('hr1', { resourceType: 'Observation', status: 'final', code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] }, subject: { reference: `Patient/${ids['ada']}` }, effectiveDateTime: '2024-05-01T10:00:00Z', valueQuantity: { value: 72, unit: 'beats/min', system: 'http://unitsofmeasure.org', code: '/min' } });
    await create('hr2', { resourceType: 'Observation', status: 'final', code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] }, subject: { reference: `Patient/${ids['ben']}` }, effectivePeriod: { start: '2024-06-01', end: '2024-06-03' }, valueQuantity: { value: 110.5, system: 'http://unitsofmeasure.org', code: '/min' } });
    await create('risk', { resourceType: 'RiskAssessment', status: 'final', subject: { reference: `Patient/${ids['cyd']}` }, prediction: [{ probabilityDecimal: 0.25 }] });
    await create('vs', { resourceType: 'ValueSet', status: 'active', url: 'http://example.org/fhir/ValueSet/colours' });
  });
  afterAll(() => t?.close());

  it('string: starts-with ignoring case and accents, :exact and :contains', async () => {
    expect(await found('/Patient?family=mul')).toEqual(names('ada', 'ben'));
    expect(await found('/Patient?name=ADA')).toEqual(names('ada'));
    expect(await found('/Patient?family:exact=Müller')).toEqual(names('ada'));
    expect(await found('/Patient?family:exact=muller')).toEqual([]);
    expect(await found('/Patient?family:contains=stro')).toEqual(names('cyd'));
    expect(await found('/Patient?family:contains=%25')).toEqual([]);
    expect(await found('/Patient?family=_ee')).toEqual([]);
    expect(await found('/Patient?family=castro,dee')).toEqual(names('cyd', 'dee'));
  });

  it('token: code, system|code, |code, system|, :not, :missing, :text', async () => {
    expect(await found('/Patient?gender=female')).toEqual(names('ada'));
    expect(await found('/Patient?identifier=A1')).toEqual(names('ada', 'cyd'));
    expect(await found('/Patient?identifier=urn:mrn|A1')).toEqual(names('ada'));
    expect(await found('/Patient?identifier=|B2')).toEqual(names('ben'));
    expect(await found('/Patient?identifier=urn:other|')).toEqual(names('cyd'));
    expect(await found('/Patient?gender:not=female')).toEqual(names('ben', 'cyd', 'dee'));
    expect(await found('/Patient?gender:missing=true')).toEqual(names('dee'));
    expect(await found('/Patient?birthdate:missing=false&gender=male')).toEqual(names('ben'));
    expect(await found('/Patient?email=ada@example.org')).toEqual(names('ada'));
    expect(await found('/Observation?code:text=heart')).toEqual(names('hr1'));
  });

  it('date: ranges with every prefix, and partial dates', async () => {
    expect(await found('/Patient?birthdate=1984')).toEqual(names('ada'));
    expect(await found('/Patient?birthdate=1990-07-15')).toEqual([]);
    expect(await found('/Patient?birthdate=eq1990-07')).toEqual(names('ben'));
    expect(await found('/Patient?birthdate=ne1984-03-02')).toEqual(names('ben', 'cyd'));
    expect(await found('/Patient?birthdate=gt1990')).toEqual(names('cyd'));
    expect(await found('/Patient?birthdate=lt1990-07-01')).toEqual(names('ada'));
    expect(await found('/Patient?birthdate=ge1990-07-15')).toEqual(names('ben', 'cyd'));
    expect(await found('/Patient?birthdate=le1990-07-15')).toEqual(names('ada', 'ben'));
    expect(await found('/Patient?birthdate=sa1990-07-31')).toEqual(names('cyd'));
    expect(await found('/Patient?birthdate=eb1990-07-01')).toEqual(names('ada'));
    expect(await found('/Patient?birthdate=ap1984-03-01')).toEqual(names('ada'));
    expect(await found('/Patient?birthdate=ge1980&birthdate=lt1995')).toEqual(names('ada', 'ben'));
    expect(await found('/Observation?date=2024-06-02')).toEqual([]);
    // eq: the search range contains the whole period (2024-06-01 to 2024-06-03), not just its start.
    expect(await found('/Observation?date=2024-06-01')).toEqual([]);
    expect(await found('/Observation?date=2024-06')).toEqual(names('hr2'));
    expect(await found('/Observation?date=eq2024')).toEqual(names('hr1', 'hr2'));
    expect(await found('/Observation?date=le2024-06-02')).toEqual(names('hr1', 'hr2'));
    expect(await found('/Observation?date=ge2024-05-01T11:00:00Z')).toEqual(names('hr2'));
    const bad = await fhir(t, token, 'GET', '/Patient?birthdate=yesterday');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().issue[0].expression).toEqual(['birthdate']);
  });

  it('reference, number, quantity and uri', async () => {
    expect(await found(`/Observation?subject=Patient/${ids['ada']}`)).toEqual(names('hr1'));
    expect(await found(`/Observation?subject=${ids['ben']}`)).toEqual(names('hr2'));
    expect(await found(`/Observation?subject:Patient=${ids['ben']}`)).toEqual(names('hr2'));
    expect(await found(`/Observation?patient=${ids['ada']},${ids['ben']}`)).toEqual(names('hr1', 'hr2'));
    expect(await found('/RiskAssessment?probability=0.25')).toEqual(names('risk'));
    expect(await found('/RiskAssessment?probability=gt0.3')).toEqual([]);
    expect(await found('/RiskAssessment?probability=le0.3')).toEqual(names('risk'));
    expect(await found('/Observation?value-quantity=72')).toEqual(names('hr1'));
    expect(await found('/Observation?value-quantity=gt100|http://unitsofmeasure.org|/min')).toEqual(names('hr2'));
    expect(await found('/Observation?value-quantity=lt200||beats/min')).toEqual(names('hr1'));
    expect(await found('/ValueSet?url=http://example.org/fhir/ValueSet/colours')).toEqual(names('vs'));
    expect(await found('/ValueSet?url:below=http://example.org/fhir')).toEqual(names('vs'));
    expect(await found('/ValueSet?url:above=http://example.org/fhir/ValueSet/colours/v2')).toEqual(names('vs'));
    expect(await found('/ValueSet?url:above=http://example.org/fhir')).toEqual([]);
  });

  it('token :in and :not-in with value sets that enumerate their codes', async () => {
    const gender = 'http://hl7.org/fhir/ValueSet/administrative-gender';
    expect(await found(`/Patient?gender:in=${gender}`)).toEqual(names('ada', 'ben', 'cyd'));
    expect(await found(`/Patient?gender:not-in=${gender}`)).toEqual(names('dee'));
    expect(await found('/Observation?status:in=http://hl7.org/fhir/ValueSet/observation-status')).toEqual(names('hr1', 'hr2'));
    const unknown = await fhir(t, token, 'GET', '/Patient?gender:in=http://loinc.org/vs');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().issue[0].expression).toEqual(['gender:in']);
  });

  it('_summary=text keeps text and mandatory elements, _summary=data drops text', async () => {
    const text = { status: 'generated', div: '<div xmlns="http://www.w3.org/1999/xhtml">Heart rate 72</div>' };
    const { id } = (await fhir(t, token, 'POST', '/Observation', { resourceType: 'Observation', text, status: 'final', code: { text: 'Heart rate' }, subject: { reference: `Patient/${ids['ada']}` }, valueQuantity: { value: 72 } })).json();
    const textOnly = (await search(`/Observation?_id=${id}&_summary=text`)).entry![0]!.resource;
    expect(Object.keys(textOnly).sort()).toEqual(['code', 'id', 'meta', 'resourceType', 'status', 'text']);
    const data = (await search(`/Observation?_id=${id}&_summary=data`)).entry![0]!.resource;
    expect(data['text']).toBeUndefined();
    expect(data).toMatchObject({ subject: { reference: `Patient/${ids['ada']}` }, valueQuantity: { value: 72 } });
    await fhir(t, token, 'DELETE', `/Observation/${id}`);
  });

  it('_id, _lastUpdated, _sort, _total, _summary=count and POST _search', async () => {
    expect(await found(`/Patient?_id=${ids['ada']},${ids['dee']}`)).toEqual(names('ada', 'dee'));
    expect(await found('/Patient?_lastUpdated=gt2000-01-01')).toHaveLength(4);
    expect(await found('/Patient?_lastUpdated=lt2000-01-01')).toEqual([]);
    const sorted = await search('/Patient?_sort=-birthdate,family&gender:missing=false');
    expect(sorted.entry!.map((e) => e.resource.id)).toEqual([ids['cyd'], ids['ben'], ids['ada']]);
    const byFamily = await search('/Patient?_sort=family');
    expect(byFamily.entry!.map((e) => e.resource.id)).toEqual([ids['cyd'], ids['dee'], ids['ada'], ids['ben']]);
    expect((await search('/Patient?_total=none')).total).toBeUndefined();
    const count = await search('/Patient?_summary=count');
    expect(count.total).toBe(4);
    expect(count.entry ?? []).toEqual([]);

    const posted = await t.request({ method: 'POST', url: '/fhir/R4/Patient/_search', token, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'family=mul&gender=male' });
    expect(posted.statusCode).toBe(200);
    expect(posted.json().entry.map((e: { resource: { id: string } }) => e.resource.id)).toEqual([ids['ben']]);
  });

  it('counts a resource once however many of its index rows match', async () => {
    // Two codings of one code (other displays) are two token rows of the same resource.
    const code = { coding: [{ system: 'http://example.org/dup', code: 'd1', display: 'One' }, { system: 'http://example.org/dup', code: 'd1', display: 'Uno' }] };
    for (const status of ['final', 'final', 'amended']) expect((await fhir(t, token, 'POST', '/Observation', { resourceType: 'Observation', status, code })).statusCode).toBe(201);
    expect((await search('/Observation?code=http://example.org/dup|d1&_count=1')).total).toBe(3);
    expect((await search('/Observation?code=http://example.org/dup|d1&_count=1&_total=accurate')).total).toBe(3);
    expect((await search('/Observation?code=http://example.org/dup|d1&_summary=count')).total).toBe(3);
    expect((await search('/Observation?code=http://example.org/dup|d1&status=final&_count=1')).total).toBe(2);
    expect((await search('/Observation?code=http://example.org/dup|&_count=1')).total).toBe(3);
  });

  it('pages with _count and stable next/previous links', async () => {
    const first = await search('/Patient?_count=3');
    expect(first.total).toBe(4);
    expect(first.entry).toHaveLength(3);
    const next = first.link.find((l) => l.relation === 'next')!.url;
    expect(next).toContain('_cursor=');
    const second = await search(next.slice(next.indexOf('/Patient')));
    expect(second.entry).toHaveLength(1);
    expect(second.link.find((l) => l.relation === 'next')).toBeUndefined();
    const previous = second.link.find((l) => l.relation === 'previous')!.url;
    expect((await search(previous.slice(previous.indexOf('/Patient')))).entry!.map((e) => e.resource.id)).toEqual(first.entry!.map((e) => e.resource.id));
    expect(new Set([...first.entry!, ...second.entry!].map((e) => e.resource.id)).size).toBe(4);
    const paged = await search('/Patient?_count=2&_elements=gender');
    expect(paged.entry![0]!.resource).not.toHaveProperty('name');
    expect(paged.entry![0]!.resource['meta']).toMatchObject({ tag: [{ code: 'SUBSETTED' }] });
  });

  it('ignores unknown parameters leniently (not in the self link), refuses them with Prefer: handling=strict', async () => {
    const lenient = await search('/Patient?family=castro&shoe-size=9');
    expect(lenient.entry).toHaveLength(1);
    expect(lenient.link.find((l) => l.relation === 'self')!.url).not.toContain('shoe-size');
    const strict = await fhir(t, token, 'GET', '/Patient?family=castro&shoe-size=9', undefined, { prefer: 'handling=strict' });
    expect(strict.statusCode).toBe(400);
    expect(strict.json().issue[0].expression).toEqual(['shoe-size']);
  });

  it('pages with keyset cursors that stay exact when resources are created, updated or deleted in between', async () => {
    const made: string[] = [];
    for (const family of ['Page1', 'Page2', 'Page3', 'Page4', 'Page5']) made.push((await fhir(t, token, 'POST', '/Practitioner', { resourceType: 'Practitioner', name: [{ family }] })).json().id);
    const [p1, p2, p3, p4, p5] = made;
    const idsOf = (b: Bundle) => (b.entry ?? []).map((e) => e.resource.id);
    const linkOf = (b: Bundle, relation: string) => {
      const url = b.link.find((l) => l.relation === relation)?.url;
      return url === undefined ? undefined : url.slice(url.indexOf('/Practitioner'));
    };
    const first = await search('/Practitioner?family=page&_count=2');
    expect(idsOf(first)).toEqual([p1, p2]);
    // Between the requests: p1 is updated (it moves to the end), p3 deleted, p6 created.
    const current = (await fhir(t, token, 'GET', `/Practitioner/${p1}`)).json();
    expect((await fhir(t, token, 'PUT', `/Practitioner/${p1}`, { ...current, active: true })).statusCode).toBe(200);
    expect((await fhir(t, token, 'DELETE', `/Practitioner/${p3}`)).statusCode).toBe(204);
    const p6 = (await fhir(t, token, 'POST', '/Practitioner', { resourceType: 'Practitioner', name: [{ family: 'Page6' }] })).json().id;
    // An offset link would now skip p4; the cursor continues right after p2.
    const second = await search(linkOf(first, 'next')!);
    expect(idsOf(second)).toEqual([p4, p5]);
    const third = await search(linkOf(second, 'next')!);
    expect(idsOf(third).sort()).toEqual([p1, p6].sort());
    expect(linkOf(third, 'next')).toBeUndefined();
    expect(idsOf(await search(linkOf(third, 'previous')!))).toEqual([p4, p5]);
    expect(idsOf(await search(linkOf(second, 'previous')!))).toEqual([p2]);
    // _offset still works when asked for explicitly.
    expect(idsOf(await search('/Practitioner?family=page&_count=2&_offset=2'))).toEqual([p5, p1]);
  });

  it('walks _sort pages forwards and backwards by cursor, values missing last, ties broken by lastUpdated and id', async () => {
    for (const given of ['b', 'a', 'c', 'a', 'b']) await fhir(t, token, 'POST', '/Practitioner', { resourceType: 'Practitioner', name: [{ family: 'Sorted', given: [given] }] });
    await fhir(t, token, 'POST', '/Practitioner', { resourceType: 'Practitioner', name: [{ family: 'Sorted' }] });
    for (const sort of ['given', '-given', '-given,_id']) {
      const all = (await search(`/Practitioner?family=sorted&_sort=${sort}&_count=100`)).entry!.map((e) => e.resource);
      expect(all).toHaveLength(6);
      expect(all.at(-1)!['name']).toEqual([{ family: 'Sorted' }]);
      const pages: string[][] = [];
      let page = await search(`/Practitioner?family=sorted&_sort=${sort}&_count=4`);
      for (;;) {
        pages.push((page.entry ?? []).map((e) => e.resource.id));
        const next = page.link.find((l) => l.relation === 'next')?.url;
        if (!next) break;
        page = await search(next.slice(next.indexOf('/Practitioner')));
      }
      expect(pages.flat()).toEqual(all.map((r) => r.id));
      const back = page.link.find((l) => l.relation === 'previous')!.url;
      expect((await search(back.slice(back.indexOf('/Practitioner')))).entry!.map((e) => e.resource.id)).toEqual(pages[0]);
    }
  });

  it('pages a code search sorted by date (read by walking the date index) exactly as the full sort orders it', async () => {
    const walker = (await fhir(t, token, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'Walker' }] })).json().id as string;
    const code = { coding: [{ system: 'http://example.org/walk', code: 'w1' }] };
    const obs = (effective: Record<string, unknown>, more: Record<string, unknown> = {}) => ({ resourceType: 'Observation', status: 'final', code, ...effective, ...more });
    const made = [
      obs({ effectiveDateTime: '2020-01-02' }, { subject: { reference: `Patient/${walker}` } }),
      obs({ effectivePeriod: { start: '2019-01-01', end: '2021-06-01' } }, { status: 'amended' }),
      obs({ effectiveDateTime: '2020-01-02' }, { valueString: 'high' }),
      obs({ effectiveDateTime: '2018-05-05T10:00:00Z' }, { subject: { reference: `Patient/${walker}` } }),
      obs({}),
      obs({ effectiveDateTime: '2022' }, { status: 'amended', subject: { reference: `Patient/${walker}` } }),
      obs({ effectivePeriod: { start: '2020-01-01', end: '2020-01-02' } }),
    ];
    const stored: string[] = [];
    for (const body of made) {
      const res = await fhir(t, token, 'POST', '/Observation', body);
      expect(res.statusCode).toBe(201);
      stored.push(res.json().id);
    }
    // One of them is what a _has criterion asks for: a DiagnosticReport whose result it is.
    await fhir(t, token, 'POST', '/DiagnosticReport', { resourceType: 'DiagnosticReport', status: 'final', code, result: [{ reference: `Observation/${stored[3]}` }] });
    // The walk probes every criterion on the date-index row it reads; each kind of probe must keep
    // exactly the matches the full sort keeps.
    const criteria: [string, number][] = [
      ['', made.length],
      ['&status=final', 5],
      ['&status:not=amended&_lastUpdated=gt2000-01-01', 5],
      ['&value-string:missing=true', 6],
      ['&subject:Patient.family=walker', 3],
      ['&_has:DiagnosticReport:result:status=final', 1],
    ];
    for (const [extra, matches] of criteria) {
      for (const sort of ['-date', 'date']) {
        // A page of 100 outruns the dated resources, so the full sort answers it: the reference order.
        const all = (await search(`/Observation?code=http://example.org/walk|w1${extra}&_sort=${sort}&_count=100`)).entry!.map((e) => e.resource.id);
        expect(all, extra).toHaveLength(matches);
        const pages: string[][] = [];
        let page = await search(`/Observation?code=http://example.org/walk|w1${extra}&_sort=${sort}&_count=2`);
        for (;;) {
          pages.push((page.entry ?? []).map((e) => e.resource.id));
          const next = page.link.find((l) => l.relation === 'next')?.url;
          if (!next) break;
          page = await search(next.slice(next.indexOf('/Observation')));
        }
        expect(pages.flat(), extra).toEqual(all);
        expect(new Set(pages.flat()).size).toBe(matches);
      }
    }
    const latestFirst = (await search('/Observation?code=http://example.org/walk|w1&_sort=-date&_count=1')).entry![0]!.resource;
    expect(latestFirst['effectiveDateTime']).toBe('2022');
  });

  it('refuses a garbled, forged or mismatched _cursor with a 400 naming it', async () => {
    const page = await search('/Practitioner?_sort=family&_count=1');
    const cursor = new URL(page.link.find((l) => l.relation === 'next')!.url).searchParams.get('_cursor')!;
    const forged = Buffer.from(JSON.stringify([1, 'family', ['x'], 'yesterday', 'x', 'n'])).toString('base64url');
    for (const query of ['/Practitioner?_cursor=%%%', '/Practitioner?_sort=family&_cursor=bm90IGpzb24', `/Practitioner?_sort=family&_cursor=${forged}`, `/Practitioner?_sort=-family&_cursor=${cursor}`, `/Practitioner?_sort=family&_offset=1&_cursor=${cursor}`]) {
      const res = await fhir(t, token, 'GET', query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json().resourceType).toBe('OperationOutcome');
      expect(res.json().issue[0].expression).toEqual(['_cursor']);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

interface HistoryBundle {
  total: number;
  link: { relation: string; url: string }[];
  entry: { resource?: { id: string; meta: { versionId: string } }; request: { method: string } }[];
}

/**
 * History paging with a stable cursor: the links of a history Bundle carry `_cursor`, a keyset
 * position, so versions written while a client pages never shift the pages that follow.
 */
describe('FHIR history paged by keyset cursor', () => {
  let t: TestSystem;
  let token: string;
  let gpid: string;
  let id: string;
  const patient = (family: string) => ({ resourceType: 'Patient', name: [{ family }] });

  const page = async (url: string, as = token): Promise<HistoryBundle> => {
    const res = await t.request({ url: url.startsWith('http') ? new URL(url).pathname + new URL(url).search : url, token: as });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as HistoryBundle;
  };
  const versions = (b: HistoryBundle) => b.entry.map((e) => Number(e.resource?.meta.versionId ?? 0));
  const link = (b: HistoryBundle, relation: string) => b.link.find((l) => l.relation === relation)?.url;
  const write = async (family: string) => {
    const res = await fhir(t, token, 'PUT', `/Patient/${id}`, { ...patient(family), id });
    expect(res.statusCode, res.body).toBe(200);
  };

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    gpid = await registerPartner(t, 'History Pager');
    token = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    id = (await fhir(t, token, 'POST', '/Patient', patient('v1'))).json().id;
    for (const v of ['v2', 'v3', 'v4', 'v5']) await write(v);
  });
  afterAll(() => t?.close());

  it('pages an instance history with next and previous cursors that do not shift when versions are added', async () => {
    const first = await page(`/fhir/R4/Patient/${id}/_history?_count=2`);
    expect(versions(first)).toEqual([5, 4]);
    expect(first.total).toBe(5);
    expect(link(first, 'previous')).toBeUndefined();
    const next = link(first, 'next')!;
    expect(next).toContain('_cursor=');
    expect(next).not.toContain('_offset');

    // A version written while paging is the newest: it never pushes v4 onto the next page.
    await write('v6');
    const second = await page(next);
    expect(versions(second)).toEqual([3, 2]);
    expect(second.total).toBe(6);
    const third = await page(link(second, 'next')!);
    expect(versions(third)).toEqual([1]);
    expect(link(third, 'next')).toBeUndefined();

    // Going back: the versions newer than the page, the new one included.
    const back = await page(link(third, 'previous')!);
    expect(versions(back)).toEqual([3, 2]);
    const top = await page(link(back, 'previous')!);
    expect(versions(top)).toEqual([5, 4]);
    const newest = await page(link(top, 'previous')!);
    expect(versions(newest)).toEqual([6]);
    expect(link(newest, 'previous')).toBeUndefined();
    expect(link(newest, 'self')).toContain('_cursor=');
  });

  it('pages a type history the same way, within the caller view, and GraphQL takes the same cursor', async () => {
    const other = (await fhir(t, token, 'POST', '/Patient', patient('other'))).json().id as string;
    const stranger = await apiToken(t, await registerPartner(t, 'History Stranger'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    await fhir(t, stranger, 'POST', '/Patient', patient('stranger'));
    const seen: string[] = [];
    let url: string | undefined = '/fhir/R4/Patient/_history?_count=3';
    while (url) {
      const b = await page(url);
      seen.push(...b.entry.map((e) => `${e.resource!.id}/${e.resource!.meta.versionId}`));
      url = link(b, 'next');
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(seen[0]).toBe(`${other}/1`);

    const firstPage = await page('/fhir/R4/Patient/_history?_count=3');
    const cursor = new URL(link(firstPage, 'next')!).searchParams.get('_cursor')!;
    const gql = await t.graphql<{ fhirHistory: { status: number; resource: HistoryBundle } }>(
      'query($c: String!) { fhirHistory(resourceType: "Patient", count: 3, cursor: $c) { status resource } }',
      { c: cursor },
      token,
    );
    expect(gql.errors).toBeUndefined();
    const rest = await page(link(firstPage, 'next')!);
    expect(gql.data!.fhirHistory.resource.entry.map((e) => e.resource!.meta.versionId)).toEqual(rest.entry.map((e) => e.resource!.meta.versionId));
  });

  it('refuses garbled, forged and search cursors, and _cursor with _offset, naming _cursor', async () => {
    const search = (await fhir(t, token, 'GET', '/Patient?_count=1')).json() as HistoryBundle;
    const searchCursor = new URL(link(search, 'next')!).searchParams.get('_cursor')!;
    const forged = Buffer.from(JSON.stringify([1, '_history', ['x'], '2026-01-01T00:00:00.000Z', id, 'n'])).toString('base64url');
    for (const bad of ['not a cursor', searchCursor, forged]) {
      const res = await fhir(t, token, 'GET', `/Patient/${id}/_history?_cursor=${encodeURIComponent(bad)}`);
      expect(res.statusCode, bad).toBe(400);
      expect(res.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ expression: ['_cursor'] }] });
    }
    const first = await page(`/fhir/R4/Patient/${id}/_history?_count=2`);
    const cursor = new URL(link(first, 'next')!).searchParams.get('_cursor')!;
    const both = await fhir(t, token, 'GET', `/Patient/${id}/_history?_cursor=${cursor}&_offset=2`);
    expect(both.statusCode).toBe(400);
    expect(both.json().issue[0].expression).toEqual(['_cursor']);
    // _offset still works when asked for explicitly.
    expect(versions(await page(`/fhir/R4/Patient/${id}/_history?_count=2&_offset=2`)).length).toBe(2);
  });

  it('pages history inside a batch Bundle by the GET entry\'s _count and _cursor, as the REST route does', async () => {
    const first = await page(`/fhir/R4/Patient/${id}/_history?_count=2`);
    const cursor = new URL(link(first, 'next')!).searchParams.get('_cursor')!;
    const second = await page(`/fhir/R4/Patient/${id}/_history?_count=2&_cursor=${cursor}`);
    const pusher = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.bundle.push']);
    const batch = await fhir(t, pusher, 'POST', '', {
      resourceType: 'Bundle',
      type: 'batch',
      entry: [
        { request: { method: 'GET', url: `Patient/${id}/_history?_count=2` } },
        { request: { method: 'GET', url: `Patient/${id}/_history?_count=2&_cursor=${cursor}` } },
        { request: { method: 'GET', url: `Patient/${id}/_history?_cursor=not-a-cursor` } },
      ],
    });
    expect(batch.statusCode, batch.body).toBe(200);
    const [a, b, bad] = batch.json().entry as { resource?: HistoryBundle; response: { status: string; outcome?: { issue: { expression?: string[] }[] } } }[];
    expect(versions(a!.resource!)).toEqual(versions(first));
    expect(versions(b!.resource!)).toEqual(versions(second));
    expect(bad!.response.status).toMatch(/^400/);
  });
});

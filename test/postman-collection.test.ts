import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Collection, Item, ItemGroup } from 'postman-collection';
import { ROUTES } from '@svc/rest-facade';
import { openApiSpecNames } from '../rest-facade/src/catalog/openapi.js';
import { postmanPath } from '../rest-facade/src/catalog/postman-collection.js';
import { bootSystem, type TestSystem } from './support/system.js';

/** Every request of a collection, as `METHOD path` with Postman's `:param` placeholders. */
function requestsOf(group: ItemGroup): Item[] {
  const entries = group.items.all() as (Item | ItemGroup)[];
  return entries.flatMap((entry) => (ItemGroup.isItemGroup(entry) ? requestsOf(entry as ItemGroup) : [entry as Item]));
}

/** A JSON value without the `_` keys postman-collection keeps its private metadata in. */
function withoutPrivate(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPrivate);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => key !== '_').map(([key, v]) => [key, withoutPrivate(v)]));
}
const requestKey = (item: Item) => `${item.request.method} ${item.request.url.path?.join('/') ?? ''}`;

describe('GET /api/openapi/{spec}.postman.json', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_PUBLIC_URL: 'https://sandbox.example.test' });
  });
  afterAll(() => t?.close());

  it('is a route of the table, so the catalog and the OpenAPI document list it', async () => {
    const catalog = (await t.request({ url: '/api/partner/routes?product=platform' })).json() as { routes: { method: string; path: string }[] };
    expect(catalog.routes).toContainEqual(expect.objectContaining({ method: 'GET', path: '/api/openapi/{spec}.postman.json' }));
    const openapi = (await t.request({ url: '/api/openapi/platform.json', token: null })).json() as { paths: Record<string, { get?: { security: unknown[] } }> };
    expect(openapi.paths['/api/openapi/{spec}.postman.json']?.get?.security).toEqual([]);
  });

  it('converts the whole API once, even for concurrent first requests, into a collection postman-collection reads back', async () => {
    const [first, second] = await Promise.all([t.request({ url: '/api/openapi/all.postman.json', token: null }), t.request({ url: '/api/openapi/all.postman.json', token: null })]);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    expect(second.body).toBe(first.body);
    const json = first.json() as Record<string, unknown>;

    const collection = new Collection(json as ConstructorParameters<typeof Collection>[0]);
    expect(Collection.isCollection(collection)).toBe(true);
    // Round trip: what the library writes, it reads back unchanged (but for `_`, the library's own
    // private metadata, which it writes and does not read back).
    const written = collection.toJSON() as Record<string, unknown>;
    expect(withoutPrivate(new Collection(written).toJSON())).toEqual(withoutPrivate(written));

    const items = requestsOf(collection);
    expect(items.length).toBe(ROUTES.length);
    for (const item of items) expect(item.request, item.name).toBeDefined();
    const keys = new Set(items.map(requestKey));
    for (const route of ROUTES) expect(keys.has(`${route.method} ${postmanPath(route.path)}`), `${route.method} ${route.path}`).toBe(true);

    // The sandbox base URL and bearer auth as collection variables.
    expect(collection.variables.get('baseUrl')).toBe('https://sandbox.example.test');
    expect(collection.variables.has('bearerToken')).toBe(true);
    // `{spec}` inside a path segment is a collection variable, with a usable first value.
    expect(collection.variables.get('spec')).toBe('all');
    expect(written.auth).toEqual({ type: 'bearer', bearer: [{ key: 'token', value: '{{bearerToken}}', type: 'string' }] });
    const byKey = new Map(items.map((item) => [requestKey(item), item]));
    const authOf = (key: string) => (byKey.get(key)?.request.toJSON() as { auth?: { type: string } } | undefined)?.auth;
    expect(authOf('GET cms/tokens')).toBeUndefined();
    expect(authOf('POST cms/partner-login')?.type).toBe('noauth');
    expect(byKey.get('GET api/identity/:gpid')?.request.url.toString()).toMatch(/^\{\{baseUrl\}\}\/api\/identity\//);

    const again = await t.request({ url: '/api/openapi/all.postman.json', token: null, headers: { 'if-none-match': String(first.headers['etag']) } });
    expect(again.statusCode).toBe(304);
  });

  it('serves one collection per OpenAPI document, each with the routes of its product', async () => {
    for (const spec of openApiSpecNames(ROUTES).filter((name) => name !== 'all')) {
      const res = await t.request({ url: `/api/openapi/${spec}.postman.json`, token: null });
      expect(res.statusCode, spec).toBe(200);
      const keys = requestsOf(new Collection(res.json())).map(requestKey).sort();
      expect(keys, spec).toEqual(ROUTES.filter((route) => route.product === spec).map((route) => `${route.method} ${postmanPath(route.path)}`).sort());
    }
  });

  it('answers an unknown document with 404 naming the available ones', async () => {
    const res = await t.request({ url: '/api/openapi/nope.postman.json', token: null });
    expect(res.statusCode).toBe(404);
    expect(res.json().detail).toContain('all.postman.json');
  });
});

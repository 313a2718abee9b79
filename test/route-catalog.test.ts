import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { ROUTES } from '@svc/rest-facade';
import { bootSystem, type TestSystem } from './support/system.js';

const DEPRECATED = ['post /tefca/v1/patient-discovery', 'post /tefca/v1/document-query', 'post /analytics/v1/query', 'get /analytics/v1/risk-score'];
const RFC822 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

type OpenApi = { openapi: string; paths: Record<string, Record<string, Record<string, any>>>; components: Record<string, any>; info: Record<string, unknown> };

describe('route catalog, OpenAPI documents and changelog, generated from the route table', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  describe('GET /api/partner/routes', () => {
    it('requires authentication', async () => {
      const res = await t.request({ url: '/api/partner/routes', token: null });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    });

    it('lists every route of the table with its method, path, product, auth, scopes, limits, latency, deprecation and state', async () => {
      const res = await t.request({ url: '/api/partner/routes' });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.total).toBe(ROUTES.length);
      expect(body.routes.map((r: { method: string; path: string }) => `${r.method} ${r.path}`)).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`));
      const byId = Object.fromEntries(body.routes.map((r: { id: string }) => [r.id, r]));
      expect(byId['tokens.create']).toMatchObject({
        method: 'POST',
        path: '/cms/tokens',
        product: 'partner-ecosystem',
        summary: 'Create scoped token',
        auth: 'bearer',
        scopes: ['cms.tokens.manage'],
        rate_limit: { limit: 5, window_seconds: 60, text: '5/min' },
        success_status: 201,
        latency_pair: ['120ms', '300ms'],
        deprecated: false,
        deprecation: null,
      });
      expect(byId['oauth.register'].rate_limit.text).toBe('3/hour');
      expect(byId['analytics.v1.query']).toMatchObject({
        deprecated: true,
        deprecation: { since: '2026-06-12', sunset: '2026-09-12', successors: ['POST /analytics/v1/query/nl', 'POST /analytics/v1/query/execute'] },
      });
      expect(byId['catalog.routes'].implemented).toBe(true);
      for (const route of ROUTES) expect(byId[route.id].implemented, route.id).toBe(route.operation !== undefined);
      expect(body.routes.filter((r: { deprecated: boolean }) => r.deprecated)).toHaveLength(4);
      expect(body.product_limits['identity']).toEqual({ overall: { limit: 1000, window_seconds: 60, text: '1000/min' }, burst: { limit: 50, window_seconds: 1, text: '50/sec' } });
    });

    it('filters, and answers bad filters with a problem naming each', async () => {
      const identity = await t.request({ url: '/api/partner/routes?product=identity&deprecated=false' });
      expect(identity.json().routes.map((r: { path: string }) => r.path)).toContain('/api/identity/match');
      expect(identity.json().routes.every((r: { product: string }) => r.product === 'identity')).toBe(true);
      const bad = await t.request({ url: '/api/partner/routes?product=nope&implemented=maybe' });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['product', 'implemented']);
    });
  });

  describe('GET /api/openapi/{spec}', () => {
    async function fetchSpec(name: string): Promise<OpenApi> {
      const res = await t.request({ url: `/api/openapi/${name}`, token: null });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
      return parse(res.body) as OpenApi;
    }

    it('serves all.yaml: valid OpenAPI 3.1 with every route, security schemes and the 4 deprecated operations', async () => {
      const doc = await fetchSpec('all.yaml');
      const validator = new Validator();
      const result = await validator.validate(doc);
      expect(result.errors ?? []).toEqual([]);
      expect(result.valid).toBe(true);
      expect(validator.version).toBe('3.1');

      const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ key: `${method} ${path}`, op })));
      expect(operations.map((o) => o.key).sort()).toEqual(ROUTES.map((r) => `${r.method.toLowerCase()} ${r.path}`).sort());
      const deprecated = operations.filter((o) => o.op['deprecated'] === true);
      expect(deprecated.map((o) => o.key).sort()).toEqual([...DEPRECATED].sort());
      for (const { op } of deprecated) {
        expect(op['x-sunset-date']).toBe('2026-09-12');
        expect(Object.keys(op['responses']['200']['headers'])).toEqual(expect.arrayContaining(['Deprecation', 'Sunset', 'Link']));
        expect(op['responses']['410']).toBeDefined();
      }

      const schemes = doc.components['securitySchemes'];
      expect(schemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
      expect(schemes.oauth2.flows.clientCredentials.tokenUrl).toBe('/oauth/token');
      expect(Object.keys(schemes.oauth2.flows.clientCredentials.scopes)).toEqual(expect.arrayContaining(['cms.sdk.read', 'cms.partner.write', 'tefca.xcpd.*']));

      const createToken = doc.paths['/cms/tokens']!['post']!;
      expect(createToken['security']).toEqual([{ bearerAuth: [] }, { oauth2: ['cms.tokens.manage'] }]);
      expect(createToken['x-ratelimit']).toMatchObject({ route: { limit: 5, window_seconds: 60, text: '5/min' }, overall: { text: '500/min' }, burst: { text: '30/sec' } });
      expect(createToken['responses']['429']).toEqual({ $ref: '#/components/responses/Problem429' });
      const tooMany = doc.components['responses']['Problem429'];
      expect(Object.keys(tooMany.headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']));
      expect(doc.components['headers']['X-RateLimit-Reset'].schema).toEqual({ type: 'integer' });
      expect(tooMany.content['application/problem+json'].schema).toEqual({ $ref: '#/components/schemas/Problem' });
      expect(doc.paths['/oauth/token']!['post']!['security']).toEqual([]);
      expect(doc.paths['/api/identity/{gpid}']!['get']!['parameters']).toContainEqual({ name: 'gpid', in: 'path', required: true, schema: { type: 'string' } });
      expect(doc.paths['/fhir/R4/{resourceType}']!['get']!['responses']['404']).toEqual({ $ref: '#/components/responses/Outcome404' });
      expect(doc.components['responses']['Outcome404'].content).toHaveProperty('application/fhir+json');

      // Request and response schemas come from the route table.
      const sign = doc.paths['/cms/legal/baa/signatures']!['post']!;
      expect(sign['requestBody'].content['application/json'].schema.required).toEqual(['signer_name', 'signer_title', 'signer_email']);
      expect(doc.paths['/api/cms/sdk-catalog']!['get']!['responses']['200'].content['application/json'].schema.required).toEqual(['sdks', 'features']);
      expect(doc.paths['/api/changelog/rss']!['get']!['responses']['200'].content).toHaveProperty('application/rss+xml');
    });

    it('serves one valid document per product', async () => {
      for (const [name, expectedPaths] of [
        ['partner-ecosystem.yaml', ['/cms/tokens', '/cms-ecosystem/sdk-catalog', '/cms/legal/documents', '/cms/partners/{gpid}/scopes']],
        ['identity.yaml', ['/api/identity/match', '/api/identity/{gpid}']],
        ['fhir.yaml', ['/fhir/R4/metadata', '/fhir/R4/{resourceType}/{id}']],
        ['tefca.yaml', ['/tefca/xcpd/search', '/tefca/v1/patient-discovery']],
        ['analytics.yaml', ['/analytics/v1/query/nl', '/analytics/v1/risk-score']],
      ] as const) {
        const doc = await fetchSpec(name);
        expect((await new Validator().validate(doc)).valid, name).toBe(true);
        expect(Object.keys(doc.paths), name).toEqual(expect.arrayContaining([...expectedPaths]));
        expect(doc.paths['/api/partner/routes'], name).toBeUndefined();
      }
      const tefca = await fetchSpec('tefca.yaml');
      expect(tefca.paths['/tefca/v1/document-query']!['post']!['deprecated']).toBe(true);
    });

    it('serves JSON too, and answers an unknown document with a 404 problem listing the available ones', async () => {
      const json = await t.request({ url: '/api/openapi/identity.json', token: null });
      expect(json.headers['content-type']).toMatch(/^application\/json/);
      expect(json.json().openapi).toBe('3.1.0');
      for (const name of ['nope.yaml', 'identity', 'identity.xml']) {
        const res = await t.request({ url: `/api/openapi/${name}`, token: null });
        expect(res.statusCode, name).toBe(404);
        expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
        expect(res.json().available).toEqual(expect.arrayContaining(['all.yaml', 'partner-ecosystem.yaml', 'identity.yaml', 'fhir.yaml', 'tefca.yaml', 'analytics.yaml']));
      }
    });

    it('answers a conditional request with 304', async () => {
      const first = await t.request({ url: '/api/openapi/fhir.yaml', token: null });
      const again = await t.request({ url: '/api/openapi/fhir.yaml', token: null, headers: { 'if-none-match': String(first.headers['etag']) } });
      expect(again.statusCode).toBe(304);
    });
  });

  describe('GET /api/changelog/rss', () => {
    it('is valid RSS 2.0 with every release and the deprecations of the route table', async () => {
      const res = await t.request({ url: '/api/changelog/rss', token: null });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
      expect(XMLValidator.validate(res.body)).toBe(true);
      const feed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(res.body);
      expect(feed.rss['@version']).toBe('2.0');
      const channel = feed.rss.channel;
      expect(channel.title).toBe('Partner Portal Changelog');
      expect(channel.link).toBe(`${t.config.publicUrl}/changelog`);
      expect(typeof channel.description).toBe('string');
      const items = channel.item as { title: string; link: string; description: string; guid: { '#text': string }; pubDate: string; category: string }[];
      expect(items).toHaveLength(11 + 4);
      for (const item of items) {
        expect(item.title.length).toBeGreaterThan(0);
        expect(item.pubDate).toMatch(RFC822);
      }
      const releases = items.filter((i) => i.category === 'Release');
      expect(releases.map((i) => i.guid['#text'])).toEqual([
        'release:v2.2.0', 'release:v2.1.0', 'release:v2.0.0', 'release:v1.9.0', 'release:v1.8.0', 'release:v1.7.1',
        'release:v1.7.0', 'release:v1.6.0', 'release:v1.5.0', 'release:v1.4.x', 'release:v1.3.0',
      ]);
      expect(releases[0]!.description).toContain('BAA e-sign');
      const deprecations = items.filter((i) => i.category === 'Deprecation');
      expect(deprecations.map((i) => i.title).sort()).toEqual(
        [
          'Deprecated: GET /analytics/v1/risk-score (sunset 2026-09-12)',
          'Deprecated: POST /analytics/v1/query (sunset 2026-09-12)',
          'Deprecated: POST /tefca/v1/document-query (sunset 2026-09-12)',
          'Deprecated: POST /tefca/v1/patient-discovery (sunset 2026-09-12)',
        ].sort(),
      );
      expect(deprecations.find((i) => i.title.includes('risk-score'))!.description).toContain('Migrate to POST /analytics/v1/analytics-score/compute');
      const dates = items.map((i) => Date.parse(i.pubDate));
      expect([...dates].sort((a, b) => b - a)).toEqual(dates);
    });
  });
});

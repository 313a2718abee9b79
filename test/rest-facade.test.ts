import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';

const HTTP_DATE = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

describe('REST facade: routes from the route table through the gateway', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  describe('a Bearer route: GET /cms/tokens', () => {
    it('lists the active tokens of the caller, in snake_case, never secrets', async () => {
      const res = await t.request({ url: '/cms/tokens' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const body = res.json();
      expect(body.tokens).toHaveLength(1);
      expect(body.tokens[0]).toMatchObject({ token_id: expect.stringMatching(/^tok_/), partner_gpid: 'CMS-00000000', scopes: ['*'] });
      expect(body.tokens[0].created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
      expect(JSON.stringify(body)).not.toContain(t.operatorToken);
      expect(Object.keys(body.tokens[0])).not.toContain('secret_hash');
    });

    it('answers 401 problem+json without a credential', async () => {
      const res = await t.request({ url: '/cms/tokens', token: null });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      expect(res.json()).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', title: 'Unauthorized', instance: '/cms/tokens' });
    });

    it('answers 401 invalid_token for an unknown or malformed credential', async () => {
      const unknown = await t.request({ url: '/cms/tokens', token: 'svc_pat_not-a-real-token' });
      expect(unknown.statusCode).toBe(401);
      expect(unknown.json().code).toBe('INVALID_TOKEN');
      expect(unknown.headers['www-authenticate']).toContain('invalid_token');
      const malformed = await t.request({ url: '/cms/tokens', token: null, headers: { authorization: 'Basic abc' } });
      expect(malformed.statusCode).toBe(401);
      expect(malformed.json().code).toBe('UNAUTHENTICATED');
    });

    it('reports its rate limits on every answer', async () => {
      const res = await t.request({ url: '/cms/tokens' });
      expect(res.headers['x-ratelimit-limit']).toBe('30');
      expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThan(30);
      expect(Number(res.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000 - 1);
      expect(res.headers['ratelimit-policy']).toBe('"burst";q=30;w=1, "partner";q=500;w=60, "route";q=30;w=60');
      expect(res.headers['ratelimit']).toMatch(/^"route";r=\d+;t=\d+$/);
    });
  });

  describe('rate limits', () => {
    it('answers 429 with Retry-After once the per-route limit (5/min for POST /cms/tokens) is spent', async () => {
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 6; i++) {
        last = await t.request({ method: 'POST', url: '/cms/tokens', body: { name: 'x', scopes: [] } });
        statuses.push(last.statusCode);
      }
      expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true);
      expect(statuses[5]).toBe(429);
      expect(last!.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(last!.headers['retry-after'])).toBeLessThanOrEqual(60);
      expect(last!.headers['x-ratelimit-limit']).toBe('5');
      expect(last!.headers['x-ratelimit-remaining']).toBe('0');
      expect(last!.json()).toMatchObject({ code: 'RATE_LIMITED', policy: 'route', limit: 5, window_seconds: 60 });
    });
  });

  describe('a public route: GET /fhir/R4/metadata', () => {
    it('serves the CapabilityStatement without a credential, as FHIR JSON', async () => {
      const res = await t.request({ url: '/fhir/R4/metadata', token: null });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(res.json()).toMatchObject({ resourceType: 'CapabilityStatement', fhirVersion: '4.0.1', kind: 'instance' });
    });

    it('answers FHIR errors as OperationOutcome', async () => {
      const res = await t.request({ url: '/fhir/R4/Patient', token: null });
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(res.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'login' }] });
    });
  });

  describe('a deprecated route: POST /analytics/v1/query (sunset 2026-09-12)', () => {
    it('carries Deprecation, Sunset (HTTP-date) and successor Links, and is gone after its sunset', async () => {
      const res = await t.request({ method: 'POST', url: '/analytics/v1/query', body: {} });
      expect(res.headers['deprecation']).toBe('true');
      expect(res.headers['sunset']).toBe('Sat, 12 Sep 2026 00:00:00 GMT');
      expect(res.headers['sunset']).toMatch(HTTP_DATE);
      expect(res.headers['link']).toBe(
        `<${t.config.publicUrl}/analytics/v1/query/nl>; rel="successor-version", <${t.config.publicUrl}/analytics/v1/query/execute>; rel="successor-version"`,
      );
      expect(res.statusCode).toBe(410);
      expect(res.json()).toMatchObject({ code: 'GONE', sunset: '2026-09-12' });
    });

    it('carries the headers on error answers too', async () => {
      const res = await t.request({ url: '/analytics/v1/risk-score', token: null });
      expect(res.headers['deprecation']).toBe('true');
      expect(res.headers['link']).toBe(`<${t.config.publicUrl}/analytics/v1/analytics-score/compute>; rel="successor-version"`);
    });
  });

  describe('conventions', () => {
    it('echoes a caller X-Request-Id and mints one otherwise', async () => {
      const echoed = await t.request({ url: '/fhir/R4/metadata', token: null, headers: { 'x-request-id': 'abc-123' } });
      expect(echoed.headers['x-request-id']).toBe('abc-123');
      const minted = await t.request({ url: '/fhir/R4/metadata', token: null });
      expect(minted.headers['x-request-id']).toMatch(/^req_[0-9a-z]{26}$/);
    });

    it('answers unknown paths with a problem document', async () => {
      const res = await t.request({ url: '/nope' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ status: 404, code: 'NOT_FOUND', type: '/problems/not-found' });
    });

    it('answers malformed JSON with 400 problem+json', async () => {
      const res = await t.request({ method: 'POST', url: '/api/identity/merge', body: '{"broken', headers: { 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('BAD_REQUEST');
    });

    it('validates path parameters before calling the gateway', async () => {
      const res = await t.request({ url: '/api/identity/not-a-gpid' });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'gpid' }] });
      const missing = await t.request({ url: '/api/identity/SVC-0000ABCD' });
      expect(missing.statusCode).toBe(404);
    });

    it('serves every documented route: the catalog lists none that is not implemented', async () => {
      const res = await t.request({ url: '/api/partner/routes?implemented=false' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ total: 0, routes: [] });
    });

    it('serves pipeline metrics joined across subgraphs', async () => {
      const res = await t.request({ url: '/cms/pipeline/partners?limit=5' });
      expect(res.statusCode).toBe(200);
      expect(res.json().partners[0]).toMatchObject({ partner_gpid: 'CMS-00000000', jobs_total: 0, sync_success_rate: null });
      const bad = await t.request({ url: '/cms/pipeline/partners?limit=0' });
      expect(bad.statusCode).toBe(422);
      const health = await t.request({ url: '/cms/pipeline/health' });
      expect(health.json()).toMatchObject({ status: 'idle', window_hours: 24 });
    });
  });
});

describe('a deprecated route before its sunset', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({}, { now: () => new Date('2026-07-01T00:00:00Z') });
  });
  afterAll(() => t?.close());

  it('is still served, with the deprecation headers', async () => {
    const res = await t.request({ method: 'POST', url: '/tefca/v1/patient-discovery', body: {} });
    expect(res.statusCode).not.toBe(410);
    expect(res.headers['deprecation']).toBe('true');
    expect(res.headers['sunset']).toBe('Sat, 12 Sep 2026 00:00:00 GMT');
    expect(res.headers['link']).toContain('</tefca/xcpd/search>'.replace('</', `<${t.config.publicUrl}/`));
  });
});

describe('a deprecated route whose sunset the operator moved (SVC_DEPRECATION_SUNSETS)', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_DEPRECATION_SUNSETS: 'tefca.v1.patient-discovery=2027-03-31' });
  });
  afterAll(() => t?.close());

  it('is served again, with the new date in its Sunset header, the catalog and the changelog; other routes keep theirs', async () => {
    const moved = await t.request({ method: 'POST', url: '/tefca/v1/patient-discovery', body: {} });
    expect(moved.statusCode).not.toBe(410);
    expect(moved.headers['deprecation']).toBe('true');
    expect(moved.headers['sunset']).toBe('Wed, 31 Mar 2027 00:00:00 GMT');
    const still = await t.request({ method: 'POST', url: '/tefca/v1/document-query', body: {} });
    expect(still.statusCode).toBe(410);
    const catalog = await t.request({ url: '/api/partner/routes?deprecated=true' });
    const entry = (catalog.json() as { routes: { path: string; deprecation?: { sunset: string } }[] }).routes.find((r) => r.path === '/tefca/v1/patient-discovery');
    expect(JSON.stringify(entry)).toContain('2027-03-31');
    const rss = await t.request({ url: '/api/changelog/rss' });
    expect(rss.body).toContain('deprecation:POST:/tefca/v1/patient-discovery:2027-03-31');
  });

  it('refuses to start when the setting names a route that is not deprecated', async () => {
    await expect(bootSystem({ SVC_DEPRECATION_SUNSETS: 'webhooks.list=2027-01-01' })).rejects.toThrow(/names no deprecated route: webhooks.list/);
    await expect(bootSystem({ SVC_DEPRECATION_SUNSETS: 'tefca.v1.patient-discovery=soon' })).rejects.toThrow(/routeId=YYYY-MM-DD/);
  });
});

describe('an address that keeps presenting bad credentials', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  it('is refused with 429 before any lookup once it has failed 30 times in a minute', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await t.request({ url: '/cms/tokens', token: `svc_pat_made-up-${i}` })).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    const refused = await t.request({ url: '/cms/tokens', token: 'svc_pat_another' });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', policy: 'auth_failures', limit: 30 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/** Failures the REST fuzzer (npm run fuzz) found in generic facade code, each held fixed here. */
describe('REST fuzzer regressions', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
  });
  afterAll(() => t?.close());

  describe('a body refused before the route runs is answered in the route dialect', () => {
    it('POST /oauth/token with a body over the limit answers RFC 6749 JSON, not problem+json', async () => {
      const res = await t.request({ method: 'POST', url: '/oauth/token', token: null, headers: { 'content-type': 'application/json' }, body: `{"a":"${'A'.repeat(5 * 1024 * 1024 + 10)}"}` });
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.json()).toMatchObject({ error: 'invalid_request', error_description: expect.any(String) });
      expect(res.headers['x-request-id']).toBeTruthy();
    });

    it('POST /oauth/token with malformed JSON answers RFC 6749 invalid_request', async () => {
      const res = await t.request({ method: 'POST', url: '/oauth/token', token: null, headers: { 'content-type': 'application/json' }, body: '{"grant_type":' });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('POST /oauth/token with a media type nothing parses answers RFC 6749 invalid_request', async () => {
      const res = await t.request({ method: 'POST', url: '/oauth/token', token: null, headers: { 'content-type': 'application/xml' }, body: '<grant_type>client_credentials</grant_type>' });
      expect(res.statusCode).toBeLessThan(500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toMatchObject({ error: 'invalid_request' });
    });

    it('other routes keep problem+json for the same refusals', async () => {
      const res = await t.request({ method: 'POST', url: '/cms/tokens', headers: { 'content-type': 'application/json' }, body: '{"name":' });
      expect(res.statusCode).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ code: 'BAD_REQUEST', request_id: res.headers['x-request-id'] });
    });
  });
  it('FHIR search parameters named like Object.prototype members are plain parameter names', async () => {
    for (const name of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const get = await t.request({ url: `/fhir/R4/Patient?${name}=1` });
      expect(get.statusCode, name).toBe(200);
      expect(get.json()).toMatchObject({ resourceType: 'Bundle', type: 'searchset' });
      const post = await t.request({ method: 'POST', url: '/fhir/R4/Patient/_search', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `${name}=true` });
      expect(post.statusCode, name).toBe(200);
    }
  });
});

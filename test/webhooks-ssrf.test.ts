import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';

/** The default configuration: private, loopback, link-local and metadata receivers are refused. */
describe('webhooks: SSRF protection on endpoint URLs', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  it('refuses private, loopback, link-local and metadata addresses, literal or by name, naming the field url', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://localhost/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/hook', 'http://10.0.0.8/hook', 'http://[::ffff:127.0.0.1]/', 'http://[fd00:ec2::254]/']) {
      const res = await t.request({ method: 'POST', url: '/api/partner/webhooks', body: { url, event_types: ['pipeline.sync.completed'] } });
      expect(res.statusCode, url).toBe(422);
      expect(res.headers['content-type']).toContain('application/problem+json');
      const problem = res.json() as { code: string; errors?: { field: string }[]; field_errors?: { field: string }[] };
      expect(problem.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(problem), url).toMatch(/"field":"url"/);
    }
    const graphql = await t.graphql('mutation { createWebhook(input: { url: "http://127.0.0.1/x", eventTypes: ["*"] }) { secret } }');
    expect(graphql.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(graphql.errors)).toContain('"url"');
  });
});

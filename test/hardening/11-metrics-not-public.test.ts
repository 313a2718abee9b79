import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * Issue 7, point 11 (part): /metrics was public on the API port. Now it is served only on the
 * internal listener (SVC_INTERNAL_PORT, loopback by default), next to /health and /ready; the public
 * port answers it as an unknown path to everyone, operators included.
 */
describe('/metrics is not public', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  it('answers no metrics on the public port, to anonymous callers or anyone else', async () => {
    for (const token of [null, t.operatorToken]) {
      const res = await t.request({ url: '/metrics', token });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toMatch(/svc_|process_cpu|# HELP/);
    }
  });

  it('serves Prometheus metrics, health and readiness on the internal listener', async () => {
    await t.request({ url: '/cms/tokens' });
    const internal = t.system.internalApp!;
    const metrics = await internal.inject({ url: '/metrics' });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.headers['content-type']).toMatch(/^text\/plain/);
    expect(metrics.body).toMatch(/^svc_http_request_duration_seconds_count\{.*route="\/cms\/tokens"/m);
    expect((await internal.inject({ url: '/health' })).json()).toEqual({ status: 'ok' });
    expect((await internal.inject({ url: '/ready' })).statusCode).toBe(200);
    // The internal listener of the embedded default carries no API and no internal hop.
    expect((await internal.inject({ url: '/internal/principal', headers: { authorization: `Bearer ${t.operatorToken}` } })).statusCode).toBe(404);
    expect((await internal.inject({ method: 'POST', url: '/graphql', payload: { query: '{ viewer { kind } }' } })).statusCode).toBe(404);
  });

  it('listens on its own port, apart from the public one', async () => {
    const publicAddress = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    const internalAddress = await t.system.internalApp!.listen({ port: 0, host: '127.0.0.1' });
    expect(internalAddress).not.toBe(publicAddress);
    expect((await fetch(`${publicAddress}/metrics`)).status).toBe(404);
    expect((await fetch(`${internalAddress}/metrics`)).status).toBe(200);
  });
});

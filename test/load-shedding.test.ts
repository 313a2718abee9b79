import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';

/**
 * Overload is answered by refusing work early. The per-process in-flight limit is forced to 1
 * (SVC_MAX_IN_FLIGHT): while one request is held (a GraphQL `event(waitMs:)` long poll for an event
 * that never comes), every other request is refused before any work with 503, Retry-After and a
 * problem document, on REST and GraphQL alike; the probes keep answering, /ready says why the
 * process should get no traffic, and the place is free again once the held request is answered.
 */
describe('load shedding', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_MAX_IN_FLIGHT: '1' });
  }, 180_000);
  afterAll(() => t?.close());

  const readyLoad = async () => ((await t.request({ url: '/ready', token: null })).json() as { checks: { load?: boolean } }).checks.load;

  it('refuses work beyond the limit with 503 problem+json and Retry-After, and frees the place afterwards', async () => {
    expect((await t.graphql('{ viewer { kind } }')).status).toBe(200);
    expect(await readyLoad()).toBe(true);

    const held = t.graphql('{ event(id: "evt_never_recorded", waitMs: 3000) { id } }');
    while ((await readyLoad()) !== false) await new Promise((r) => setImmediate(r));

    const rest = await t.request({ url: '/cms/tokens' });
    expect(rest.statusCode).toBe(503);
    expect(Number(rest.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(rest.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(rest.json()).toMatchObject({ status: 503, code: 'SERVER_BUSY' });

    const graphql = await t.request({ method: 'POST', url: '/graphql', body: { query: '{ viewer { kind } }' } });
    expect(graphql.statusCode).toBe(503);
    expect(Number(graphql.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(graphql.json()).toMatchObject({ status: 503, code: 'SERVER_BUSY' });

    expect((await t.request({ url: '/health', token: null })).statusCode).toBe(200);
    const ready = await t.request({ url: '/ready', token: null });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'not_ready', checks: { load: false } });

    expect((await held).status).toBe(200);
    expect((await t.graphql('{ viewer { kind } }')).status).toBe(200);
    expect(await readyLoad()).toBe(true);
  });
});

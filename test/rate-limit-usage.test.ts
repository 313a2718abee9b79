import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { mintToken, registerPartner } from './support/identity.js';

// A partner's rate-limit usage, read over REST and GraphQL from the counters its requests spend.
let t: TestSystem;
let gpid: string;
let token: string;
let otherToken: string;

const USAGE = 'query($g: ID!) { partner(gpid: $g) { rateLimitUsage { enforced counters { policy name product limit windowSeconds used remaining resetsAt } } } }';

interface Counter {
  policy: string;
  name: string;
  product: string;
  limit: number;
  window_seconds: number;
  used: number;
  remaining: number;
  resets_at: string | null;
}

beforeAll(async () => {
  t = await bootSystem();
  gpid = await registerPartner(t, 'Usage Metering Health');
  token = await mintToken(t, ['cms.partner.read', 'cms.sdk.read'], gpid);
  otherToken = await mintToken(t, ['cms.partner.read'], await registerPartner(t, 'Usage Bystander Labs'));
});
afterAll(() => t?.close());

describe('rate-limit usage', () => {
  it('counts what the partner spent, on REST and GraphQL alike, without anyone else\'s requests', async () => {
    for (let i = 0; i < 3; i++) expect((await t.request({ url: '/cms-ecosystem/sdk-catalog', token })).statusCode).toBe(200);
    // The GraphQL twin of the SDK catalog spends the same counter.
    expect((await t.graphql('{ sdkCatalog { features { code } } }', {}, token)).errors).toBeUndefined();
    // Another partner's requests are not ours.
    await t.request({ url: '/cms-ecosystem/sdk-catalog', token: otherToken });

    const res = await t.request({ url: `/cms/partners/${gpid}/rate-limits`, token });
    expect(res.statusCode).toBe(200);
    const body = res.json() as { partner_gpid: string; enforced: boolean; counters: Counter[] };
    expect(body.partner_gpid).toBe(gpid);
    expect(body.enforced).toBe(true);
    const find = (policy: string, name: string) => body.counters.find((c) => c.policy === policy && c.name === name);
    expect(find('route', 'sdk.catalog')).toMatchObject({ product: 'partner-ecosystem', limit: 60, window_seconds: 60, used: 4, remaining: 56, resets_at: expect.any(String) });
    // The read itself spends its own route and the product's overall counter (after reading them).
    expect(find('partner', 'partner-ecosystem')).toMatchObject({ limit: 500, window_seconds: 60, used: 5, remaining: 495 });
    expect(find('burst', 'partner-ecosystem')).toMatchObject({ limit: 30, window_seconds: 1 });
    // Every product's overall limit is listed, spent or not; unspent route limits are not.
    expect(find('partner', 'fhir')).toEqual({ policy: 'partner', name: 'fhir', product: 'fhir', limit: 500, window_seconds: 60, used: 0, remaining: 500, resets_at: null });
    expect(find('route', 'identity.match')).toBeUndefined();

    const viaGraphql = await t.graphql<{ partner: { rateLimitUsage: { enforced: boolean; counters: { policy: string; name: string; used: number }[] } } }>(USAGE, { g: gpid }, token);
    expect(viaGraphql.errors).toBeUndefined();
    const counters = viaGraphql.data!.partner.rateLimitUsage.counters;
    expect(counters.find((c) => c.policy === 'route' && c.name === 'sdk.catalog')?.used).toBe(4);
    expect(counters.find((c) => c.policy === 'route' && c.name === 'partners.rate-limits')?.used).toBe(2);
  });

  it('answers another partner\'s GPID exactly like one nobody has, and lets operators read any', async () => {
    const foreign = await t.request({ url: `/cms/partners/${gpid}/rate-limits`, token: otherToken });
    const missing = await t.request({ url: '/cms/partners/CMS-99999999/rate-limits', token: otherToken });
    expect(foreign.statusCode).toBe(404);
    expect(missing.statusCode).toBe(404);
    const { request_id: _a, instance: _b, ...foreignBody } = foreign.json();
    const { request_id: _c, instance: _d, ...missingBody } = missing.json();
    expect(foreignBody).toEqual(missingBody);
    expect((await t.graphql<{ partner: unknown }>(USAGE, { g: gpid }, otherToken)).data?.partner).toBeNull();

    const operator = await t.request({ url: `/cms/partners/${gpid}/rate-limits` });
    expect(operator.statusCode).toBe(200);
    expect(operator.json().counters.find((c: Counter) => c.name === 'sdk.catalog')?.used).toBe(4);
  });

  it('needs a scope that reads partner data', async () => {
    const narrow = await mintToken(t, ['identity.match'], gpid);
    const res = await t.request({ url: `/cms/partners/${gpid}/rate-limits`, token: narrow });
    expect(res.statusCode).toBe(403);
  });
});

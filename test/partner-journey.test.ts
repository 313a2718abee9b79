import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { bootSystem, type TestSystem } from './support/system.js';
import { onboardPartner, PORTAL_PASSWORD } from './support/partner-onboarding.js';

/** The whole partner journey, in order, the way a new partner lives it. */
describe('partner journey: apply → approve → sign in → tokens → limits → revoke → OAuth → certification', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  it('works end to end over HTTP', async () => {
    // Apply in three steps and get approved by a reviewer.
    const { partnerGpid, email } = await onboardPartner(t, 'journey');
    expect(partnerGpid).toMatch(/^CMS-\d{8}$/);

    // Sign in to the portal.
    const login = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email, password: PORTAL_PASSWORD } });
    expect(login.statusCode).toBe(200);
    const session = login.json().access_token as string;

    // Create a scoped token (secret shown once) and call a Bearer route with it.
    const created = await t.request({ method: 'POST', url: '/cms/tokens', token: session, body: { name: 'ci', scopes: ['cms.tokens.manage', 'cms.pipeline.read'] } });
    expect(created.statusCode).toBe(201);
    const { token_id: tokenId, secret } = created.json() as { token_id: string; secret: string };
    const listed = await t.request({ url: '/cms/tokens', token: secret });
    expect(listed.statusCode).toBe(200);
    expect(listed.json().tokens.map((x: { token_id: string }) => x.token_id)).toContain(tokenId);
    expect(JSON.stringify(listed.json())).not.toContain(secret);

    // Spend the budget of GET /cms/tokens (30/min per route, 30/s burst): the 429 says when to come back.
    let limited;
    for (let i = 0; i < 40 && !limited; i++) {
      const res = await t.request({ url: '/cms/tokens', token: secret });
      if (res.statusCode === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(limited!.headers['x-ratelimit-limit']).toBe('30');
    expect(limited!.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(limited!.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited!.json()).toMatchObject({ code: 'RATE_LIMITED', limit: 30, policy: expect.stringMatching(/^(route|burst)$/) });

    // The burst window (30/s for the whole product) passes within a second.
    await new Promise((resolve) => setTimeout(resolve, 1100));

    // Revoke it: the next call is refused at once.
    const revoked = await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${tokenId}`, token: session });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ token_id: tokenId, partner_gpid: partnerGpid, reason: 'partner_request' });
    const afterRevoke = await t.request({ url: '/cms/pipeline/health', token: secret });
    expect(afterRevoke.statusCode).toBe(401);
    expect(afterRevoke.json().code).toBe('INVALID_TOKEN');

    // Register an OAuth client and exchange its credentials for a JWT with a plain form post.
    const registered = await t.request({ method: 'POST', url: '/cms/oauth/register', token: session, body: { client_name: 'journey', scope: 'identity.read', token_endpoint_auth_method: 'client_secret_post' } });
    expect(registered.statusCode).toBe(201);
    const client = registered.json() as { client_id: string; client_secret: string };
    const exchanged = await t.request({
      method: 'POST',
      url: '/oauth/token',
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString(),
    });
    expect(exchanged.statusCode).toBe(200);
    const accessToken = exchanged.json().access_token as string;
    const jwks = (await t.request({ url: '/.well-known/jwks.json', token: null })).json() as JSONWebKeySet;
    const { payload } = await jwtVerify(accessToken, createLocalJWKSet(jwks), { issuer: t.config.publicUrl, typ: 'at+jwt' });
    expect(payload).toMatchObject({ client_id: client.client_id, partner_gpid: partnerGpid, scope: 'identity.read' });

    // Certification: refused while required items are incomplete, each one named.
    const submitted = await t.request({ method: 'POST', url: '/api/partner/certification', token: session, body: { checklist_id: 'partner_ecosystem' } });
    expect(submitted.statusCode).toBe(422);
    expect(submitted.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(submitted.json().errors.length).toBeGreaterThan(0);
    expect(submitted.json().errors[0].field).toMatch(/^items\./);
  });
});

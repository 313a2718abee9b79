import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * Issue 7, point 6: 30 bad bearers (or failed client logins at /oauth/token) from one address used
 * to lock every partner behind it out for a minute, valid credentials included. Now a credential
 * known valid is never blocked by its address's failure count, the bad caller itself is refused,
 * and made-up credentials from a throttled address still cost no lookup.
 */

let t: TestSystem;
let addressCounter = 0;
const freshAddress = () => `192.0.2.${++addressCounter}`;

function rest(options: { method?: 'GET' | 'POST'; url: string; token?: string | null; body?: unknown; address: string }) {
  const token = options.token === undefined ? t.operatorToken : options.token;
  return t.system.app.inject({
    method: options.method ?? 'GET',
    url: options.url,
    remoteAddress: options.address,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
}

function graphql(query: string, token: string | null, address: string, variables: Record<string, unknown> = {}) {
  return t.system.app.inject({
    method: 'POST',
    url: '/graphql',
    remoteAddress: address,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: JSON.stringify({ query, variables }),
  });
}

function tokenRequest(fields: Record<string, string>, address: string) {
  return t.system.app.inject({
    method: 'POST',
    url: '/oauth/token',
    remoteAddress: address,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
}

interface Partner {
  session: string;
  apiToken: string;
  client: { client_id: string; client_secret: string };
}

/** A partner with a portal session, an API token and an OAuth client (client_secret_post). */
async function newPartner(legalName: string): Promise<Partner> {
  const setup = freshAddress();
  const registered = await graphql('mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', t.operatorToken, setup, { input: { legalName, organizationType: 'HEALTH_SYSTEM' } });
  const gpid = registered.json().data.registerPartner.gpid as string;
  const email = `portal.${gpid.slice(4)}@partner-${randomBytes(3).toString('hex')}.example`;
  const password = `Kq7!${randomBytes(9).toString('base64url')}zR4`;
  await graphql('mutation($p: ID!, $e: String!, $pw: String!) { createPortalAccount(partnerGpid: $p, email: $e, password: $pw) { email } }', t.operatorToken, setup, { p: gpid, e: email, pw: password });
  const session = (await rest({ method: 'POST', url: '/cms/partner-login', token: null, body: { email, password }, address: setup })).json().access_token as string;
  const created = await rest({ method: 'POST', url: '/cms/tokens', token: session, body: { name: 'ci', scopes: ['cms.tokens.manage'] }, address: setup });
  expect(created.statusCode).toBe(201);
  const client = await rest({ method: 'POST', url: '/cms/oauth/register', token: session, body: { client_name: 'sync', scope: 'cms.sdk.read', token_endpoint_auth_method: 'client_secret_post', grant_types: ['client_credentials'] }, address: setup });
  expect(client.statusCode).toBe(201);
  return { session, apiToken: created.json().secret, client: client.json() };
}

beforeAll(async () => {
  t = await bootSystem();
});
afterAll(() => t?.close());

describe('bad bearers from one address (a NAT, a hospital egress proxy)', () => {
  it('do not lock out valid credentials behind the same address; made-up ones are refused without a lookup', async () => {
    const nat = freshAddress();
    const colleague = await newPartner('Shared Egress Hospital');
    // The colleague's token is in use from the shared address (so it is known valid).
    expect((await rest({ url: '/cms/tokens', token: colleague.apiToken, address: nat })).statusCode).toBe(200);
    const access = (await tokenRequest({ grant_type: 'client_credentials', client_id: colleague.client.client_id, client_secret: colleague.client.client_secret }, freshAddress())).json().access_token as string;

    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await rest({ url: '/cms/tokens', token: `svc_pat_made-up-${i}`, address: nat })).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses[30]).toBe(429);
    const refused = await rest({ url: '/cms/tokens', token: 'svc_pat_another-made-up', address: nat });
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', policy: 'auth_failures', limit: 30 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    // Valid credentials from the same address still work: the API token in use, and an OAuth
    // access token (verified locally, never seen from here before).
    expect((await rest({ url: '/cms/tokens', token: colleague.apiToken, address: nat })).statusCode).toBe(200);
    const sdk = await rest({ url: '/cms-ecosystem/sdk-catalog', token: access, address: nat });
    expect(sdk.statusCode).toBe(200);
    // Another address was never affected.
    expect((await rest({ url: '/cms/tokens', token: 'svc_pat_elsewhere', address: freshAddress() })).statusCode).toBe(401);
  });

  it('apply the same rule on /graphql', async () => {
    const nat = freshAddress();
    const colleague = await newPartner('Shared Egress Clinic');
    expect((await graphql('{ apiTokens { tokenId } }', colleague.apiToken, nat)).statusCode).toBe(200);
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await graphql('{ apiTokens { tokenId } }', `svc_pat_gql-made-up-${i}`, nat)).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    const refused = await graphql('{ apiTokens { tokenId } }', 'svc_pat_gql-another', nat);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', policy: 'auth_failures', limit: 30 });
    const valid = await graphql('{ apiTokens { tokenId } }', colleague.apiToken, nat);
    expect(valid.statusCode).toBe(200);
    expect(valid.json().errors).toBeUndefined();
    // Failures counted on either door count for the address: REST refuses unknown bearers from it too.
    expect((await rest({ url: '/cms/tokens', token: 'svc_pat_rest-made-up', address: nat })).statusCode).toBe(429);
  });
});

describe('failed client logins at /oauth/token from one address', () => {
  it('do not lock out another valid client behind it; the failing client itself is refused', async () => {
    const nat = freshAddress();
    const good = await newPartner('Good Client Payer');
    const victim = await newPartner('Targeted Client Lab');
    const goodCredentials = { grant_type: 'client_credentials', client_id: good.client.client_id, client_secret: good.client.client_secret };
    expect((await tokenRequest(goodCredentials, nat)).statusCode).toBe(200);

    // 35 failed logins with made-up clients, each a different client_id: the address runs out.
    const statuses: number[] = [];
    for (let i = 0; i < 35; i++) statuses.push((await tokenRequest({ grant_type: 'client_credentials', client_id: `cli_madeup${String(i).padStart(20, '0')}`, client_secret: 'nope' }, nat)).statusCode);
    expect(statuses.slice(0, 30).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(30).every((s) => s === 429)).toBe(true);

    // The valid client behind the same address still gets its tokens (more than the 30/min the
    // address would have had as a whole: token requests are counted per client).
    for (let i = 0; i < 3; i++) {
      const res = await tokenRequest(goodCredentials, nat);
      expect(res.statusCode).toBe(200);
      expect(res.json().access_token).toEqual(expect.any(String));
    }

    // One client_id presented with wrong secrets from elsewhere: after 10 failures it is refused…
    const attacker = freshAddress();
    const wrong = { grant_type: 'client_credentials', client_id: victim.client.client_id, client_secret: 'svc_cs_wrong' };
    const wrongStatuses: number[] = [];
    for (let i = 0; i < 11; i++) wrongStatuses.push((await tokenRequest(wrong, attacker)).statusCode);
    expect(wrongStatuses.slice(0, 10).every((s) => s === 401)).toBe(true);
    const refused = await tokenRequest(wrong, attacker);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: expect.any(String) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('keep a client that obtained a token recently usable even when its id is being guessed at', async () => {
    const owner = await newPartner('Guessed Client Systems');
    const credentials = { grant_type: 'client_credentials', client_id: owner.client.client_id, client_secret: owner.client.client_secret };
    const home = freshAddress();
    expect((await tokenRequest(credentials, home)).statusCode).toBe(200);
    const attacker = freshAddress();
    for (let i = 0; i < 12; i++) await tokenRequest({ ...credentials, client_secret: `svc_cs_guess-${i}` }, attacker);
    expect((await tokenRequest({ ...credentials, client_secret: 'svc_cs_guess-x' }, attacker)).statusCode).toBe(429);
    expect((await tokenRequest(credentials, home)).statusCode).toBe(200);
  });
});

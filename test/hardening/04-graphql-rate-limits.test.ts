import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * Issue 7, point 4: /graphql used to bypass every REST limit. Each attack is replayed over /graphql
 * and must be refused with 429 exactly where its REST twin would be; a REST call and its GraphQL twin
 * spend one counter; a REST call is counted once although the facade runs it through the gateway.
 */

let t: TestSystem;
let addressCounter = 0;
const freshAddress = () => `203.0.113.${++addressCounter}`;

interface Answer {
  status: number;
  headers: Record<string, string | number | string[] | undefined>;
  body: { data?: Record<string, unknown> | null; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** POST /graphql from a given client address. */
async function gql(query: string, variables: Record<string, unknown> = {}, options: { token?: string | null; address?: string } = {}): Promise<Answer> {
  const token = options.token === undefined ? t.operatorToken : options.token;
  const res = await t.system.app.inject({
    method: 'POST',
    url: '/graphql',
    remoteAddress: options.address ?? '127.0.0.1',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    payload: JSON.stringify({ query, variables }),
  });
  return { status: res.statusCode, headers: res.headers, body: res.json() };
}

/** An HTTP request through the facade from a given client address. */
function rest(options: { method?: 'GET' | 'POST'; url: string; token?: string | null; body?: unknown; address?: string }) {
  const token = options.token === undefined ? t.operatorToken : options.token;
  return t.system.app.inject({
    method: options.method ?? 'GET',
    url: options.url,
    remoteAddress: options.address ?? '127.0.0.1',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
}

/** A partner registered by the operator, with a portal account, signed in from an address of its own. */
async function newPartner(legalName: string): Promise<{ gpid: string; session: string }> {
  const registered = await gql('mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', { input: { legalName, organizationType: 'HEALTH_SYSTEM' } });
  const gpid = (registered.body.data!['registerPartner'] as { gpid: string }).gpid;
  const email = `portal.${gpid.slice(4)}@partner-${randomBytes(3).toString('hex')}.example`;
  const password = `Kq7!${randomBytes(9).toString('base64url')}zR4`;
  const account = await gql('mutation($p: ID!, $e: String!, $pw: String!) { createPortalAccount(partnerGpid: $p, email: $e, password: $pw) { email } }', { p: gpid, e: email, pw: password });
  expect(account.body.errors).toBeUndefined();
  const login = await rest({ method: 'POST', url: '/cms/partner-login', token: null, body: { email, password }, address: freshAddress() });
  expect(login.statusCode).toBe(200);
  return { gpid, session: login.json().access_token };
}

function expectRefused(answer: Answer, limit: number, policy: string | RegExp = 'route'): void {
  expect(answer.status).toBe(429);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
  expect(answer.headers['x-ratelimit-remaining']).toBe('0');
  expect(answer.headers['ratelimit-policy']).toEqual(expect.any(String));
  expect(answer.headers['ratelimit']).toEqual(expect.any(String));
  expect(answer.body.data ?? null).toBeNull();
  expect(answer.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', limit, policy, retry_after: expect.any(Number) });
}

const LOGIN = 'mutation($e: String!, $p: String!) { portalLogin(email: $e, password: $p) { sessionId } }';
const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token { tokenId } } }';

beforeAll(async () => {
  t = await bootSystem();
});
afterAll(() => t?.close());

describe('portalLogin over /graphql', () => {
  it('gets the 10/min limit of POST /cms/partner-login per address, and spends the same counter', async () => {
    const address = freshAddress();
    const codes: unknown[] = [];
    for (let i = 0; i < 6; i++) codes.push((await gql(LOGIN, { e: `spray-${i}@nowhere.example`, p: 'Spray-Password-1' }, { token: null, address })).body.errors?.[0]?.extensions?.['code']);
    // Four more through the REST twin: the same counter.
    for (let i = 6; i < 10; i++) {
      const res = await rest({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: `spray-${i}@nowhere.example`, password: 'Spray-Password-1' }, address });
      expect(res.statusCode).toBe(401);
    }
    expect(codes).toEqual(Array(6).fill('UNAUTHENTICATED'));
    expectRefused(await gql(LOGIN, { e: 'spray-x@nowhere.example', p: 'Spray-Password-1' }, { token: null, address }), 10);
    expect((await rest({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: 'spray-y@nowhere.example', password: 'Spray-Password-1' }, address })).statusCode).toBe(429);
    // Another address is not affected.
    expect((await gql(LOGIN, { e: 'spray-z@nowhere.example', p: 'Spray-Password-1' }, { token: null, address: freshAddress() })).body.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
  });

  it('counts every alias: 30 sign-ins in one request are refused before any is tried', async () => {
    const address = freshAddress();
    const aliases = Array.from({ length: 30 }, (_, i) => `a${i}: portalLogin(email: "spray-${i}@nowhere.example", password: "Spray-Password-1") { sessionId }`).join(' ');
    expectRefused(await gql(`mutation { ${aliases} }`, {}, { token: null, address }), 10);
  });
});

describe('the address lockout of sign-in over /graphql (route limits off, so only the throttle speaks)', () => {
  let u: TestSystem;
  beforeAll(async () => {
    u = await bootSystem({ SVC_RATE_LIMITS: 'off' });
  });
  afterAll(() => u?.close());

  it('locks the address /graphql observed after 20 failures, whatever address the caller names', async () => {
    const address = '203.0.113.200';
    const login = (i: number, from: string, named?: string) =>
      u.system.app.inject({
        method: 'POST',
        url: '/graphql',
        remoteAddress: from,
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ query: 'mutation($e: String!, $a: String) { portalLogin(email: $e, password: "Spray-Password-1", clientAddress: $a) { sessionId } }', variables: { e: `lock-${i}@nowhere.example`, a: named ?? null } }),
      });
    for (let i = 0; i < 20; i++) expect((await login(i, address, '198.51.100.250')).json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const locked = await login(20, address);
    expect(locked.json().errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', policy: 'login_failures' });
    // The address named in the arguments was not charged; the REST twin sees the same lock.
    expect((await login(21, '198.51.100.250')).json().errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const viaRest = await u.system.app.inject({ method: 'POST', url: '/cms/partner-login', remoteAddress: address, headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: 'lock-x@nowhere.example', password: 'Spray-Password-1' }) });
    expect(viaRest.statusCode).toBe(429);
  });
});

describe('createApiToken over /graphql', () => {
  it('gets the 5/min of POST /cms/tokens, shared with the REST twin', async () => {
    const partner = await newPartner('Graphql Token Sprayer');
    for (let i = 0; i < 3; i++) expect((await rest({ method: 'POST', url: '/cms/tokens', token: partner.session, body: { name: `rest-${i}`, scopes: ['cms.sdk.read'] } })).statusCode).toBe(201);
    for (let i = 0; i < 2; i++) expect((await gql(CREATE_TOKEN, { input: { name: `gql-${i}`, scopes: ['cms.sdk.read'] } }, { token: partner.session })).body.errors).toBeUndefined();
    expectRefused(await gql(CREATE_TOKEN, { input: { name: 'one-too-many', scopes: ['cms.sdk.read'] } }, { token: partner.session }), 5);
    expect((await rest({ method: 'POST', url: '/cms/tokens', token: partner.session, body: { name: 'rest-late', scopes: ['cms.sdk.read'] } })).statusCode).toBe(429);
  });

  it('resolves fragments and inline fragments: 8 creations in one request create none', async () => {
    const partner = await newPartner('Fragment Games Clinic');
    const three = (prefix: string) => [0, 1, 2].map((i) => `${prefix}${i}: createApiToken(input: { name: "${prefix}${i}", scopes: ["cms.sdk.read"] }) { token { tokenId } }`).join(' ');
    const document = `mutation { ...Spray ... on Mutation { ${three('inline')} } x: createApiToken(input: { name: "x", scopes: ["cms.sdk.read"] }) { token { tokenId } } y: createApiToken(input: { name: "y", scopes: ["cms.sdk.read"] }) { token { tokenId } } }
      fragment Spray on Mutation { ${three('frag')} }`;
    expectRefused(await gql(document, {}, { token: partner.session }), 5);
    const listed = await rest({ url: '/cms/tokens', token: partner.session });
    expect(listed.json().tokens).toEqual([]);
  });
});

describe('identity(gpid) over /graphql', () => {
  it('refuses 1,000 guesses: in one request by the alias bound, spread over requests by the 120/min of GET /api/identity/{gpid}', async () => {
    const partner = await newPartner('Identity Guessing Labs');
    const guesses = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `g${from + i}: identity(gpid: "SVC-${(0x10000000 + from + i).toString(16).toUpperCase()}") { gpid }`).join(' ');
    // One request with 1,000 aliases never runs: the operation limits refuse it before any counter.
    const oneRequest = await gql(`{ ${guesses(0, 1000)} }`, {}, { token: partner.session });
    expect(oneRequest.status).toBe(400);
    expect(oneRequest.body.errors?.[0]?.extensions?.['code']).toMatch(/^TOO_MANY_(TOKENS|ALIASES)$/);
    // Within the alias bound, every alias spends a point: the budget runs out after a few requests.
    let refused: Answer | undefined;
    for (let request = 0; request < 6 && !refused; request++) {
      const answer = await gql(`{ ${guesses(request * 30, 30)} }`, {}, { token: partner.session });
      if (answer.status === 429) refused = answer;
      else expect(answer.status).toBe(200);
    }
    expect(refused).toBeDefined();
    expectRefused(refused!, expect.any(Number) as unknown as number, /^(route|burst)$/);
    // The guesses were counted: the REST twin is refused for this partner too.
    expect((await rest({ url: '/api/identity/SVC-0000ABCD', token: partner.session })).statusCode).toBe(429);
  });
});

describe('issueAccessToken over /graphql', () => {
  const ISSUE = 'mutation($input: AccessTokenRequestInput!) { issueAccessToken(input: $input) { accessToken } }';

  it('is no longer unlimited: a client that keeps failing is refused like at POST /oauth/token', async () => {
    const address = freshAddress();
    const input = { grantType: 'client_credentials', clientId: 'cli_00000000000000000000000000', clientSecret: 'svc_cs_guess' };
    const codes: unknown[] = [];
    for (let i = 0; i < 10; i++) codes.push((await gql(ISSUE, { input }, { token: null, address })).body.errors?.[0]?.extensions?.['code']);
    expect(codes).toEqual(Array(10).fill('UNAUTHENTICATED'));
    const refused = await gql(ISSUE, { input }, { token: null, address });
    expect(refused.status).toBe(429);
    expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'RATE_LIMITED', policy: 'client_auth_failures' });
    // The REST token endpoint refuses the same client.
    const viaRest = await t.system.app.inject({
      method: 'POST',
      url: '/oauth/token',
      remoteAddress: address,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ grant_type: 'client_credentials', client_id: input.clientId, client_secret: 'svc_cs_guess' }).toString(),
    });
    expect(viaRest.statusCode).toBe(429);
  });

  it('takes one token request per operation', async () => {
    const many = [0, 1].map((i) => `t${i}: issueAccessToken(input: { grantType: "client_credentials", clientId: "cli_${i}", clientSecret: "x" }) { accessToken }`).join(' ');
    const answer = await gql(`mutation { ${many} }`, {}, { token: null, address: freshAddress() });
    expect(answer.status).toBe(400);
    expect(answer.body.errors?.[0]?.extensions?.['code']).toBe('BAD_REQUEST');
  });
});

describe('a REST call', () => {
  it('is counted once, although the facade runs it through the gateway', async () => {
    const partner = await newPartner('Counted Once Health');
    const first = await rest({ url: '/cms/tokens', token: partner.session });
    const second = await rest({ url: '/cms/tokens', token: partner.session });
    expect(first.headers['x-ratelimit-limit']).toBe('30');
    expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(1);
    // …and a GraphQL twin call spends one point of the same counter, reported in the same headers.
    const viaGraphql = await gql('{ apiTokens { tokenId } }', {}, { token: partner.session });
    expect(viaGraphql.status).toBe(200);
    expect(Number(second.headers['x-ratelimit-remaining']) - Number(viaGraphql.headers['x-ratelimit-remaining'])).toBe(1);
    expect(viaGraphql.headers['ratelimit-policy']).toBe('"burst";q=30;w=1, "partner";q=500;w=60, "route";q=30;w=60');
  });

  it('operations without a REST twin are not counted by this limiter', async () => {
    const answer = await gql('{ viewer { __typename } }');
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-limit']).toBeUndefined();
  });
});

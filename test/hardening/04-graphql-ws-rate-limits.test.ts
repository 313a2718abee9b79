import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * Issue 7, point 4, over graphql-ws: operations arriving on a WebSocket spend the same counters as
 * their REST twins and as /graphql over HTTP, per partner (per the socket's peer address when
 * anonymous), and a refusal is a RATE_LIMITED error with the limit and Retry-After seconds.
 */

interface Result {
  data?: Record<string, unknown> | null;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

let t: TestSystem;
let url: string;
const clients: Client[] = [];

beforeAll(async () => {
  t = await bootSystem();
  const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
  url = `${address.replace('http', 'ws')}/graphql`;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.dispose()));
  await t?.close();
});

/** A graphql-ws connection with `bearer` (anonymous when null), acknowledged. */
async function connectWith(bearer: string | null): Promise<Client> {
  const client = createClient({ url, webSocketImpl: WebSocket, ...(bearer ? { connectionParams: { authorization: `Bearer ${bearer}` } } : {}), lazy: false, retryAttempts: 0, onNonLazyError: () => undefined });
  clients.push(client);
  await new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (event) => reject(new Error(`closed ${(event as { code: number }).code}`)));
  });
  return client;
}

/** Run one query or mutation over the socket: its result, or the errors graphql-ws answered instead. */
function run(client: Client, query: string, variables: Record<string, unknown> = {}): Promise<Result> {
  return new Promise((resolve) => {
    let result: Result = {};
    client.subscribe(
      { query, variables },
      {
        next: (value) => void (result = value as Result),
        error: (err) => resolve({ errors: Array.isArray(err) ? (err as Result['errors']) : [{ message: String(err) }] }),
        complete: () => resolve(result),
      },
    );
  });
}

const codeOf = (result: Result) => result.errors?.[0]?.extensions?.['code'];

/** A REST call through the facade, from a given client address. */
function rest(options: { method?: 'GET' | 'POST'; url: string; token?: string | null; body?: unknown; address?: string }) {
  return t.system.app.inject({
    method: options.method ?? 'GET',
    url: options.url,
    remoteAddress: options.address ?? '127.0.0.1',
    headers: { ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...(options.body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(options.body === undefined ? {} : { payload: JSON.stringify(options.body) }),
  });
}

let partnerCounter = 0;
/** A partner registered by the operator, with a portal account, signed in from an address of its own. */
async function newPartner(legalName: string): Promise<{ gpid: string; session: string }> {
  const registered = await t.graphql<{ registerPartner: { gpid: string } }>('mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', { input: { legalName, organizationType: 'HEALTH_SYSTEM' } });
  const gpid = registered.data!.registerPartner.gpid;
  const email = `portal.${gpid.slice(4)}@partner-${randomBytes(3).toString('hex')}.example`;
  const password = `Kq7!${randomBytes(9).toString('base64url')}zR4`;
  const account = await t.graphql('mutation($p: ID!, $e: String!, $pw: String!) { createPortalAccount(partnerGpid: $p, email: $e, password: $pw) { email } }', { p: gpid, e: email, pw: password });
  expect(account.errors).toBeUndefined();
  const login = await rest({ method: 'POST', url: '/cms/partner-login', body: { email, password }, address: `198.51.100.${++partnerCounter}` });
  expect(login.statusCode).toBe(200);
  return { gpid, session: login.json().access_token };
}

function expectRateLimited(result: Result, limit: number | RegExp, policy: string | RegExp = 'route'): void {
  expect(result.data ?? null).toBeNull();
  expect(codeOf(result)).toBe('RATE_LIMITED');
  const extensions = result.errors![0]!.extensions!;
  if (typeof limit === 'number') expect(extensions['limit']).toBe(limit);
  expect(extensions['policy']).toMatch(policy);
  expect(extensions['retry_after']).toBeGreaterThan(0);
}

const CREATE_TOKEN = 'mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { token { tokenId } } }';

describe('graphql-ws operations spend the REST twins\' counters', () => {
  it('createApiToken: the 5/min of POST /cms/tokens per partner, shared with REST; another partner is not affected', async () => {
    const partner = await newPartner('Socket Token Sprayer');
    const socket = await connectWith(partner.session);
    for (let i = 0; i < 3; i++) {
      const created = await run(socket, CREATE_TOKEN, { input: { name: `ws-${i}`, scopes: ['cms.sdk.read'] } });
      expect(created.errors).toBeUndefined();
    }
    for (let i = 0; i < 2; i++) expect((await rest({ method: 'POST', url: '/cms/tokens', token: partner.session, body: { name: `rest-${i}`, scopes: ['cms.sdk.read'] } })).statusCode).toBe(201);
    // The sixth creation in the minute, over the socket: refused, nothing created.
    expectRateLimited(await run(socket, CREATE_TOKEN, { input: { name: 'one-too-many', scopes: ['cms.sdk.read'] } }), 5);
    expect((await rest({ method: 'POST', url: '/cms/tokens', token: partner.session, body: { name: 'rest-late', scopes: ['cms.sdk.read'] } })).statusCode).toBe(429);
    const listed = await rest({ url: '/cms/tokens', token: partner.session });
    expect(listed.json().tokens.map((token: { name: string }) => token.name).sort()).toEqual(['rest-0', 'rest-1', 'ws-0', 'ws-1', 'ws-2']);
    // A second socket of the same partner shares the counter; another partner's socket does not.
    expectRateLimited(await run(await connectWith(partner.session), CREATE_TOKEN, { input: { name: 'other-socket', scopes: ['cms.sdk.read'] } }), 5);
    const other = await newPartner('Socket Token Bystander');
    expect((await run(await connectWith(other.session), CREATE_TOKEN, { input: { name: 'bystander', scopes: ['cms.sdk.read'] } })).errors).toBeUndefined();
  });

  it('identity(gpid): aliased guesses spend a point each and run out the 120/min of GET /api/identity/{gpid}', async () => {
    const partner = await newPartner('Socket Identity Guessers');
    const socket = await connectWith(partner.session);
    const guesses = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => `g${from + i}: identity(gpid: "SVC-${(0x20000000 + from + i).toString(16).toUpperCase()}") { gpid }`).join(' ');
    let refused: Result | undefined;
    let sent = 0;
    for (let request = 0; request < 6 && !refused; request++) {
      const answer = await run(socket, `{ ${guesses(request * 30, 30)} }`);
      if (codeOf(answer) === 'RATE_LIMITED') refused = answer;
      else sent += 30;
    }
    expect(refused).toBeDefined();
    expect(sent).toBeLessThanOrEqual(120);
    expectRateLimited(refused!, /./, /^(route|burst)$/);
    // The socket's guesses were counted for the partner: its REST twin is refused too.
    expect((await rest({ url: '/api/identity/SVC-0000ABCD', token: partner.session })).statusCode).toBe(429);
  });

  it('anonymous portalLogin: the 10/min of POST /cms/partner-login per peer address of the socket', async () => {
    const socket = await connectWith(null);
    const LOGIN = 'mutation($e: String!, $p: String!) { portalLogin(email: $e, password: $p) { sessionId } }';
    for (let i = 0; i < 7; i++) expect(codeOf(await run(socket, LOGIN, { e: `ws-spray-${i}@nowhere.example`, p: 'Spray-Password-1' }))).toBe('UNAUTHENTICATED');
    // Three more through the REST twin from the same address (127.0.0.1, the socket's peer).
    for (let i = 7; i < 10; i++) expect((await rest({ method: 'POST', url: '/cms/partner-login', body: { email: `ws-spray-${i}@nowhere.example`, password: 'Spray-Password-1' } })).statusCode).toBe(401);
    expectRateLimited(await run(socket, LOGIN, { e: 'ws-spray-x@nowhere.example', p: 'Spray-Password-1' }), 10);
    expect((await rest({ method: 'POST', url: '/cms/partner-login', body: { email: 'ws-spray-y@nowhere.example', password: 'Spray-Password-1' } })).statusCode).toBe(429);
    // Another address is not affected.
    expect((await rest({ method: 'POST', url: '/cms/partner-login', body: { email: 'ws-spray-z@nowhere.example', password: 'Spray-Password-1' }, address: '203.0.113.77' })).statusCode).toBe(401);
  });
});

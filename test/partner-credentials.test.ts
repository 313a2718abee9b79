import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLocalJWKSet, decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, SignJWT, type JSONWebKeySet } from 'jose';
import { bootSystem, type TestSystem } from './support/system.js';
import { freshStorage } from './support/databases.js';
import { eventually } from './support/patience.js';

/**
 * Partner credentials end to end, through HTTP and GraphQL only: portal accounts and sign-in,
 * scoped API tokens, their revocation, and the OAuth 2.0 client_credentials server.
 */

let t: TestSystem;
let addressCounter = 0;

/** A fresh client address per request where per-address limits would otherwise get in the way. */
function freshAddress(): string {
  addressCounter += 1;
  return `198.51.100.${addressCounter % 250}, 10.9.${Math.floor(addressCounter / 250)}.1`;
}

function strongPassword(): string {
  return `Kq7!${randomBytes(9).toString('base64url')}zR4`;
}

interface PartnerFixture {
  gpid: string;
  email: string;
  password: string;
  session: string;
}

const MUTATION_REGISTER = 'mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }';
const MUTATION_ACCOUNT = 'mutation($p: ID!, $e: String!, $pw: String!) { createPortalAccount(partnerGpid: $p, email: $e, password: $pw) { email createdAt } }';

async function login(email: string, password: string, address = freshAddress()) {
  return t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email, password }, headers: { 'x-forwarded-for': address } });
}

/** A partner registered by the operator, with a portal account, signed in. */
async function newPartner(legalName: string): Promise<PartnerFixture> {
  const registered = await t.graphql<{ registerPartner: { gpid: string } }>(MUTATION_REGISTER, { input: { legalName, organizationType: 'HEALTH_SYSTEM' } });
  expect(registered.errors).toBeUndefined();
  const gpid = registered.data!.registerPartner.gpid;
  const email = `portal.${gpid.slice(4)}@partner-${randomBytes(3).toString('hex')}.example`;
  const password = strongPassword();
  const account = await t.graphql(MUTATION_ACCOUNT, { p: gpid, e: email, pw: password });
  expect(account.errors).toBeUndefined();
  const res = await login(email, password);
  expect(res.statusCode).toBe(200);
  return { gpid, email, password, session: res.json().access_token };
}

async function createToken(bearer: string, body: unknown) {
  return t.request({ method: 'POST', url: '/cms/tokens', token: bearer, body });
}

function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

async function tokenRequest(fields: Record<string, string>, headers: Record<string, string> = {}) {
  return t.request({
    method: 'POST',
    url: '/oauth/token',
    token: null,
    body: form(fields),
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': freshAddress(), ...headers },
  });
}

async function jwks(): Promise<JSONWebKeySet> {
  const res = await t.request({ url: '/.well-known/jwks.json', token: null });
  expect(res.statusCode).toBe(200);
  return res.json();
}

function withoutRequestId(body: Record<string, unknown>): Record<string, unknown> {
  const { request_id: _ignored, ...rest } = body;
  return rest;
}

beforeAll(async () => {
  // Behind a trusted proxy, so each request can name its client address (X-Forwarded-For) and the
  // per-address limits of sign-in and token requests do not run into each other across tests.
  // Route limits are off here: these tests set up more tokens and clients per minute than the
  // limits allow, over REST or GraphQL alike (one limiter counts both). The limits themselves are
  // tested below with a limited system, in rest-facade.test.ts and in test/hardening.
  t = await bootSystem({ SVC_TRUST_PROXY: 'true', SVC_RATE_LIMITS: 'off' });
});
afterAll(() => t?.close());

describe('portal accounts and sign-in', () => {
  let acme: PartnerFixture;
  beforeAll(async () => {
    acme = await newPartner('Acme Regional Health');
  });

  it('answers a session bearer that authenticates as the partner portal', async () => {
    const res = await login(acme.email, acme.password);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body).toEqual({
      access_token: expect.stringMatching(/^svc_ses_/),
      token_type: 'Bearer',
      expires_in: expect.any(Number),
      expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      partner_gpid: acme.gpid,
      session_id: expect.stringMatching(/^ses_[0-9a-z]{26}$/),
    });
    expect(body.expires_in).toBeGreaterThan(8 * 3600 - 60);
    const viewer = await t.graphql<{ viewer: { kind: string; partnerGpid: string; tokenId: string; scopes: string[] } }>('{ viewer { kind partnerGpid tokenId scopes } }', {}, body.access_token);
    expect(viewer.data!.viewer).toMatchObject({ kind: 'portal', partnerGpid: acme.gpid, tokenId: body.session_id });
    expect(viewer.data!.viewer.scopes).toContain('cms.tokens.manage');
    expect(viewer.data!.viewer.scopes).not.toContain('identity.resolve');
    const list = await t.request({ url: '/cms/tokens', token: body.access_token });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ tokens: [] });
  });

  it('shows the account on the partner, never its password', async () => {
    const res = await t.graphql<{ partner: { portalAccount: { email: string; lastLoginAt: string | null }; grantedScopes: string[] } }>(
      'query($g: ID!) { partner(gpid: $g) { portalAccount { email lastLoginAt } grantedScopes } }',
      { g: acme.gpid },
      acme.session,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.partner.portalAccount).toEqual({ email: acme.email, lastLoginAt: expect.stringMatching(/^\d{4}-/) });
    expect(JSON.stringify(res.data)).not.toContain('argon2');
    expect(res.data!.partner.grantedScopes).toEqual(expect.arrayContaining(['cms.fhir.r4.read', 'identity.match', 'identity.resolve', 'identity.read', 'cms.tokens.manage', 'cms.webhooks.manage']));
  });

  it('lets only operators create accounts, one per partner, with a strong password', async () => {
    const byPartner = await t.graphql(MUTATION_ACCOUNT, { p: acme.gpid, e: 'other@acme.example', pw: strongPassword() }, acme.session);
    expect(byPartner.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
    const again = await t.graphql(MUTATION_ACCOUNT, { p: acme.gpid, e: 'second@acme.example', pw: strongPassword() });
    expect(again.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');
    const registered = await t.graphql<{ registerPartner: { gpid: string } }>(MUTATION_REGISTER, { input: { legalName: 'Weak Password Labs', organizationType: 'LABORATORY' } });
    const weak = await t.graphql(MUTATION_ACCOUNT, { p: registered.data!.registerPartner.gpid, e: 'lab@weak.example', pw: 'password123' });
    expect(weak.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    expect(weak.errors?.[0]?.extensions?.['fieldErrors']).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'password' })]));
    const takenEmail = await t.graphql(MUTATION_ACCOUNT, { p: registered.data!.registerPartner.gpid, e: acme.email.toUpperCase(), pw: strongPassword() });
    expect(takenEmail.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');
    const badEmail = await t.graphql(MUTATION_ACCOUNT, { p: registered.data!.registerPartner.gpid, e: 'not-an-address', pw: strongPassword() });
    expect(badEmail.errors?.[0]?.extensions?.['fieldErrors']).toEqual([expect.objectContaining({ field: 'email' })]);
  });

  it('answers bad sign-in input with a problem document', async () => {
    const missing = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: acme.email }, headers: { 'x-forwarded-for': freshAddress() } });
    expect(missing.statusCode).toBe(422);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'password', message: 'is required' }] });
    const wrongType = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: 42, password: ['x'] }, headers: { 'x-forwarded-for': freshAddress() } });
    expect(wrongType.statusCode).toBe(422);
    expect(wrongType.json().errors).toHaveLength(2);
    const notAnObject = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: [1, 2], headers: { 'x-forwarded-for': freshAddress() } });
    expect(notAnObject.statusCode).toBe(422);
    const badEmail = await login('nobody', 'whatever-password');
    expect(badEmail.statusCode).toBe(422);
    expect(badEmail.json().errors).toEqual([expect.objectContaining({ field: 'email' })]);
  });

  it('says the same for an unknown e-mail and a wrong password, and locks after 5 failures', async () => {
    const victim = await newPartner('Lockout Testing Clinic');
    const wrong = await login(victim.email, 'Wrong-Password-123');
    const unknown = await login(`nobody-${randomBytes(4).toString('hex')}@nowhere.example`, 'Wrong-Password-123');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(withoutRequestId(wrong.json())).toEqual(withoutRequestId(unknown.json()));
    expect(wrong.json()).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'The e-mail address or password is incorrect.' });

    for (let i = 2; i <= 4; i++) expect((await login(victim.email, `Wrong-Password-12${i}`)).statusCode).toBe(401);
    const fifth = await login(victim.email, 'Wrong-Password-125');
    expect(fifth.statusCode).toBe(423);
    expect(fifth.json()).toMatchObject({ code: 'ACCOUNT_LOCKED', status: 423, title: 'Locked' });
    const retryAfter = Number(fifth.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);

    // Locked means locked: even the right password is refused, from any address.
    const right = await login(victim.email, victim.password);
    expect(right.statusCode).toBe(423);
    expect(Number(right.headers['retry-after'])).toBeGreaterThan(0);

    // An e-mail nobody has locks the same way, so a lockout reveals nothing either.
    const ghost = `ghost-${randomBytes(4).toString('hex')}@nowhere.example`;
    const ghostAnswers: number[] = [];
    for (let i = 0; i < 6; i++) ghostAnswers.push((await login(ghost, `Wrong-Password-${i}x`)).statusCode);
    expect(ghostAnswers).toEqual([401, 401, 401, 401, 423, 423]);
  });

  it('signs a session out at once (logout)', async () => {
    const res = await login(acme.email, acme.password);
    const session = res.json().access_token as string;
    expect((await t.request({ url: '/cms/tokens', token: session })).statusCode).toBe(200);
    const out = await t.graphql<{ logout: { sessionId: string; revokedAt: string } }>('mutation { logout { sessionId revokedAt } }', {}, session);
    expect(out.errors).toBeUndefined();
    expect(out.data!.logout.sessionId).toBe(res.json().session_id);
    const after = await t.request({ url: '/cms/tokens', token: session });
    expect(after.statusCode).toBe(401);
    expect(after.json().code).toBe('INVALID_TOKEN');
  });
});

describe('scoped API tokens', () => {
  let acme: PartnerFixture;
  beforeAll(async () => {
    acme = await newPartner('Token Testing Hospital');
  });

  it('creates a token with the session (secret shown once) and calls a Bearer route with it', async () => {
    const created = await createToken(acme.session, { name: ' pipeline reader ', scopes: ['cms.pipeline.read', 'cms.tokens.manage'], expires_in_days: 30 });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const body = created.json();
    expect(body).toEqual({
      token_id: expect.stringMatching(/^tok_[0-9a-z]{26}$/),
      secret: expect.stringMatching(/^svc_pat_[A-Za-z0-9_-]{43}$/),
      partner_gpid: acme.gpid,
      name: 'pipeline reader',
      scopes: ['cms.pipeline.read', 'cms.tokens.manage'],
      created_at: expect.any(String),
      expires_at: expect.any(String),
      // Not used yet; it works only in the environment that issued it.
      last_used_at: null,
      last_used_route: null,
      environment: 'sandbox',
    });
    const days = (Date.parse(body.expires_at) - Date.parse(body.created_at)) / 86_400_000;
    expect(Math.round(days)).toBe(30);

    const health = await t.request({ url: '/cms/pipeline/health', token: body.secret });
    expect(health.statusCode).toBe(200);
    const list = await t.request({ url: '/cms/tokens', token: body.secret });
    expect(list.json().tokens).toEqual([expect.objectContaining({ token_id: body.token_id, name: 'pipeline reader' })]);
    expect(list.body).not.toContain(body.secret);
  });

  it('never exceeds what the partner holds, nor what the creating token carries', async () => {
    const beyondPartner = await createToken(acme.session, { name: 'too much', scopes: ['identity.read', 'identity.merge', 'tefca.xcpd.*'] });
    expect(beyondPartner.statusCode).toBe(403);
    expect(beyondPartner.json()).toMatchObject({ code: 'FORBIDDEN', exceeding_scopes: ['identity.merge', 'tefca.xcpd.*'] });

    const narrow = await t.graphql<{ createApiToken: { secret: string } }>(
      'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }',
      { i: { name: 'manager', scopes: ['cms.tokens.manage'] } },
      acme.session,
    );
    const escalation = await createToken(narrow.data!.createApiToken.secret, { name: 'escalate', scopes: ['identity.resolve'] });
    expect(escalation.statusCode).toBe(403);
    expect(escalation.json().exceeding_scopes).toEqual(['identity.resolve']);
  });

  it('answers bad input with field errors', async () => {
    const bad = await t.graphql('mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }', { i: { name: '', scopes: ['TEFCA.*', 'svc.internal'] } }, acme.session);
    expect(bad.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    const viaRest = [
      { body: { scopes: ['cms.sdk.read'] }, field: 'name' },
      { body: { name: 'x', scopes: 'cms.sdk.read' }, field: 'scopes' },
      { body: { name: 'x', scopes: ['cms.sdk.read'], expires_at: 'tomorrow' }, field: 'expires_at' },
      { body: { name: 'x', scopes: [] }, field: 'scopes' },
    ];
    const operator = t.operatorToken;
    for (const { body, field } of viaRest) {
      const res = await createToken(operator, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors.map((e: { field: string }) => e.field)).toContain(field);
    }
  });

  it('rejects bad lifetimes', async () => {
    const q = 'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }';
    const field = async (input: Record<string, unknown>) => ((await t.graphql(q, { i: { name: 'x', scopes: ['cms.sdk.read'], ...input } }, acme.session)).errors?.[0]?.extensions?.['fieldErrors'] as { field: string }[] | undefined)?.[0]?.field;
    expect(await field({ expiresInDays: 0 })).toBe('expires_in_days');
    expect(await field({ expiresInDays: 366 })).toBe('expires_in_days');
    expect(await field({ expiresAt: new Date(Date.now() - 1000).toISOString() })).toBe('expires_at');
    expect(await field({ expiresAt: new Date(Date.now() + 400 * 86_400_000).toISOString() })).toBe('expires_at');
    expect(await field({ expiresAt: new Date(Date.now() + 86_400_000).toISOString(), expiresInDays: 3 })).toBe('expires_at');
  });

  it('holds at most 25 active tokens per partner (409)', async () => {
    const partner = await newPartner('Busy Payer Plan');
    const q = 'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { token { tokenId } } }';
    for (let i = 0; i < 25; i++) {
      // Operators may create tokens for a partner; they count towards its limit.
      const res = await t.graphql(q, { i: { partnerGpid: partner.gpid, name: `bulk ${i}`, scopes: ['cms.sdk.read'] } });
      expect(res.errors).toBeUndefined();
    }
    const extra = await createToken(partner.session, { name: 'one too many', scopes: ['cms.sdk.read'] });
    expect(extra.statusCode).toBe(409);
    expect(extra.json()).toMatchObject({ code: 'CONFLICT', max_active_tokens: 25 });
    const list = await t.request({ url: '/cms/tokens', token: partner.session });
    expect(list.json().tokens).toHaveLength(25);
  });

  it('revokes a token at once, emits partner.token.revoked, and answers a repeat the same', async () => {
    const created = (await createToken(acme.session, { name: 'short lived', scopes: ['cms.pipeline.read'] })).json();
    expect((await t.request({ url: '/cms/pipeline/health', token: created.secret })).statusCode).toBe(200);

    const revoked = await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${created.token_id}`, token: acme.session });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toEqual({ token_id: created.token_id, partner_gpid: acme.gpid, revoked_at: expect.any(String), reason: 'partner_request' });

    const refused = await t.request({ url: '/cms/pipeline/health', token: created.secret });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('INVALID_TOKEN');

    const again = await t.request({ method: 'DELETE', url: '/cms/tokens', token: acme.session, body: { token_id: created.token_id, reason: 'compromised' } });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual(revoked.json());

    const list = await t.request({ url: '/cms/tokens', token: acme.session });
    expect(list.json().tokens.map((tk: { token_id: string }) => tk.token_id)).not.toContain(created.token_id);

    const delivered = await eventually(async () => {
      const events = await t.graphql<{ events: { edges: { node: { data: Record<string, unknown> } }[] } }>('{ events(first: 50, types: ["partner.token.revoked"]) { edges { node { data } } } }');
      const found = events.data?.events.edges.map((e) => e.node).find((n) => n.data['token_id'] === created.token_id);
      expect(found).toBeDefined();
      return found;
    });
    expect(delivered?.data).toEqual({ event: 'partner.token.revoked', token_id: created.token_id, partner_gpid: acme.gpid, revoked_at: revoked.json().revoked_at, reason: 'partner_request' });
  });

  it('answers bad revocations clearly', async () => {
    const created = (await createToken(acme.session, { name: 'to revoke', scopes: ['cms.sdk.read'] })).json();
    const cases: [string, unknown, number, string][] = [
      ['/cms/tokens', undefined, 422, 'VALIDATION_ERROR'],
      ['/cms/tokens?token_id=nope', undefined, 422, 'VALIDATION_ERROR'],
      [`/cms/tokens?token_id=${created.token_id}`, { token_id: 'tok_01jzzzzzzzzzzzzzzzzzzzzzzz' }, 422, 'VALIDATION_ERROR'],
      [`/cms/tokens?token_id=${created.token_id}&reason=because`, undefined, 422, 'VALIDATION_ERROR'],
      [`/cms/tokens?token_id=${created.token_id}&reason=admin_action`, undefined, 403, 'FORBIDDEN'],
      ['/cms/tokens?token_id=tok_01jzzzzzzzzzzzzzzzzzzzzzzz', undefined, 404, 'NOT_FOUND'],
    ];
    for (const [url, body, status, code] of cases) {
      const res = await t.request({ method: 'DELETE', url, token: acme.session, ...(body === undefined ? {} : { body }) });
      expect(res.statusCode, url).toBe(status);
      expect(res.json().code, url).toBe(code);
    }
    // Another partner's token is simply not there.
    const other = await newPartner('Other Partner Collective');
    const foreign = await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${created.token_id}`, token: other.session });
    expect(foreign.statusCode).toBe(404);
    // Operators revoke anyone's, with admin_action by default.
    const byOperator = await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${created.token_id}`, token: t.operatorToken });
    expect(byOperator.json()).toMatchObject({ token_id: created.token_id, reason: 'admin_action' });
  });
});

describe('token creation with route limits on', () => {
  it('answers 429 with its headers after 5 creations in a minute', async () => {
    const limited = await bootSystem();
    const partner = { session: limited.operatorToken };
    const createToken = (bearer: string, body: unknown) => limited.request({ method: 'POST', url: '/cms/tokens', token: bearer, body });
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 6; i++) {
      last = await createToken(partner.session, { name: `t${i}`, scopes: ['cms.sdk.read'] });
      statuses.push(last.statusCode);
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201, 429]);
    expect(last!.json()).toMatchObject({ code: 'RATE_LIMITED', policy: 'route', limit: 5, window_seconds: 60 });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['x-ratelimit-limit']).toBe('5');
    expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(last!.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    await limited.close();
  });
});

describe('OAuth 2.0 client credentials', () => {
  let acme: PartnerFixture;
  let tokenEndpoint: string;

  async function register(bearer: string, metadata: Record<string, unknown>) {
    return t.request({ method: 'POST', url: '/cms/oauth/register', token: bearer, body: metadata });
  }

  beforeAll(async () => {
    acme = await newPartner('OAuth Testing Systems');
    tokenEndpoint = `${t.config.publicUrl}/oauth/token`;
  });

  it('publishes its metadata (RFC 8414) and keys', async () => {
    const res = await t.request({ url: '/.well-known/oauth-authorization-server', token: null });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      issuer: t.config.publicUrl,
      token_endpoint: tokenEndpoint,
      jwks_uri: `${t.config.publicUrl}/.well-known/jwks.json`,
      registration_endpoint: `${t.config.publicUrl}/cms/oauth/register`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'private_key_jwt'],
    });
    expect(res.json().scopes_supported).toEqual(expect.arrayContaining(['cms.fhir.r4.read', 'identity.match']));
    expect((await jwks()).keys).toBeInstanceOf(Array);
  });

  it('registers a client_secret_post client and issues a verifiable RFC 9068 JWT with a plain form post', async () => {
    const registered = await register(acme.session, { client_name: 'Nightly sync', scope: 'cms.fhir.r4.read identity.read', token_endpoint_auth_method: 'client_secret_post', grant_types: ['client_credentials'] });
    expect(registered.statusCode).toBe(201);
    expect(registered.headers['cache-control']).toBe('no-store');
    const client = registered.json();
    expect(client).toEqual({
      client_id: expect.stringMatching(/^cli_[0-9a-z]{26}$/),
      client_secret: expect.stringMatching(/^svc_cs_/),
      client_secret_expires_at: 0,
      client_id_issued_at: expect.any(Number),
      client_name: 'Nightly sync',
      scope: 'cms.fhir.r4.read identity.read',
      grant_types: ['client_credentials'],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post',
      partner_gpid: acme.gpid,
    });
    expect(Math.abs(client.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60);

    const res = await tokenRequest({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['pragma']).toBe('no-cache');
    const token = res.json();
    expect(token).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, scope: 'cms.fhir.r4.read identity.read' });

    const { payload, protectedHeader } = await jwtVerify(token.access_token, createLocalJWKSet(await jwks()), { issuer: t.config.publicUrl, audience: t.config.publicUrl, typ: 'at+jwt' });
    expect(protectedHeader).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.stringMatching(/^sig_/) });
    expect(payload).toMatchObject({ sub: client.client_id, client_id: client.client_id, partner_gpid: acme.gpid, scope: 'cms.fhir.r4.read identity.read', jti: expect.any(String) });
    expect(payload.exp! - payload.iat!).toBe(900);

    // The token is a Service credential: identity routes accept it (404 = authenticated, record absent).
    const identity = await t.request({ url: '/api/identity/SVC-0000ABCD', token: token.access_token });
    expect(identity.statusCode).toBe(404);

    // Scope down-selection, and refusals in RFC 6749 §5.2 form.
    const narrowed = await tokenRequest({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'identity.read' });
    expect(narrowed.json().scope).toBe('identity.read');
    const invalidScope = await tokenRequest({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret, scope: 'identity.read identity.merge' });
    expect(invalidScope.statusCode).toBe(400);
    expect(invalidScope.headers['content-type']).toMatch(/^application\/json/);
    expect(invalidScope.json()).toEqual({ error: 'invalid_scope', error_description: expect.stringContaining('identity.merge') });
    const wrongSecret = await tokenRequest({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'svc_cs_wrong' });
    expect(wrongSecret.statusCode).toBe(401);
    expect(wrongSecret.json().error).toBe('invalid_client');
    expect(wrongSecret.headers['www-authenticate']).toMatch(/^Basic/);
    const viaBasic = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` });
    expect(viaBasic.statusCode).toBe(401);
    expect(viaBasic.json().error).toBe('invalid_client');
  });

  it('answers malformed token requests in the OAuth error format', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ grant_type: 'password', username: 'a', password: 'b' }, 400, 'unsupported_grant_type'],
      [{ grant_type: 'authorization_code', code: 'x' }, 400, 'unsupported_grant_type'],
      [{}, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials' }, 401, 'invalid_client'],
      [{ grant_type: 'client_credentials', client_id: 'cli_01jzzzzzzzzzzzzzzzzzzzzzzz', client_secret: 's', client_assertion_type: 'x', client_assertion: 'y' }, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials', client_assertion_type: 'urn:other', client_assertion: 'y' }, 400, 'invalid_request'],
      [{ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: 'not.a.jwt' }, 401, 'invalid_client'],
    ];
    for (const [fields, status, error] of cases) {
      const res = await tokenRequest(fields);
      expect(res.statusCode, JSON.stringify(fields)).toBe(status);
      expect(res.json(), JSON.stringify(fields)).toEqual({ error, error_description: expect.any(String) });
      expect(res.headers['cache-control']).toBe('no-store');
    }
    const json = await t.request({ method: 'POST', url: '/oauth/token', token: null, body: { grant_type: 'client_credentials' }, headers: { 'x-forwarded-for': freshAddress() } });
    expect(json.statusCode).toBe(400);
    expect(json.json().error).toBe('invalid_request');
    const badBasic = await tokenRequest({ grant_type: 'client_credentials' }, { authorization: 'Basic !!!' });
    expect(badBasic.statusCode).toBe(401);
    expect(badBasic.json().error).toBe('invalid_client');
  });

  it('authenticates client_secret_basic clients (RFC 6749 §2.3.1 form-encoded credentials)', async () => {
    const registered = await t.graphql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string; tokenEndpointAuthMethod: string } } }>(
      'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId tokenEndpointAuthMethod } } }',
      { i: { clientName: 'Basic client', scope: 'identity.read' } },
      acme.session,
    );
    const { clientSecret, client } = registered.data!.registerOAuthClient;
    expect(client.tokenEndpointAuthMethod).toBe('client_secret_basic');
    const basic = Buffer.from(`${encodeURIComponent(client.clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64');
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'identity.read' }, { authorization: `Basic ${basic}` });
    expect(res.statusCode).toBe(200);
    expect(res.json().scope).toBe('identity.read');
    // Registered for Basic: the same secret in the form is refused.
    const asPost = await tokenRequest({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret });
    expect(asPost.statusCode).toBe(401);
  });

  it('authenticates private_key_jwt clients (RFC 7523) and refuses a replayed assertion', async () => {
    const { publicKey, privateKey } = await generateKeyPair('ES384');
    const publicJwk = { ...(await exportJWK(publicKey)), kid: 'client-key-1', alg: 'ES384', use: 'sig' };
    const registered = await register(acme.session, { client_name: 'Backend service', scope: 'identity.match identity.resolve', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [publicJwk] } });
    expect(registered.statusCode).toBe(201);
    const client = registered.json();
    expect(client.client_secret).toBeUndefined();
    expect(client.jwks).toEqual({ keys: [publicJwk] });

    const assertion = (claims: { aud?: string; exp?: number; jti?: string } = {}) =>
      new SignJWT({})
        .setProtectedHeader({ alg: 'ES384', kid: 'client-key-1' })
        .setIssuer(client.client_id)
        .setSubject(client.client_id)
        .setAudience(claims.aud ?? tokenEndpoint)
        .setIssuedAt()
        .setExpirationTime(claims.exp ?? Math.floor(Date.now() / 1000) + 120)
        .setJti(claims.jti ?? randomBytes(12).toString('hex'))
        .sign(privateKey);
    const fields = (jwt: string) => ({ grant_type: 'client_credentials', client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer', client_assertion: jwt });

    const signed = await assertion();
    const res = await tokenRequest(fields(signed));
    expect(res.statusCode).toBe(200);
    const { payload } = await jwtVerify(res.json().access_token, createLocalJWKSet(await jwks()), { issuer: t.config.publicUrl, audience: t.config.publicUrl });
    expect(payload).toMatchObject({ client_id: client.client_id, scope: 'identity.match identity.resolve' });

    const replay = await tokenRequest(fields(signed));
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toEqual({ error: 'invalid_client', error_description: expect.stringContaining('replay') });

    const wrongAudience = await tokenRequest(fields(await assertion({ aud: 'https://elsewhere.example/token' })));
    expect(wrongAudience.json().error).toBe('invalid_client');
    const tooLong = await tokenRequest(fields(await assertion({ exp: Math.floor(Date.now() / 1000) + 3600 })));
    expect(tooLong.json().error).toBe('invalid_client');
    const expired = await tokenRequest(fields(await assertion({ exp: Math.floor(Date.now() / 1000) - 600 })));
    expect(expired.json().error).toBe('invalid_client');
    const { privateKey: stranger } = await generateKeyPair('ES384');
    const forged = await new SignJWT({}).setProtectedHeader({ alg: 'ES384' }).setIssuer(client.client_id).setSubject(client.client_id).setAudience(tokenEndpoint).setExpirationTime('1m').setJti('forged').sign(stranger);
    expect((await tokenRequest(fields(forged))).json().error).toBe('invalid_client');

    // A Service-class route: an OAuth access token passes the credential class check (a PAT does not).
    const match = await t.request({ method: 'POST', url: '/api/identity/match', token: res.json().access_token, body: {} });
    expect([401, 403]).not.toContain(match.statusCode);
    const pat = (await createToken(acme.session, { name: 'not a service', scopes: ['identity.match'] })).json();
    const viaPat = await t.request({ method: 'POST', url: '/api/identity/match', token: pat.secret, body: {} });
    expect(viaPat.statusCode).toBe(403);
  });

  it('answers bad registrations with problem documents that name the metadata', async () => {
    const partner = await newPartner('Registration Checks Institute');
    const viaGraphQL = async (input: Record<string, unknown>) => {
      const res = await t.graphql('mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { client { clientId } } }', { i: { clientName: 'x', scope: 'identity.read', ...input } }, partner.session);
      return res.errors?.[0]?.extensions;
    };
    expect(await viaGraphQL({ tokenEndpointAuthMethod: 'private_key_jwt' })).toMatchObject({ code: 'VALIDATION_ERROR', error: 'invalid_client_metadata', fieldErrors: [{ field: 'jwks' }] });
    expect(await viaGraphQL({ tokenEndpointAuthMethod: 'none' })).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'token_endpoint_auth_method' }] });
    expect(await viaGraphQL({ grantTypes: ['authorization_code'] })).toMatchObject({ fieldErrors: [{ field: 'grant_types' }] });
    expect(await viaGraphQL({ scope: 'identity.merge' })).toMatchObject({ code: 'FORBIDDEN', exceeding_scopes: ['identity.merge'] });
    expect(await viaGraphQL({ scope: '  ' })).toMatchObject({ fieldErrors: [{ field: 'scope' }] });
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    expect(await viaGraphQL({ tokenEndpointAuthMethod: 'private_key_jwt', jwks: { keys: [await exportJWK(privateKey)] } })).toMatchObject({ fieldErrors: [{ field: 'jwks.keys.0' }] });
    expect(await viaGraphQL({ tokenEndpointAuthMethod: 'private_key_jwt', jwksUri: 'https://example.com/jwks' })).toMatchObject({ fieldErrors: [{ field: 'jwks_uri' }] });

    const missing = await register(partner.session, { scope: 'identity.read' });
    expect(missing.statusCode).toBe(422);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_ERROR', error: 'invalid_client_metadata', errors: [{ field: 'client_name' }] });
    const wrongTypes = await register(partner.session, { client_name: 'x', scope: ['identity.read'], jwks: 'keys' });
    expect(wrongTypes.statusCode).toBe(422);
    expect(wrongTypes.json().errors.map((e: { field: string }) => e.field)).toEqual(['scope', 'jwks']);
    const noSession = await register('svc_pat_not-a-token', { client_name: 'x', scope: 'identity.read' });
    expect(noSession.statusCode).toBe(401);
  });

  it('keeps tokens signed before a key rotation valid, and signs new ones with the new key', async () => {
    const client = (
      await t.graphql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string } } }>(
        'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId } } }',
        { i: { clientName: 'Rotation client', scope: 'identity.read', tokenEndpointAuthMethod: 'client_secret_post' } },
        acme.session,
      )
    ).data!.registerOAuthClient;
    const issue = async () => (await tokenRequest({ grant_type: 'client_credentials', client_id: client.client.clientId, client_secret: client.clientSecret })).json().access_token as string;

    const before = await issue();
    const oldKid = decodeProtectedHeader(before).kid;
    expect((await t.request({ url: '/api/identity/SVC-0000ABCD', token: before })).statusCode).toBe(404);

    const byPartner = await t.graphql('mutation { rotateSigningKey { kid } }', {}, acme.session);
    expect(byPartner.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
    const rotated = await t.graphql<{ rotateSigningKey: { kid: string } }>('mutation { rotateSigningKey { kid alg createdAt } }');
    expect(rotated.errors).toBeUndefined();
    const newKid = rotated.data!.rotateSigningKey.kid;
    expect(newKid).not.toBe(oldKid);

    const kids = (await jwks()).keys.map((k) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect((await t.request({ url: '/api/identity/SVC-0000ABCD', token: before })).statusCode).toBe(404);

    const after = await issue();
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    expect((await t.request({ url: '/api/identity/SVC-0000ABCD', token: after })).statusCode).toBe(404);
    await jwtVerify(before, createLocalJWKSet(await jwks()), { issuer: t.config.publicUrl });
  });

  it('revokes a client through DELETE /cms/tokens: its tokens stop working at once', async () => {
    const client = (
      await t.graphql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string } } }>(
        'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId } } }',
        { i: { clientName: 'Doomed client', scope: 'identity.read', tokenEndpointAuthMethod: 'client_secret_post' } },
        acme.session,
      )
    ).data!.registerOAuthClient;
    const credentials = { grant_type: 'client_credentials', client_id: client.client.clientId, client_secret: client.clientSecret };
    const token = (await tokenRequest(credentials)).json().access_token as string;
    expect((await t.request({ url: '/api/identity/SVC-0000ABCD', token })).statusCode).toBe(404);

    const listed = await t.graphql<{ partner: { oauthClients: { clientId: string }[] } }>('query($g: ID!) { partner(gpid: $g) { oauthClients { clientId } } }', { g: acme.gpid }, acme.session);
    expect(listed.data!.partner.oauthClients.map((c) => c.clientId)).toContain(client.client.clientId);

    const revoked = await t.request({ method: 'DELETE', url: '/cms/tokens', token: acme.session, body: { token_id: client.client.clientId } });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ token_id: client.client.clientId, partner_gpid: acme.gpid, reason: 'partner_request' });

    const refused = await t.request({ url: '/api/identity/SVC-0000ABCD', token });
    expect(refused.statusCode).toBe(401);
    expect(refused.json().code).toBe('INVALID_TOKEN');
    const noNewTokens = await tokenRequest(credentials);
    expect(noNewTokens.statusCode).toBe(401);
    expect(noNewTokens.json().error).toBe('invalid_client');
    const after = await t.graphql<{ partner: { oauthClients: { clientId: string }[] } }>('query($g: ID!) { partner(gpid: $g) { oauthClients { clientId } } }', { g: acme.gpid }, acme.session);
    expect(after.data!.partner.oauthClients.map((c) => c.clientId)).not.toContain(client.client.clientId);
  });

  it('rotates a client secret over REST and GraphQL: the old one ends at once or after its grace period', async () => {
    const registered = (await register(acme.session, { client_name: 'Rolling fleet', scope: 'identity.read' })).json();
    const basic = (secret: string) => ({ authorization: `Basic ${Buffer.from(`${registered.client_id}:${secret}`).toString('base64')}` });
    const works = async (secret: string) => (await tokenRequest({ grant_type: 'client_credentials' }, basic(secret))).statusCode;
    expect(await works(registered.client_secret)).toBe(200);
    const rotate = (body?: unknown, clientId = registered.client_id, bearer = acme.session) =>
      t.request({ method: 'POST', url: `/cms/oauth/clients/${clientId}/secret`, token: bearer, ...(body === undefined ? {} : { body }) });

    // Without a grace period the old secret stops at once.
    const first = await rotate();
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.json()).toMatchObject({ client_id: registered.client_id, client_secret: expect.stringMatching(/^svc_cs_/), client_secret_expires_at: 0, previous_secret_expires_at: null, secret_rotated_at: expect.any(String) });
    const second = first.json().client_secret as string;
    expect(second).not.toBe(registered.client_secret);
    expect(await works(registered.client_secret)).toBe(401);
    expect(await works(second)).toBe(200);

    // With one, both are accepted until it ends; the list shows until when. The clock stands still
    // meanwhile (the whole system runs in this process), so the second of grace does not have to
    // outlast the requests below on a busy machine; then it is moved past the grace.
    let third: string;
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const rotated = await t.graphql<{ rotateOAuthClientSecret: { clientSecret: string; previousSecretExpiresAt: string | null; client: { clientId: string; secretRotatedAt: string } } }>(
        'mutation($c: ID!, $g: Int) { rotateOAuthClientSecret(clientId: $c, previousSecretValidForSeconds: $g) { clientSecret previousSecretExpiresAt client { clientId secretRotatedAt } } }',
        { c: registered.client_id, g: 1 },
        acme.session,
      );
      expect(rotated.errors).toBeUndefined();
      third = rotated.data!.rotateOAuthClientSecret.clientSecret;
      expect(rotated.data!.rotateOAuthClientSecret.previousSecretExpiresAt).not.toBeNull();
      expect(await works(second)).toBe(200);
      expect(await works(third)).toBe(200);
      const listed = await t.request({ url: '/cms/oauth/clients', token: acme.session });
      expect(listed.statusCode).toBe(200);
      const entry = listed.json().clients.find((c: { client_id: string }) => c.client_id === registered.client_id);
      expect(entry).toMatchObject({ client_name: 'Rolling fleet', scope: 'identity.read', partner_gpid: acme.gpid, previous_secret_expires_at: rotated.data!.rotateOAuthClientSecret.previousSecretExpiresAt });
      expect(JSON.stringify(listed.json())).not.toContain('svc_cs_');
      vi.setSystemTime(Date.now() + 1_200);
      expect(await works(second)).toBe(401);
      expect(await works(third)).toBe(200);
    } finally {
      vi.useRealTimers();
    }

    // Bad input names the field; another partner's client reads like one nobody has.
    const negative = await rotate({ previous_secret_valid_for_seconds: -1 });
    expect(negative.statusCode).toBe(422);
    expect(negative.json().errors).toEqual([expect.objectContaining({ field: 'previous_secret_valid_for_seconds' })]);
    expect((await rotate({ previous_secret_valid_for_seconds: 'soon' })).json().errors).toEqual([expect.objectContaining({ field: 'previous_secret_valid_for_seconds' })]);
    expect((await rotate({ previous_secret_valid_for_seconds: 86_401 })).statusCode).toBe(422);
    const other = await newPartner('Rotation Bystander Clinic');
    const foreign = await rotate(undefined, registered.client_id, other.session);
    const unknown = await rotate(undefined, 'cli_00000000000000000000000000', other.session);
    expect(foreign.statusCode).toBe(404);
    const shape = (body: Record<string, unknown>) => ({ ...withoutRequestId(body), detail: String(body['detail']).replace(/cli_\w+/, 'cli_'), instance: undefined });
    expect(shape(foreign.json())).toEqual(shape(unknown.json()));
    expect(await works(third)).toBe(200);
    expect((await t.request({ url: `/cms/oauth/clients?partner_gpid=${acme.gpid}`, token: other.session })).json()).toEqual({ clients: [] });

    // A private_key_jwt client has no secret, and a revoked client gets none.
    const { publicKey } = await generateKeyPair('ES256');
    const keyed = (await register(acme.session, { client_name: 'Keyed', scope: 'identity.read', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ ...(await exportJWK(publicKey)), kid: 'k1', alg: 'ES256', use: 'sig' }] } })).json();
    expect((await rotate(undefined, keyed.client_id)).statusCode).toBe(409);
    await t.request({ method: 'DELETE', url: '/cms/tokens', token: acme.session, body: { token_id: registered.client_id } });
    const revoked = await rotate(undefined, registered.client_id);
    expect(revoked.statusCode).toBe(409);
    expect(await works(third)).toBe(401);
  });

  it('reports that nothing is counted when the operator runs without rate limits', async () => {
    const usage = await t.request({ url: `/cms/partners/${acme.gpid}/rate-limits`, token: acme.session });
    expect(usage.statusCode).toBe(200);
    expect(usage.json()).toEqual({ partner_gpid: acme.gpid, enforced: false, counters: [] });
  });

  it('refuses tampered, foreign and non-access-token JWTs', async () => {
    const { privateKey } = await generateKeyPair('ES256');
    const [kid] = (await jwks()).keys.map((k) => k.kid);
    const forged = await new SignJWT({ client_id: 'cli_01jzzzzzzzzzzzzzzzzzzzzzzz', partner_gpid: acme.gpid, scope: 'cms.admin' })
      .setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: kid! })
      .setIssuer(t.config.publicUrl)
      .setAudience(t.config.publicUrl)
      .setSubject('cli_01jzzzzzzzzzzzzzzzzzzzzzzz')
      .setIssuedAt()
      .setJti('x')
      .setExpirationTime('5m')
      .sign(privateKey);
    const res = await t.request({ url: '/cms/tokens', token: forged });
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('INVALID_TOKEN');
    const unknownKid = await new SignJWT({}).setProtectedHeader({ alg: 'ES256', typ: 'at+jwt', kid: 'sig_unknown' }).setExpirationTime('5m').sign(privateKey);
    expect((await t.request({ url: '/cms/tokens', token: unknownKid })).statusCode).toBe(401);
  });
});

describe('a restart under a new deployment secret', () => {
  it('keeps access tokens signed before it valid and signs new ones with a fresh key', async () => {
    const storage = await freshStorage();
    // No SVC_INTERNAL_SECRET: each boot draws its own, so the sealed signing key cannot be reopened.
    const first = await bootSystem({}, { storage });
    let firstOpen = true;
    let second: TestSystem | undefined;
    try {
      const gpid = (await first.graphql<{ registerPartner: { gpid: string } }>(MUTATION_REGISTER, { input: { legalName: 'Restart Labs', organizationType: 'LABORATORY' } })).data!.registerPartner.gpid;
      const registered = await first.graphql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string } } }>(
        'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId } } }',
        { i: { partnerGpid: gpid, clientName: 'Survivor', scope: 'cms.tokens.manage', tokenEndpointAuthMethod: 'client_secret_post' } },
      );
      const { clientSecret, client } = registered.data!.registerOAuthClient;
      const issue = async (sys: TestSystem) =>
        (
          await sys.request({ method: 'POST', url: '/oauth/token', token: null, body: form({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret }), headers: { 'content-type': 'application/x-www-form-urlencoded' } })
        ).json().access_token as string;
      const before = await issue(first);
      await first.close();
      firstOpen = false;

      second = await bootSystem({ SVC_BOOTSTRAP_TOKEN: first.operatorToken }, { storage });
      expect((await second.request({ url: '/cms/tokens', token: before })).statusCode).toBe(200);
      const after = await issue(second);
      expect(decodeProtectedHeader(after).kid).not.toBe(decodeProtectedHeader(before).kid);
      expect((await second.request({ url: '/cms/tokens', token: after })).statusCode).toBe(200);
    } finally {
      if (firstOpen) await first.close();
      await second?.close();
      await storage.dispose();
    }
  });
});

describe('per-address sign-in throttling (route limits off, so only the throttle speaks)', () => {
  let u: TestSystem;
  beforeAll(async () => {
    u = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_TRUST_PROXY: 'true' });
  });
  afterAll(() => u?.close());

  it('refuses an address after 20 failures in 15 minutes, whichever e-mails it tried', async () => {
    const address = '203.0.113.77';
    const attempt = (i: number) => u.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: `spray-${i}@nowhere.example`, password: 'Spray-Password-1' }, headers: { 'x-forwarded-for': address } });
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await attempt(i)).statusCode);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const refused = await attempt(20);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', policy: 'login_failures' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(14 * 60);
    // Another address is not affected.
    const elsewhere = await u.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: 'spray-x@nowhere.example', password: 'Spray-Password-1' }, headers: { 'x-forwarded-for': '203.0.113.78' } });
    expect(elsewhere.statusCode).toBe(401);
  });

  it('ignores an address named by anyone but the facade (no locking out someone else)', async () => {
    const victim = '203.0.113.90';
    for (let i = 0; i < 21; i++) {
      // Each from an address of its own: /graphql counts failures against the address it observes.
      const res = await u.request({
        method: 'POST',
        url: '/graphql',
        token: null,
        headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
        body: { query: 'mutation($e: String!, $p: String!, $a: String) { portalLogin(email: $e, password: $p, clientAddress: $a) { sessionId } }', variables: { e: `framed-${i}@nowhere.example`, p: 'Spray-Password-1', a: victim } },
      });
      expect(res.json().errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    }
    const fromVictim = await u.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: 'someone@nowhere.example', password: 'Spray-Password-1' }, headers: { 'x-forwarded-for': victim } });
    expect(fromVictim.statusCode).toBe(401);
  });
});

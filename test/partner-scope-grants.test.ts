import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@svc/rest-facade';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventsOf, eventually } from './support/identity.js';

/**
 * Operators change which scopes a partner holds, through PUT /cms/partners/{gpid}/scopes and the
 * GraphQL mutation updatePartnerScopeGrant: catalog validation, operators only, new credentials may
 * carry what was granted, credentials beyond a narrowed grant are revoked at once, and
 * partner.scopes.updated is recorded.
 */

let t: TestSystem;
let addressCounter = 0;

const DEFAULT_GRANT = [
  'cms.fhir.r4.read',
  'cms.fhir.r5.read',
  'cms.fhir.bundle.push',
  'cms.fhir.rest.write',
  'cms.sdk.read',
  'cms.partner.read',
  'cms.partner.write',
  'cms.pipeline.read',
  'cms.tokens.manage',
  'cms.webhooks.manage',
  'identity.match',
  'identity.resolve',
  'identity.read',
];
const STEWARD = ['identity.merge', 'identity.split', 'identity.approve'];

const GRANT_MUTATION = `mutation($p: ID!, $s: [String!]!) {
  updatePartnerScopeGrant(partnerGpid: $p, scopes: $s) {
    partner { gpid grantedScopes } grantedScopes previousScopes addedScopes removedScopes updatedAt
    revokedCredentials { credentialId kind exceedingScopes }
  }
}`;

interface Change {
  partner: { gpid: string; grantedScopes: string[] };
  grantedScopes: string[];
  previousScopes: string[];
  addedScopes: string[];
  removedScopes: string[];
  updatedAt: string | null;
  revokedCredentials: { credentialId: string; kind: string; exceedingScopes: string[] }[];
}

function freshAddress(): string {
  addressCounter += 1;
  return `203.0.113.${addressCounter % 250}`;
}

interface PartnerFixture {
  gpid: string;
  session: string;
}

/** A partner registered by the operator, with a portal account, signed in. */
async function newPartner(): Promise<PartnerFixture> {
  const registered = await t.graphql<{ registerPartner: { gpid: string } }>('mutation($i: RegisterPartnerInput!) { registerPartner(input: $i) { gpid } }', {
    i: { legalName: `Grant Health ${randomBytes(3).toString('hex')}`, organizationType: 'HEALTH_SYSTEM' },
  });
  expect(registered.errors).toBeUndefined();
  const gpid = registered.data!.registerPartner.gpid;
  const email = `portal.${gpid.slice(4)}@grants-${randomBytes(3).toString('hex')}.example`;
  const password = `Kq7!${randomBytes(9).toString('base64url')}zR4`;
  const account = await t.graphql('mutation($p: ID!, $e: String!, $pw: String!) { createPortalAccount(partnerGpid: $p, email: $e, password: $pw) { email } }', { p: gpid, e: email, pw: password });
  expect(account.errors).toBeUndefined();
  const login = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email, password }, headers: { 'x-forwarded-for': freshAddress() } });
  expect(login.statusCode).toBe(200);
  return { gpid, session: login.json().access_token };
}

function putScopes(gpid: string, body: unknown, token?: string) {
  return t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body, ...(token === undefined ? {} : { token }) });
}

function createToken(bearer: string, scopes: string[]) {
  return t.request({ method: 'POST', url: '/cms/tokens', token: bearer, body: { name: `grant test ${scopes.join(' ')}`.slice(0, 60), scopes } });
}

async function grantedScopes(gpid: string): Promise<string[]> {
  const res = await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: gpid });
  expect(res.errors).toBeUndefined();
  return res.data!.partner.grantedScopes;
}

/** Whether a bearer is still accepted (its viewer answers). */
async function accepted(bearer: string): Promise<number> {
  const res = await t.request({ method: 'POST', url: '/graphql', token: bearer, body: { query: '{ viewer { partnerGpid } }' } });
  return res.statusCode;
}

beforeAll(async () => {
  t = await bootSystem();
});
afterAll(async () => {
  await t?.close();
});

describe('PUT /cms/partners/{gpid}/scopes', () => {
  it('is in the route table, the route catalog and OpenAPI, operator-only, with a limit shared with its GraphQL twin', async () => {
    const route = ROUTES.find((r) => r.id === 'partners.scopes.update');
    expect(route).toMatchObject({ method: 'PUT', path: '/cms/partners/{gpid}/scopes', auth: 'bearer', scopes: ['cms.admin'], capability: 'partners.scopes.update' });
    const catalog = await t.request({ url: '/api/partner/routes' });
    const entry = catalog.json().routes.find((r: { id: string }) => r.id === 'partners.scopes.update');
    expect(entry).toMatchObject({ method: 'PUT', path: '/cms/partners/{gpid}/scopes', scopes: ['cms.admin'], rate_limit: { text: '30/min' }, implemented: true });
    const openapi = await t.request({ url: '/api/openapi/all.json', token: null });
    const op = openapi.json().paths['/cms/partners/{gpid}/scopes']['put'];
    expect(op['security']).toEqual([{ bearerAuth: [] }, { oauth2: ['cms.admin'] }]);
    expect(op['requestBody'].content['application/json'].schema.required).toEqual(['scopes']);

    // One counter for both doors: a GraphQL call spends a point of the REST route's limit.
    const partner = await newPartner();
    const first = await putScopes(partner.gpid, { scopes: DEFAULT_GRANT });
    expect(first.statusCode).toBe(200);
    expect(first.headers['x-ratelimit-limit']).toBe('30');
    const viaGraphql = await t.graphql(GRANT_MUTATION, { p: partner.gpid, s: DEFAULT_GRANT });
    expect(viaGraphql.errors).toBeUndefined();
    const second = await putScopes(partner.gpid, { scopes: DEFAULT_GRANT });
    expect(Number(first.headers['x-ratelimit-remaining']) - Number(second.headers['x-ratelimit-remaining'])).toBe(2);
  });

  it('lets an operator grant merge, split and approve; a token created afterwards can carry them', async () => {
    const partner = await newPartner();
    const before = await createToken(partner.session, ['identity.read', 'identity.merge']);
    expect(before.statusCode).toBe(403);
    expect(before.json().exceeding_scopes).toEqual(['identity.merge']);

    const res = await putScopes(partner.gpid, { scopes: [...DEFAULT_GRANT, ...STEWARD] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      partner_gpid: partner.gpid,
      granted_scopes: [...DEFAULT_GRANT, ...STEWARD],
      previous_scopes: DEFAULT_GRANT,
      added_scopes: STEWARD,
      removed_scopes: [],
      revoked_credentials: [],
      updated_at: expect.any(String),
    });
    expect(await grantedScopes(partner.gpid)).toEqual([...DEFAULT_GRANT, ...STEWARD]);

    const after = await createToken(partner.session, ['identity.read', 'identity.merge', 'identity.approve']);
    expect(after.statusCode).toBe(201);
    expect(after.json().scopes).toEqual(['identity.read', 'identity.merge', 'identity.approve']);
    // The partner sees its own grant.
    const own = await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: partner.gpid }, partner.session);
    expect(own.data!.partner.grantedScopes).toEqual([...DEFAULT_GRANT, ...STEWARD]);

    // partner.scopes.updated is recorded with the change.
    const events = await eventually(async () => {
      const found = (await eventsOf(t, ['partner.scopes.updated'])).filter((e) => e.partnerGpid === partner.gpid);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(events[0]!.data).toEqual({
      event: 'partner.scopes.updated',
      partner_gpid: partner.gpid,
      granted_scopes: [...DEFAULT_GRANT, ...STEWARD],
      previous_scopes: DEFAULT_GRANT,
      added_scopes: STEWARD,
      removed_scopes: [],
      revoked_credential_ids: [],
      updated_by: expect.stringMatching(/^tok_/),
      updated_at: res.json().updated_at,
    });

    // The same grant again changes nothing and records nothing.
    const again = await putScopes(partner.gpid, { scopes: [...STEWARD, ...DEFAULT_GRANT] });
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ added_scopes: [], removed_scopes: [], updated_at: null, granted_scopes: [...DEFAULT_GRANT, ...STEWARD] });
    expect((await eventsOf(t, ['partner.scopes.updated'])).filter((e) => e.partnerGpid === partner.gpid)).toHaveLength(1);
  });

  it('refuses unknown scopes naming each, wildcards wider than the catalog, reserved scopes and bad bodies', async () => {
    const partner = await newPartner();
    const unknown = await putScopes(partner.gpid, { scopes: ['identity.read', 'identity.delete', 'tefca.*', 'cms.admin', '*', 'not a scope'] });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.json().errors).toEqual([{ field: 'scopes.5', message: '"not a scope" is not a well-formed scope' }]);
    const ungrantable = await putScopes(partner.gpid, { scopes: ['identity.read', 'identity.delete', 'tefca.*', 'cms.admin', '*', 'system/*.*'] });
    expect(ungrantable.statusCode).toBe(422);
    expect(ungrantable.json().detail).toContain('identity.delete');
    expect(ungrantable.json().errors).toEqual([
      { field: 'scopes.1', message: expect.stringContaining('"identity.delete" is not in the scope catalog') },
      { field: 'scopes.2', message: expect.stringContaining('"tefca.*" is not in the scope catalog') },
      { field: 'scopes.3', message: 'cms.admin is reserved for the operator partner and cannot be granted' },
      { field: 'scopes.4', message: '* is reserved for the operator partner and cannot be granted' },
      { field: 'scopes.5', message: expect.stringContaining('"system/*.*" is not in the scope catalog') },
    ]);
    for (const body of [{}, { scopes: [] }, { scopes: 'identity.read' }, { scopes: [1] }, []]) {
      const bad = await putScopes(partner.gpid, body);
      expect(bad.statusCode, JSON.stringify(body)).toBe(422);
      expect(bad.json().errors[0].field, JSON.stringify(body)).toMatch(/^(scopes|scopes\.0|)$/);
    }
    // Nothing was changed by any of them.
    expect(await grantedScopes(partner.gpid)).toEqual(DEFAULT_GRANT);

    // Wildcards and SMART scopes the catalog allows, and scopes narrower than a catalog entry.
    const wide = await putScopes(partner.gpid, { scopes: [...DEFAULT_GRANT, 'tefca.xcpd.*', 'tefca.xca.query', 'velocity.clearinghouse.*', 'system/*.read', 'patient/Patient.read'] });
    expect(wide.statusCode).toBe(200);
    expect(wide.json().added_scopes).toEqual(['tefca.xcpd.*', 'tefca.xca.query', 'velocity.clearinghouse.*', 'system/*.read', 'patient/Patient.read']);

    // A missing partner, a malformed GPID, the operator partner.
    const missing = await putScopes('CMS-99999998', { scopes: DEFAULT_GRANT });
    expect(missing.statusCode).toBe(404);
    const malformed = await putScopes('nope', { scopes: DEFAULT_GRANT });
    expect(malformed.statusCode).toBe(422);
    expect(malformed.json().errors).toEqual([{ field: 'partner_gpid', message: 'must be CMS- followed by 8 digits' }]);
    const operator = await putScopes('CMS-00000000', { scopes: DEFAULT_GRANT });
    expect(operator.statusCode).toBe(409);
  });

  it('refuses a partner the same way for its own GPID, another partner and a missing one', async () => {
    const partner = await newPartner();
    const other = await newPartner();
    const token = (await createToken(partner.session, ['cms.tokens.manage', 'cms.partner.read'])).json().secret as string;
    const answers = [];
    for (const bearer of [partner.session, token]) {
      for (const gpid of [partner.gpid, other.gpid, 'CMS-99999997']) {
        const res = await putScopes(gpid, { scopes: [...DEFAULT_GRANT, 'identity.merge'] }, bearer);
        // The platform's 403 for a credential without the route's scope (cms.admin).
        expect(res.statusCode).toBe(403);
        expect(res.json().code).toBe('INSUFFICIENT_SCOPE');
        answers.push(JSON.stringify({ ...res.json(), request_id: null, instance: null }));
      }
    }
    expect(new Set(answers).size).toBe(1);
    expect(await grantedScopes(partner.gpid)).toEqual(DEFAULT_GRANT);
  });
});

describe('updatePartnerScopeGrant (GraphQL)', () => {
  it('grants through GraphQL too, with typed errors', async () => {
    const partner = await newPartner();
    const res = await t.graphql<{ updatePartnerScopeGrant: Change }>(GRANT_MUTATION, { p: partner.gpid, s: [...DEFAULT_GRANT, 'tefca.xcpd.*'] });
    expect(res.errors).toBeUndefined();
    expect(res.data!.updatePartnerScopeGrant).toMatchObject({ partner: { gpid: partner.gpid, grantedScopes: [...DEFAULT_GRANT, 'tefca.xcpd.*'] }, addedScopes: ['tefca.xcpd.*'], removedScopes: [], revokedCredentials: [] });
    // An OAuth client registered afterwards may carry a scope under the granted wildcard.
    const client = await t.graphql<{ registerOAuthClient: { client: { scopes: string[] } } }>(
      'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { client { scopes } } }',
      { i: { partnerGpid: partner.gpid, clientName: 'discovery', scope: 'tefca.xcpd.search' } },
    );
    expect(client.errors).toBeUndefined();
    expect(client.data!.registerOAuthClient.client.scopes).toEqual(['tefca.xcpd.search']);

    const unknown = await t.graphql(GRANT_MUTATION, { p: partner.gpid, s: ['identity.read', 'identity.erase'] });
    expect(unknown.errors![0]!.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'scopes.1', message: expect.stringContaining('identity.erase') }] });
    expect(unknown.errors![0]!.message).toContain('identity.erase');

    const missing = await t.graphql(GRANT_MUTATION, { p: 'CMS-99999996', s: DEFAULT_GRANT });
    expect(missing.errors![0]!.extensions?.['code']).toBe('NOT_FOUND');

    // A partner calling the operator mutation: refused (403, missing cms.admin), whatever GPID it names.
    const forbidden = [];
    for (const gpid of [partner.gpid, 'CMS-99999996']) {
      const res2 = await t.graphql(GRANT_MUTATION, { p: gpid, s: [...DEFAULT_GRANT, 'identity.merge'] }, partner.session);
      expect(res2.errors![0]!.extensions).toMatchObject({ code: 'INSUFFICIENT_SCOPE', status: 403 });
      forbidden.push(res2.errors![0]!.message);
    }
    expect(forbidden[0]).toBe(forbidden[1]);
  });
});

describe('narrowing a grant', () => {
  it('revokes at once every credential that carries a removed scope, and leaves the others working', async () => {
    const partner = await newPartner();
    expect((await putScopes(partner.gpid, { scopes: [...DEFAULT_GRANT, ...STEWARD] })).statusCode).toBe(200);
    const merger = await createToken(partner.session, ['identity.read', 'identity.merge']);
    const reader = await createToken(partner.session, ['identity.read']);
    expect(merger.statusCode).toBe(201);
    expect(reader.statusCode).toBe(201);
    // An OAuth client with a removed scope, and an access token it already holds.
    const registered = await t.request({ method: 'POST', url: '/cms/oauth/register', token: partner.session, body: { client_name: 'merger', scope: 'identity.read identity.merge' } });
    expect(registered.statusCode).toBe(201);
    const { client_id: clientId, client_secret: clientSecret } = registered.json();
    const exchanged = await t.request({
      method: 'POST',
      url: '/oauth/token',
      token: null,
      body: new URLSearchParams({ grant_type: 'client_credentials' }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    });
    expect(exchanged.statusCode).toBe(200);
    const accessToken = exchanged.json().access_token as string;
    for (const bearer of [merger.json().secret, reader.json().secret, accessToken, partner.session]) expect(await accepted(bearer)).toBe(200);

    // Remove identity.merge (GraphQL door); keep everything else.
    const res = await t.graphql<{ updatePartnerScopeGrant: Change }>(GRANT_MUTATION, { p: partner.gpid, s: [...DEFAULT_GRANT, 'identity.split', 'identity.approve'] });
    expect(res.errors).toBeUndefined();
    const change = res.data!.updatePartnerScopeGrant;
    expect(change.removedScopes).toEqual(['identity.merge']);
    expect(change.revokedCredentials).toEqual(
      expect.arrayContaining([
        { credentialId: merger.json().token_id, kind: 'api_token', exceedingScopes: ['identity.merge'] },
        { credentialId: clientId, kind: 'oauth_client', exceedingScopes: ['identity.merge'] },
      ]),
    );
    expect(change.revokedCredentials).toHaveLength(2);

    // From the next request on: the merge token and the client's access token are refused.
    expect(await accepted(merger.json().secret)).toBe(401);
    expect(await accepted(accessToken)).toBe(401);
    // Within the new grant: untouched.
    expect(await accepted(reader.json().secret)).toBe(200);
    expect(await accepted(partner.session)).toBe(200);
    const list = await t.request({ url: '/cms/tokens', token: partner.session });
    expect(list.json().tokens.map((tk: { token_id: string }) => tk.token_id)).toEqual([reader.json().token_id]);
    // A new token may no longer carry the removed scope.
    expect((await createToken(partner.session, ['identity.merge'])).statusCode).toBe(403);

    // The revocations and the change are events, with the revoked ids.
    await eventually(async () => {
      const revoked = (await eventsOf(t, ['partner.token.revoked'])).filter((e) => e.partnerGpid === partner.gpid);
      expect(revoked.map((e) => e.data['token_id']).sort()).toEqual([merger.json().token_id, clientId].sort());
      expect(revoked.every((e) => e.data['reason'] === 'admin_action')).toBe(true);
      const updated = (await eventsOf(t, ['partner.scopes.updated'])).filter((e) => e.partnerGpid === partner.gpid);
      expect(updated[0]!.data).toMatchObject({ removed_scopes: ['identity.merge'], revoked_credential_ids: expect.arrayContaining([merger.json().token_id, clientId]) });
    });

    // Removing a self-service scope ends the portal sessions that carry it (REST door).
    const narrowed = await putScopes(partner.gpid, { scopes: DEFAULT_GRANT.filter((s) => s !== 'cms.webhooks.manage') });
    expect(narrowed.statusCode).toBe(200);
    expect(narrowed.json().revoked_credentials).toEqual([{ credential_id: expect.stringMatching(/^ses_/), kind: 'portal_session', exceeding_scopes: ['cms.webhooks.manage'] }]);
    expect(await accepted(partner.session)).toBe(401);
    expect(await accepted(reader.json().secret)).toBe(200);
  });
});

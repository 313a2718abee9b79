import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_PRINCIPAL_HEADER, signPrincipal, type Principal } from '@svc/platform';
import { bootSystem, type TestSystem } from '../support/system.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from '../support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from '../support/processes.js';
import { PATIENCE_MS } from '../support/patience.js';

/**
 * Issue 7, point 2: a revoked API token kept working for up to 60 s through a gateway-signed
 * principal fetched from /internal/principal on the public port, and could mint a new token.
 * Now the internal hop is not on the public listener, the public /graphql refuses a signed
 * principal, and a revoked credential is refused at once on every path.
 */

const CREATE_TOKEN = 'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret token { tokenId } } }';
const SCOPES = ['cms.tokens.manage', 'cms.pipeline.read'];

describe('a revoked API token, embedded default', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  async function newToken(name: string): Promise<{ secret: string; tokenId: string }> {
    const res = await t.graphql<{ createApiToken: { secret: string; token: { tokenId: string } } }>(CREATE_TOKEN, { i: { name, scopes: SCOPES } });
    expect(res.errors).toBeUndefined();
    return { secret: res.data!.createApiToken.secret, tokenId: res.data!.createApiToken.token.tokenId };
  }

  async function tokenIds(): Promise<string[]> {
    const res = await t.request({ url: '/cms/tokens' });
    return (res.json().tokens as { token_id: string }[]).map((tk) => tk.token_id);
  }

  it('serves no internal plumbing on the public listener', async () => {
    const { secret } = await newToken('plumbing probe');
    const principal = await t.request({ url: '/internal/principal', token: secret });
    expect(principal.statusCode).toBe(404);
    expect(principal.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(principal.json().token).toBeUndefined();
    // Even a correctly signed principal is refused on the public /graphql: only bearers count there.
    const signed = await signPrincipal({ kind: 'service', partnerGpid: 'CMS-00000000', scopes: ['cms.admin', 'cms.tokens.manage'] }, t.config.internalSecret);
    const res = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { [INTERNAL_PRINCIPAL_HEADER]: signed }, body: { query: '{ viewer { kind } }' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe('BAD_REQUEST');
    expect(res.json().data).toBeUndefined();
  });

  it('refuses a token on every path as soon as its revocation answers', async () => {
    const { secret, tokenId } = await newToken('about to leak');
    // The token works and is cached by the gateway: REST, /graphql, and minting.
    expect((await t.request({ url: '/cms/pipeline/health', token: secret })).statusCode).toBe(200);
    expect((await t.graphql('{ viewer { kind } }', {}, secret)).status).toBe(200);
    const minted = await t.graphql<{ createApiToken: { token: { tokenId: string } } }>(CREATE_TOKEN, { i: { name: 'minted before', scopes: ['cms.pipeline.read'] } }, secret);
    expect(minted.errors).toBeUndefined();
    // What an attacker who captured the token's signed principal would hold.
    const captured: Principal = { kind: 'partner', partnerGpid: 'CMS-00000000', tokenId, scopes: SCOPES };
    const signed = await signPrincipal(captured, t.config.internalSecret);

    const revoked = await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${tokenId}` });
    expect(revoked.statusCode).toBe(200);
    const before = await tokenIds();

    const rest = await t.request({ url: '/cms/pipeline/health', token: secret });
    expect(rest.statusCode).toBe(401);
    expect(rest.json().code).toBe('INVALID_TOKEN');

    const graphql = await t.graphql('{ viewer { kind } }', {}, secret);
    expect(graphql.status).toBe(401);
    expect(graphql.errors![0]!.extensions!['code']).toBe('INVALID_TOKEN');

    const mint = await t.graphql(CREATE_TOKEN, { i: { name: 'minted after', scopes: ['cms.pipeline.read'] } }, secret);
    expect(mint.status).toBe(401);
    expect(mint.data).toBeUndefined();
    const mintRest = await t.request({ method: 'POST', url: '/cms/tokens', token: secret, body: { name: 'minted after', scopes: ['cms.pipeline.read'] } });
    expect(mintRest.statusCode).toBe(401);

    for (const token of [null, secret]) {
      const forwarded = await t.request({ method: 'POST', url: '/graphql', token, headers: { [INTERNAL_PRINCIPAL_HEADER]: signed }, body: { query: CREATE_TOKEN, variables: { i: { name: 'minted by header', scopes: ['cms.pipeline.read'] } } } });
      expect(forwarded.statusCode).toBe(400);
      expect(forwarded.json().data).toBeUndefined();
    }
    expect(await tokenIds()).toEqual(before);
  });
});

/** The same attack against the distributed mode, each component in its own process. */
describe.runIf(USE_POSTGRES)('a revoked API token, distributed mode (separate processes)', () => {
  let storage: TestStorage;
  const services: ServiceProcess[] = [];
  let gateway: ServiceProcess;
  let partner: ServiceProcess;
  const operator = `op_${randomBytes(18).toString('base64url')}`;

  const gql = async (base: string, query: string, variables: Record<string, unknown>, headers: Record<string, string>) => {
    const res = await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query, variables }) });
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown> | null; errors?: { extensions?: { code?: string } }[] } };
  };
  /**
   * Between processes a revocation travels the Redis bus; the partner subgraph answers the
   * revocation only after the event is published, and delivery takes a moment (longer on a busy
   * machine): poll until it is done or the test's patience runs out.
   */
  async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + PATIENCE_MS;
    let value = await probe();
    while (!done(value) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      value = await probe();
    }
    return value;
  }

  beforeAll(async () => {
    storage = await freshStorage();
    const shared = { ...storage.env, SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'), SVC_OUTBOX_POLL_MS: '100' };
    const subgraphs = await Promise.all(
      ['partner', 'identity', 'fhir', 'pipeline'].map((name) => startProcess(`subgraph:${name}`, name === 'partner' ? { ...shared, SVC_BOOTSTRAP_TOKEN: operator } : shared)),
    );
    services.push(...subgraphs);
    await Promise.all(subgraphs.map((s) => waitUntilReady(s)));
    partner = subgraphs[0]!;
    const urls = Object.fromEntries(subgraphs.map((s) => [`SVC_SUBGRAPH_${s.role.split(':')[1]!.toUpperCase()}_URL`, `${s.url}/graphql`]));
    gateway = await startProcess('gateway', { ...shared, ...urls });
    services.push(gateway);
    await waitUntilReady(gateway);
  }, 600_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await storage?.dispose();
  });

  it('serves /internal/principal and the signed-principal /graphql only on the internal listener', async () => {
    const auth = { authorization: `Bearer ${operator}` };
    expect((await fetch(`${gateway.url}/internal/principal`, { headers: auth })).status).toBe(404);
    expect((await fetch(`${gateway.url}/metrics`)).status).toBe(404);

    const internal = await fetch(`${gateway.internalUrl}/internal/principal`, { headers: auth });
    expect(internal.status).toBe(200);
    const { token } = (await internal.json()) as { token: string };
    const onPublic = await gql(gateway.url, '{ viewer { kind } }', {}, { [INTERNAL_PRINCIPAL_HEADER]: token });
    expect(onPublic.status).toBe(400);
    expect(onPublic.body.data).toBeUndefined();
    const onInternal = await gql(gateway.internalUrl, '{ viewer { kind } }', {}, { [INTERNAL_PRINCIPAL_HEADER]: token });
    expect(onInternal.body.data).toEqual({ viewer: { kind: 'service' } });
    // The internal /graphql takes no bearer: only a signed principal.
    expect((await gql(gateway.internalUrl, '{ viewer { kind } }', {}, auth)).status).toBe(401);
  });

  it('refuses a revoked token and its signed principal in the gateway and in every subgraph', async () => {
    const created = await gql(gateway.url, CREATE_TOKEN, { i: { name: 'distributed leak', scopes: SCOPES } }, { authorization: `Bearer ${operator}` });
    const { secret, token } = created.body.data!['createApiToken'] as { secret: string; token: { tokenId: string } };
    const bearer = { authorization: `Bearer ${secret}` };
    const exchanged = (await (await fetch(`${gateway.internalUrl}/internal/principal`, { headers: bearer })).json()) as { principal: Principal; token: string };
    expect(exchanged.principal).toMatchObject({ tokenId: token.tokenId, credentialExpiresAt: expect.any(Number) });
    const signed = { [INTERNAL_PRINCIPAL_HEADER]: exchanged.token };
    expect((await gql(gateway.internalUrl, '{ viewer { kind } }', {}, signed)).body.data).toEqual({ viewer: { kind: 'partner' } });
    expect((await gql(partner.url, '{ viewer { kind } }', {}, signed)).body.data).toEqual({ viewer: { kind: 'partner' } });

    const revoked = await gql(gateway.url, 'mutation($t: ID!) { revokeApiToken(tokenId: $t) { tokenId } }', { t: token.tokenId }, { authorization: `Bearer ${operator}` });
    expect(revoked.body.errors).toBeUndefined();

    const viaGateway = await eventually(() => gql(gateway.internalUrl, CREATE_TOKEN, { i: { name: 'minted after', scopes: ['cms.pipeline.read'] } }, signed), (r) => r.status === 401);
    expect(viaGateway.status).toBe(401);
    expect(viaGateway.body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
    const viaSubgraph = await eventually(() => gql(partner.url, CREATE_TOKEN, { i: { name: 'minted after', scopes: ['cms.pipeline.read'] } }, signed), (r) => r.status === 401);
    expect(viaSubgraph.status).toBe(401);
    const viaBearer = await gql(gateway.url, '{ viewer { kind } }', {}, bearer);
    expect(viaBearer.status).toBe(401);
    expect((await fetch(`${gateway.internalUrl}/internal/principal`, { headers: bearer })).status).toBe(401);

    const listed = await gql(gateway.url, '{ apiTokens { name } }', {}, { authorization: `Bearer ${operator}` });
    const names = ((listed.body.data?.['apiTokens'] ?? []) as { name: string }[]).map((tk) => tk.name);
    expect(names).not.toContain('minted after');
  });
});

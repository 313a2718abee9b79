import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, openDatabase, RequestLogRecorder, type Logger, type Orm, type RequestLogBatch } from '@svc/platform';
import { migrations } from '../subgraphs/partner/src/migrations/index.js';
import { ApiTokenEntity } from '../subgraphs/partner/src/entities/api-token.js';
import { requestLog } from '../subgraphs/partner/src/entities/request-log.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { mintToken, registerPartner } from './support/identity.js';
import { freshStorage, type TestStorage } from './support/databases.js';

// A partner's request log (GET /api/partner/requests and Query.apiRequestLog) and its API tokens'
// last use: recorded at the edges off the request path, only ever the partner's own.

interface Entry {
  occurred_at: string;
  method: string;
  route: string;
  status: number;
  request_id: string;
  latency_ms: number;
  credential_id: string | null;
  credential_kind: string;
}

let t: TestSystem;
let gpid: string;
let token: string;
let otherToken: string;

const tokenIdOf = async (secret: string) => {
  const res = await t.request({ url: '/cms/tokens', token: secret });
  return res.json() as { tokens: { token_id: string; last_used_at: string | null; last_used_route: string | null; environment: string }[] };
};

/** Read the log until `until` holds (entries are written within a flush interval of the answer). */
async function logUntil(secret: string, query: string, until: (entries: Entry[]) => boolean): Promise<Entry[]> {
  for (let i = 0; i < 200; i++) {
    const res = await t.request({ url: `/api/partner/requests${query}`, token: secret });
    expect(res.statusCode, res.body).toBe(200);
    const entries = (res.json() as { requests: Entry[] }).requests;
    if (until(entries)) return entries;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the request log never showed the expected entries');
}

beforeAll(async () => {
  t = await bootSystem({ SVC_REQUEST_LOG_FLUSH_MS: '20' });
  gpid = await registerPartner(t, 'Request Log Health');
  token = await mintToken(t, ['cms.tokens.manage', 'cms.sdk.read'], gpid);
  otherToken = await mintToken(t, ['cms.tokens.manage'], await registerPartner(t, 'Request Log Bystander'));
});
afterAll(() => t?.close());

describe('request log', () => {
  it("records the partner's own requests, REST and GraphQL, with the route template and never the query string", async () => {
    const ok = await t.request({ url: '/cms-ecosystem/sdk-catalog?secret_hint=abc', token });
    expect(ok.statusCode).toBe(200);
    const refused = await t.request({ url: '/api/partner/requests?status_class=9xx', token });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ errors: [{ field: 'status_class' }] });
    expect((await t.graphql('{ sdkCatalog { features { code } } }', {}, token)).errors).toBeUndefined();
    const { tokens } = await tokenIdOf(token);
    expect(tokens).toHaveLength(1);
    const tokenId = tokens[0]!.token_id;

    const entries = await logUntil(token, '', (e) => e.some((x) => x.route === '/graphql') && e.some((x) => x.status === 422));
    const catalog = entries.find((x) => x.request_id === ok.headers['x-request-id']);
    expect(catalog).toMatchObject({ method: 'GET', route: '/cms-ecosystem/sdk-catalog', status: 200, credential_kind: 'api_token' });
    expect(catalog!.latency_ms).toBeGreaterThanOrEqual(0);
    expect(entries.find((x) => x.status === 422)).toMatchObject({ route: '/api/partner/requests', request_id: refused.headers['x-request-id'] });
    expect(entries.find((x) => x.route === '/graphql')).toMatchObject({ method: 'POST', status: 200 });
    expect(JSON.stringify(entries)).not.toContain('secret_hint');
    expect(JSON.stringify(entries)).not.toContain('9xx');
    expect(new Set(entries.map((x) => x.credential_id))).toContain(tokenId);

    // Filters: status class, method, credential, time range.
    const clientErrors = await logUntil(token, '?status_class=4xx', () => true);
    expect(clientErrors.length).toBeGreaterThan(0);
    expect(clientErrors.every((x) => x.status >= 400 && x.status < 500)).toBe(true);
    const posts = await logUntil(token, '?method=POST', () => true);
    expect(posts.every((x) => x.method === 'POST')).toBe(true);
    expect((await logUntil(token, `?credential_id=${tokenId}&limit=1`, () => true)).length).toBe(1);
    expect(await logUntil(token, `?until=2020-01-01T00:00:00Z`, () => true)).toEqual([]);
    const later = new Date(Date.now() + 3_600_000).toISOString();
    expect(await logUntil(token, `?since=${later}`, () => true)).toEqual([]);
  });

  it('pages with a cursor and refuses bad filters by name, on REST and GraphQL', async () => {
    const first = await t.request({ url: '/api/partner/requests?limit=1', token });
    const body = first.json() as { requests: Entry[]; next_cursor: string | null };
    expect(body.requests).toHaveLength(1);
    expect(body.next_cursor).toEqual(expect.any(String));
    const second = (await t.request({ url: `/api/partner/requests?limit=1&cursor=${body.next_cursor}`, token })).json() as { requests: Entry[] };
    expect(second.requests[0]!.request_id).not.toBe(body.requests[0]!.request_id);

    const bad = await t.request({ url: '/api/partner/requests?method=BREW&credential_id=nope', token });
    expect(bad.statusCode).toBe(422);
    expect((bad.json() as { errors: { field: string }[] }).errors.map((f) => f.field).sort()).toEqual(['credential_id', 'method']);
    const gql = await t.graphql('{ apiRequestLog(statusClass: "1xx") { edges { node { route } } } }', {}, token);
    expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'statusClass' }] });
  });

  it("never shows another partner's requests", async () => {
    const theirs = await t.request({ url: '/cms/tokens', token: otherToken });
    expect(theirs.statusCode).toBe(200);
    const { tokens } = await tokenIdOf(token);
    const ours = await logUntil(otherToken, '', (e) => e.length > 0);
    expect(ours.every((x) => !tokens.some((tok) => tok.token_id === x.credential_id))).toBe(true);
    // Naming our token from their side finds nothing.
    expect(await logUntil(otherToken, `?credential_id=${tokens[0]!.token_id}`, () => true)).toEqual([]);
    // Without a partner scope the route is refused like its GraphQL twin.
    const narrow = await mintToken(t, ['cms.sdk.read'], gpid);
    expect((await t.request({ url: '/api/partner/requests', token: narrow })).statusCode).toBe(403);
    expect((await t.graphql('{ apiRequestLog { edges { cursor } } }', {}, narrow)).errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
  });

  it("shows each API token's last use (time and route) and the environment on the token list", async () => {
    const before = Date.now();
    const fresh = await mintToken(t, ['cms.tokens.manage'], gpid);
    expect((await t.request({ url: '/cms/tokens', token: fresh })).statusCode).toBe(200);
    for (let i = 0; i < 200; i++) {
      const list = await tokenIdOf(token);
      const used = list.tokens.filter((x) => x.last_used_route === 'GET /cms/tokens' && Date.parse(x.last_used_at ?? '') >= before - 1000);
      if (used.length > 0) {
        expect(list.tokens.every((x) => x.environment === 'sandbox')).toBe(true);
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('last use never recorded');
  });
});

describe('request log storage and recorder', () => {
  let storage: TestStorage;
  let orm: Orm;
  beforeAll(async () => {
    storage = await freshStorage();
    orm = await openDatabase({ config: loadConfig({ ...storage.env, SVC_LOG_LEVEL: 'silent' }), owner: 'partner', entities: [ApiTokenEntity], migrations });
  });
  afterAll(async () => {
    await orm?.close();
    await storage?.dispose();
  });

  const entry = (partnerGpid: string, at: Date, status = 200) => ({
    partnerGpid,
    occurredAt: at.toISOString(),
    method: 'GET',
    route: '/cms/tokens',
    status,
    requestId: 'req_x',
    latencyMs: 3,
    credentialId: 'tok_01',
    credentialKind: 'api_token' as const,
  });

  it('prunes entries past the retention and beyond the per-partner maximum', async () => {
    const now = Date.now();
    const old = Array.from({ length: 5 }, (_, i) => entry('CMS-00000011', new Date(now - 10 * 3_600_000 - i)));
    const recent = Array.from({ length: 150 }, (_, i) => entry('CMS-00000011', new Date(now - 1000 + i)));
    const small = Array.from({ length: 3 }, (_, i) => entry('CMS-00000012', new Date(now - i)));
    await requestLog.insertMany(orm.em.fork(), [...old, ...recent, ...small]);
    const deleted = await requestLog.prune(orm.em.fork(), new Date(now - 3_600_000), 100);
    expect(deleted).toBe(5 + 50);
    const kept = await requestLog.page(orm.em.fork(), { partnerGpid: 'CMS-00000011', limit: 500 });
    expect(kept).toHaveLength(100);
    // The newest are the ones kept.
    expect(kept[0]!.occurredAt.getTime()).toBe(now - 1000 + 149);
    expect(await requestLog.page(orm.em.fork(), { partnerGpid: 'CMS-00000012', limit: 500 })).toHaveLength(3);
  });

  it('buffers off the request path: a failing write drops its batch and never throws, and token uses are coalesced', async () => {
    const batches: RequestLogBatch[] = [];
    let fail = true;
    const warnings: unknown[] = [];
    const logger = { warn: (o: unknown) => warnings.push(o) } as unknown as Logger;
    const recorder = new RequestLogRecorder(
      async (b) => {
        if (fail) throw new Error('database away');
        batches.push(b);
      },
      logger,
      { flushMs: 60_000, maxBuffered: 3 },
    );
    const at = new Date();
    recorder.record(entry('CMS-00000013', at));
    await recorder.flush();
    expect(warnings).toHaveLength(1);
    expect(JSON.stringify(warnings)).not.toContain('CMS-00000013');
    fail = false;
    for (let i = 0; i < 5; i++) recorder.record(entry('CMS-00000013', new Date(at.getTime() + i)));
    expect(recorder.dropped).toBe(2);
    await recorder.close();
    expect(batches).toHaveLength(1);
    expect(batches[0]!.requests).toHaveLength(3);
    // The first use of the token went with the failed batch; the uses within the minute after it are coalesced away.
    expect(batches[0]!.tokensUsed).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { bootSystem, type TestSystem } from './support/system.js';

/** svc_gateway_fast_path_requests_total, read from GET /metrics on the internal listener. */
async function fastPathCount(t: TestSystem): Promise<number> {
  const res = await t.system.internalApp!.inject({ url: '/metrics' });
  const line = res.body.split('\n').find((l) => l.startsWith('svc_gateway_fast_path_requests_total '));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** The answer as a client sees it, without what differs from one request to the next by design. */
function answerOf(res: LightMyRequestResponse) {
  const headers = Object.entries(res.headers)
    .filter(([name]) => !['date', 'content-length', 'connection', 'keep-alive'].includes(name))
    .map(([name, value]) => `${name}: ${String(value)}`)
    .sort();
  return { status: res.statusCode, headers, body: res.body, length: res.headers['content-length'] };
}

interface Case {
  name: string;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

/**
 * The gateway answers a POST whose document Apollo Server has already validated without Apollo's
 * per-request pipeline (gateway/src/fast-path.ts). The first request of each text takes the
 * pipeline, the next ones the fast path: both answers must be the same, byte for byte.
 */
describe('the gateway fast path answers exactly as Apollo Server would', () => {
  let t: TestSystem;
  let gpid = '';

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    for (const name of ['Fast Alpha', 'Fast Beta']) {
      const created = await t.graphql<{ registerPartner: { gpid: string } }>('mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', {
        input: { legalName: name, organizationType: 'HEALTH_SYSTEM' },
      });
      gpid = created.data!.registerPartner.gpid;
      const job = await t.graphql('mutation($p: ID!, $t: [String!]!) { createSyncJob(partnerGpid: $p, resourceTypes: $t) { jobId } }', { p: gpid, t: ['Patient'] });
      expect(job.errors).toBeUndefined();
    }
  });
  afterAll(() => t?.close());

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}, token: string | null = t.operatorToken) =>
    t.request({ method: 'POST', url: '/graphql', token, body, headers: { 'x-request-id': 'req_fast_path_compare', ...headers } });

  const cases = (): Case[] => [
    { name: 'a cross-subgraph query', body: { query: '{ partners(first: 10) { edges { node { gpid legalName syncJobs { jobId status resourceTypes } } } } }' } },
    { name: 'variables and an operation name among several operations', body: { query: 'query A($g: ID!) { partner(gpid: $g) { gpid legalName } } query B { partners(first: 1) { edges { node { gpid } } } }', operationName: 'A', variables: { g: gpid } } },
    { name: 'aliases, @skip and @include read from variables', body: { query: 'query($s: Boolean!) { first: partners(first: 2) { edges { node { id: gpid name: legalName @skip(if: $s) syncJobs @include(if: $s) { jobId } } } } }', variables: { s: true } } },
    { name: 'a field error with partial data', body: { query: 'query($g: ID!) { partner(gpid: $g) { gpid } partners(first: 1) { edges { node { gpid } } } }', variables: { g: 'prt_doesnotexist' } } },
    { name: 'a variable of the wrong type (BAD_USER_INPUT, no data)', body: { query: 'query($n: Int!) { partners(first: $n) { edges { node { gpid } } } }', variables: { n: 'ten' } } },
    { name: 'a missing required variable', body: { query: 'query($n: Int!) { partners(first: $n) { edges { node { gpid legalName } } } }' } },
    { name: 'a page over the maximum (refused by the guard)', body: { query: 'query($n: Int!) { partners(first: $n) { edges { node { gpid syncJobs { jobId } } } } }', variables: { n: 100_000 } } },
    { name: 'Accept: application/json and a charset', body: { query: '{ partners(first: 1) { edges { node { gpid } } } }' }, headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8' } },
  ];

  it('answers every case the same on the fast path as through Apollo, byte for byte, errors included', async () => {
    for (const c of cases()) {
      const before = await fastPathCount(t);
      const slow = await post(c.body, c.headers);
      const afterSlow = await fastPathCount(t);
      const fast = await post(c.body, c.headers);
      const afterFast = await fastPathCount(t);
      expect(afterSlow - before, `${c.name}: the first request of a text takes Apollo's pipeline`).toBe(0);
      expect(answerOf(fast), c.name).toEqual(answerOf(slow));
      // The guard's refusals and variable errors are Apollo's to answer: those that refuse before
      // anything runs go back through the pipeline; the others were answered on the fast path.
      if (c.name.includes('refused by the guard')) expect(afterFast - afterSlow, c.name).toBe(0);
      else expect(afterFast - afterSlow, `${c.name}: the second takes the fast path`).toBe(1);
    }
  });

  it('keeps GET, APQ, unknown texts and documents that ask for @defer on Apollo\'s pipeline', async () => {
    const query = '{ partners(first: 1) { edges { node { gpid } } } }';
    await post({ query });
    const before = await fastPathCount(t);
    const get = await t.request({ url: `/graphql?query=${encodeURIComponent(query)}`, headers: { 'apollo-require-preflight': 'true' } });
    expect(get.statusCode).toBe(200);
    const apq = await post({ query, extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } });
    expect(apq.statusCode).toBe(400);
    const deferred = '{ partners(first: 1) { edges { node { gpid ... @defer { legalName } } } } }';
    await post({ query: deferred });
    await post({ query: deferred });
    expect(await fastPathCount(t)).toBe(before);
  });

  it('refuses a revoked token on a document the fast path knows', async () => {
    const created = await t.graphql<{ createApiToken: { token: { tokenId: string }; secret: string } }>(
      'mutation($g: ID) { createApiToken(input: { partnerGpid: $g, name: "fast path", scopes: ["cms.partner.read"] }) { token { tokenId } secret } }',
      { g: gpid },
    );
    expect(created.errors).toBeUndefined();
    const { secret, token } = created.data!.createApiToken;
    const query = { query: 'query($g: ID!) { partner(gpid: $g) { gpid legalName } }', variables: { g: gpid } };
    expect((await post(query, {}, secret)).statusCode).toBe(200);
    const before = await fastPathCount(t);
    const again = await post(query, {}, secret);
    expect(again.statusCode).toBe(200);
    expect(await fastPathCount(t)).toBe(before + 1);

    const revoked = await t.graphql('mutation($id: ID!) { revokeApiToken(tokenId: $id) { tokenId } }', { id: token.tokenId });
    expect(revoked.errors).toBeUndefined();
    const refused = await post(query, {}, secret);
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.json().errors[0].extensions.code).toBe('INVALID_TOKEN');
    expect(await fastPathCount(t)).toBe(before + 1);
  });
});

describe('the gateway fast path with rate limits on', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });
  afterAll(() => t?.close());

  it('leaves rate-limited fields to Apollo\'s pipeline, where they are counted once, and takes the others', async () => {
    const post = (query: string) => t.request({ method: 'POST', url: '/graphql', body: { query } });
    // partners has a REST twin: counted against its route limit, with the rate-limit headers.
    const limited = '{ partners(first: 1) { edges { node { gpid } } } }';
    const before = await fastPathCount(t);
    const first = await post(limited);
    const second = await post(limited);
    expect(first.headers['x-ratelimit-remaining']).toBeDefined();
    expect(Number(second.headers['x-ratelimit-remaining'])).toBe(Number(first.headers['x-ratelimit-remaining']) - 1);
    expect(await fastPathCount(t)).toBe(before);
    // __typename has no twin: nothing to count, so the second request takes the fast path.
    const free = '{ __typename }';
    const a = await post(free);
    const b = await post(free);
    expect(b.statusCode).toBe(a.statusCode);
    expect(b.body).toBe(a.body);
    expect(await fastPathCount(t)).toBe(before + 1);
  });
});

describe('SVC_GATEWAY_FAST_PATH=off', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_GATEWAY_FAST_PATH: 'off' });
  });
  afterAll(() => t?.close());

  it('runs every request through Apollo\'s pipeline, with the same answer', async () => {
    const post = () => t.request({ method: 'POST', url: '/graphql', body: { query: '{ partners(first: 1) { edges { node { gpid } } } }' }, headers: { 'x-request-id': 'req_fast_path_off' } });
    const first = await post();
    const second = await post();
    expect(answerOf(second)).toEqual(answerOf(first));
    expect(await fastPathCount(t)).toBe(0);
  });
});

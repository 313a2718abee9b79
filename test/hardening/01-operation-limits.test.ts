import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from '../support/system.js';
import { queryCount } from '../support/metrics.js';

/** The response-size cap of this file's system: small, so a few legal documents pass it. */
const MAX_RESPONSE_BYTES = 200_000;

type Result = Awaited<ReturnType<TestSystem['graphql']>>;

function codeOf(res: Result): unknown {
  return res.errors?.[0]?.extensions?.['code'];
}

/** `partner { syncJobs { partner { syncJobs { … } } } }`, `levels` pairs deep. */
function nestedPartnerQuery(levels: number): string {
  return `query($g: ID!) { partner(gpid: $g) { ${'syncJobs { partner { '.repeat(levels)}gpid${' } }'.repeat(levels)} } }`;
}

function aliases(count: number, field: string): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(' ')} }`;
}

/**
 * Issue point 1: one request could take the service down. Every operation is now bounded before
 * execution (depth, aliases, tokens, directives, page sizes, a cost budget per principal class) and
 * its answer is capped in size; a refusal is a GraphQL error with a stable code and HTTP 400.
 */
describe('hardening 1: GraphQL operations are bounded before execution', () => {
  let t: TestSystem;
  let gpid: string;
  let partnerToken: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_GRAPHQL_MAX_RESPONSE_BYTES: String(MAX_RESPONSE_BYTES) });
    const created = await t.graphql<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Bounded Health", organizationType: "HEALTH_SYSTEM" }) { gpid } }');
    gpid = created.data!.registerPartner.gpid;
    for (const type of ['Patient', 'Observation', 'Encounter']) {
      const job = await t.graphql('mutation($p: ID!, $t: [String!]!) { createSyncJob(partnerGpid: $p, resourceTypes: $t) { jobId } }', { p: gpid, t: [type] });
      expect(job.errors).toBeUndefined();
    }
    const token = await t.graphql<{ createApiToken: { secret: string } }>(
      'mutation($g: ID) { createApiToken(input: { partnerGpid: $g, name: "limits", scopes: ["cms.pipeline.read"] }) { secret } }',
      { g: gpid },
    );
    expect(token.errors).toBeUndefined();
    partnerToken = token.data!.createApiToken.secret;
  });
  afterAll(() => t?.close());

  it('still answers a normal portal query: partners(first: 20) with their sync jobs', async () => {
    const res = await t.graphql<{ partners: { edges: { node: { gpid: string; syncJobs: unknown[] } }[] } }>(
      '{ partners(first: 20) { edges { node { gpid legalName syncJobs { jobId status partner { legalName } } } } } }',
    );
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data!.partners.edges.find((e) => e.node.gpid === gpid)?.node.syncJobs).toHaveLength(3);

    const own = await t.graphql<{ partner: { syncJobs: unknown[] } }>('query($g: ID!) { partner(gpid: $g) { legalName syncJobs { jobId status } } }', { g: gpid }, partnerToken);
    expect(own.errors).toBeUndefined();
    expect(own.data!.partner.syncJobs).toHaveLength(3);
  });

  it('refuses partner { syncJobs { partner { … } } } nested 10 and 50 levels with the depth code, before any subgraph is called', async () => {
    for (const levels of [10, 50]) {
      const before = await queryCount(t, 'pipeline', 'pipeline_sync_jobs');
      const [res, health] = await Promise.all([t.graphql(nestedPartnerQuery(levels), { g: gpid }, partnerToken), t.request({ url: '/health', token: null })]);
      expect(res.status).toBe(400);
      expect(res.data).toBeUndefined();
      expect(codeOf(res)).toBe('OPERATION_TOO_DEEP');
      expect(res.errors![0]!.extensions).toMatchObject({ limit: 10, found: levels * 2 + 2 });
      expect(res.errors![0]!.message).toMatch(/depth .*limit of 10/);
      expect(health.statusCode).toBe(200);
      expect(await queryCount(t, 'pipeline', 'pipeline_sync_jobs')).toBe(before);
    }
    const health = await t.request({ url: '/health', token: null });
    expect(health.statusCode).toBe(200);
  });

  it('refuses the depth attack over GET /graphql too', async () => {
    const query = encodeURIComponent(nestedPartnerQuery(10));
    const variables = encodeURIComponent(JSON.stringify({ g: gpid }));
    const res = await t.request({ url: `/graphql?query=${query}&variables=${variables}`, token: partnerToken, headers: { 'apollo-require-preflight': 'true' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].extensions.code).toBe('OPERATION_TOO_DEEP');
  });

  it('refuses a document nested thousands of levels deep (list, input object, selection sets) before parsing it; brackets in strings and comments do not count', async () => {
    const n = 5000;
    const documents = [
      `{ partners(first: 1, after: ${'['.repeat(n)}1${']'.repeat(n)}) { edges { node { gpid } } } }`,
      `{ partners(first: 1, after: ${'{a: '.repeat(n)}1${'}'.repeat(n)}) { edges { node { gpid } } } }`,
      `{ ${'partners { '.repeat(n)}gpid${' }'.repeat(n)} }`,
    ];
    for (const query of documents) {
      const res = await t.graphql(query, {}, partnerToken);
      expect(res.status).toBe(400);
      expect(codeOf(res)).toBe('OPERATION_TOO_DEEP');
      expect(res.errors![0]!.message).toBe('The document nests selection sets, arguments, lists or input objects more than 256 levels deep.');
      expect(res.errors![0]!.extensions).toMatchObject({ limit: 256 });
    }
    const overGet = await t.request({ url: `/graphql?query=${encodeURIComponent(documents[0]!)}`, token: partnerToken, headers: { 'apollo-require-preflight': 'true' } });
    expect(overGet.statusCode).toBe(400);
    expect(overGet.json().errors[0].extensions.code).toBe('OPERATION_TOO_DEEP');

    // 257 levels are refused, 256 are not (the selection set and the argument list are two of them).
    expect(codeOf(await t.graphql(`{ partners(first: 1, after: ${'['.repeat(255)}"x"${']'.repeat(255)}) { edges { node { gpid } } } }`, {}, partnerToken))).toBe('OPERATION_TOO_DEEP');
    const withinLimit = await t.graphql(`{ partners(first: 1, after: ${'['.repeat(254)}"x"${']'.repeat(254)}) { edges { node { gpid } } } }`, {}, partnerToken);
    expect(codeOf(withinLimit)).toBe('GRAPHQL_VALIDATION_FAILED');
    // Brackets inside a string, a block string and a comment are text, not nesting: the query runs.
    const brackets = '['.repeat(500);
    const texts = await t.graphql(
      `query($g: ID!) {\n  # ${brackets}\n  partner(gpid: $g) { legalName }\n  a: legalDocument(id: "${brackets}\\"${brackets}") { mediaType }\n  b: legalDocument(id: """${brackets} \\""" ${brackets}""") { mediaType }\n}`,
      { g: gpid },
      partnerToken,
    );
    expect(texts.errors).toBeUndefined();
    expect(texts.data).toEqual({ partner: { legalName: 'Bounded Health' }, a: null, b: null });
  });

  it('refuses 1,000 aliases of a cross-subgraph field, and more aliases than the limit with the alias code', async () => {
    const before = await queryCount(t, 'pipeline', 'pipeline_sync_jobs');
    const thousand = await t.graphql(aliases(1000, `partner(gpid: "${gpid}") { syncJobs { jobId } }`), {}, partnerToken);
    expect(thousand.status).toBe(400);
    // A document this long is stopped while parsing already (token limit); a shorter one by the alias limit.
    expect(['TOO_MANY_TOKENS', 'TOO_MANY_ALIASES']).toContain(codeOf(thousand));

    const some = await t.graphql(aliases(31, `partner(gpid: "${gpid}") { syncJobs { jobId } }`), {}, partnerToken);
    expect(some.status).toBe(400);
    expect(codeOf(some)).toBe('TOO_MANY_ALIASES');
    expect(some.errors![0]!.extensions).toMatchObject({ limit: 30, found: 31 });
    expect(await queryCount(t, 'pipeline', 'pipeline_sync_jobs')).toBe(before);

    const allowed = await t.graphql(aliases(30, `partner(gpid: "${gpid}") { gpid }`), {}, partnerToken);
    expect(allowed.errors).toBeUndefined();
  });

  it('refuses anonymous 1,000 aliases of legalDocuments { content }; a legal anonymous query still works', async () => {
    const attack = await t.graphql(aliases(1000, 'legalDocuments { content }'), {}, null);
    expect(attack.status).toBe(400);
    expect(['TOO_MANY_TOKENS', 'TOO_MANY_ALIASES']).toContain(codeOf(attack));
    expect(JSON.stringify(attack).length).toBeLessThan(2000);

    const tokens = await t.graphql(`{ legalDocuments { id ${'title '.repeat(6000)} } }`, {}, null);
    expect(tokens.status).toBe(400);
    expect(codeOf(tokens)).toBe('TOO_MANY_TOKENS');

    const legal = await t.graphql<{ legalDocuments: { id: string; title: string }[] }>('{ legalDocuments { id title } }', {}, null);
    expect(legal.status).toBe(200);
    expect(legal.errors).toBeUndefined();
    expect(legal.data!.legalDocuments.length).toBeGreaterThan(0);
  });

  it('caps the answer: a query whose answer would exceed SVC_GRAPHQL_MAX_RESPONSE_BYTES is refused with its code', async () => {
    const one = await t.request({ method: 'POST', url: '/graphql', token: null, body: { query: '{ legalDocuments { id content } }' } });
    expect(one.statusCode).toBe(200);
    const copies = Math.ceil(MAX_RESPONSE_BYTES / one.body.length) + 1;
    expect(copies).toBeLessThanOrEqual(30);
    const res = await t.graphql(aliases(copies, 'legalDocuments { id content }'), {}, null);
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(codeOf(res)).toBe('RESPONSE_TOO_LARGE');
    expect(res.errors![0]!.extensions).toMatchObject({ limit: MAX_RESPONSE_BYTES });
  });

  it('refuses a page size over the maximum, from a literal or a variable', async () => {
    const literal = await t.graphql('{ partners(first: 101) { edges { node { gpid } } } }');
    expect(literal.status).toBe(400);
    expect(codeOf(literal)).toBe('PAGE_SIZE_TOO_LARGE');
    expect(literal.errors![0]!.extensions).toMatchObject({ limit: 100, field: 'Query.partners', argument: 'first' });
    const variable = await t.graphql('query($n: Int) { events(first: $n) { edges { node { id } } } }', { n: 5000 }, partnerToken);
    expect(variable.status).toBe(400);
    expect(codeOf(variable)).toBe('PAGE_SIZE_TOO_LARGE');
  });

  it('gives each principal class its own cost budget: anonymous < partner < service', async () => {
    // Cross-subgraph hops multiplied by list sizes: over a partner's budget, within an operator's.
    const deepJoin = `query($g: ID!) { partner(gpid: $g) { ${'syncJobs { partner { '.repeat(4)}gpid${' } }'.repeat(4)} } }`;
    const asPartner = await t.graphql(deepJoin, { g: gpid }, partnerToken);
    expect(asPartner.status).toBe(400);
    expect(codeOf(asPartner)).toBe('OPERATION_TOO_COSTLY');
    expect(asPartner.errors![0]!.extensions).toMatchObject({ principalClass: 'partner', limit: 10_000 });
    const asOperator = await t.graphql(deepJoin, { g: gpid });
    expect(asOperator.errors).toBeUndefined();

    const wideLegal = aliases(12, 'legalDocuments { id kind title version fileName sections sectionHeadings summary sha256 byteLength mediaType }');
    const anonymous = await t.graphql(wideLegal, {}, null);
    expect(anonymous.status).toBe(400);
    expect(codeOf(anonymous)).toBe('OPERATION_TOO_COSTLY');
    expect(anonymous.errors![0]!.extensions).toMatchObject({ principalClass: 'anonymous', limit: 1000 });
    const partner = await t.graphql(wideLegal, {}, partnerToken);
    expect(partner.errors).toBeUndefined();

    const operatorTooMuch = await t.graphql(`{ partners(first: 100) { edges { node { ${'syncJobs { partner { '.repeat(3)}gpid${' } }'.repeat(3)} } } } }`);
    expect(operatorTooMuch.status).toBe(400);
    expect(operatorTooMuch.errors![0]!.extensions).toMatchObject({ code: 'OPERATION_TOO_COSTLY', principalClass: 'service' });
  });

  it('a document that passed its checks is checked again for other variables and for another principal class', async () => {
    const pageOf = 'query PageOf($n: Int) { events(first: $n) { edges { node { id } } } }';
    expect((await t.graphql(pageOf, { n: 5 }, partnerToken)).errors).toBeUndefined();
    expect(codeOf(await t.graphql(pageOf, { n: 5000 }, partnerToken))).toBe('PAGE_SIZE_TOO_LARGE');

    const deepJoin = `query DeepJoin($g: ID!) { partner(gpid: $g) { ${'syncJobs { partner { '.repeat(4)}gpid${' } }'.repeat(4)} } }`;
    expect((await t.graphql(deepJoin, { g: gpid })).errors).toBeUndefined();
    const asPartner = await t.graphql(deepJoin, { g: gpid }, partnerToken);
    expect(asPartner.status).toBe(400);
    expect(asPartner.errors![0]!.extensions).toMatchObject({ code: 'OPERATION_TOO_COSTLY', principalClass: 'partner' });
  });

  it('refuses too many directives', async () => {
    const res = await t.graphql(`{ legalDocuments { ${Array.from({ length: 21 }, () => 'id @include(if: true)').join(' ')} } }`, {}, null);
    expect(res.status).toBe(400);
    expect(codeOf(res)).toBe('TOO_MANY_DIRECTIVES');
  });

  it('applies the same limits to graphql-ws operations', async () => {
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    const client = createClient({ url: `${address.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${partnerToken}` }, lazy: false });
    const run = (query: string, variables: Record<string, unknown>) =>
      new Promise<readonly { message: string; extensions?: Record<string, unknown> }[]>((resolve) => {
        client.subscribe({ query, variables }, { next: (value) => value.errors && resolve(value.errors), error: (errors) => resolve(errors as never), complete: () => resolve([]) });
      });
    try {
      const deepSubscription = await run(`subscription { events { partner { ${'syncJobs { partner { '.repeat(10)}gpid${' } }'.repeat(10)} } } }`, {});
      expect(deepSubscription[0]?.extensions?.['code']).toBe('OPERATION_TOO_DEEP');
      const deepQuery = await run(nestedPartnerQuery(10), { g: gpid });
      expect(deepQuery[0]?.extensions?.['code']).toBe('OPERATION_TOO_DEEP');
      const deepLiteral = await run(`query { partners(first: 1, after: ${'['.repeat(5000)}1${']'.repeat(5000)}) { edges { node { gpid } } } }`, {});
      expect(deepLiteral[0]?.extensions).toMatchObject({ code: 'OPERATION_TOO_DEEP', limit: 256 });
      const costly = await run(`query($g: ID!) { partner(gpid: $g) { ${'syncJobs { partner { '.repeat(4)}gpid${' } }'.repeat(4)} } }`, { g: gpid });
      expect(costly[0]?.extensions?.['code']).toBe('OPERATION_TOO_COSTLY');
    } finally {
      await client.dispose();
    }
  });
});

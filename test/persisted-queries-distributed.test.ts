import { createHash, randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { ApolloClient, HttpLink, InMemoryCache, gql, type DocumentNode } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { TEST_REDIS_URL, USE_POSTGRES } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { foreignSubgraph } from './support/foreign-subgraph.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A small subgraph the gateways front (SVC_SUPERGRAPH): what is under test is the gateways' shared APQ store. */
function catalogSubgraph(): { server: Server; sdl: string } {
  return foreignSubgraph(
    'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"]) type Query { item(n: Int!): Item } type Item @key(fields: "n") { n: Int! label: String! }',
    { Query: { item: (_: unknown, args: { n: number }) => ({ n: args.n, label: `item ${args.n}` }) } },
  );
}

/**
 * Automatic persisted queries behind two gateway replicas (two SVC_ROLE=gateway processes) that
 * share Redis, with Apollo Client's persisted-query link: a hash registered through one is known to
 * the other. Runs in the PostgreSQL + Redis pass of the suite, beside the other distributed tests.
 */
describe.runIf(USE_POSTGRES)('APQ shared by two gateway replicas through Redis', () => {
  let subgraph: Server;
  const gateways: ServiceProcess[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'svc-apq-'));
  const prefix = `apq${randomBytes(4).toString('hex')}`;
  const redis = new Redis(TEST_REDIS_URL);
  /** Every request body a client sent, in order. */
  const sent: Record<string, unknown>[] = [];

  const clientOf = (gateway: ServiceProcess) =>
    new ApolloClient({
      cache: new InMemoryCache(),
      link: new PersistedQueryLink({ sha256 }).concat(
        new HttpLink({
          uri: `${gateway.url}/graphql`,
          fetch: (input, init) => {
            sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
            return fetch(input, init);
          },
        }),
      ),
    });
  const itemQuery = (n: number): DocumentNode => gql(`query Item${n} { item(n: ${n}) { n label } }`);
  /** How each request of one client call named its document: by hash alone, or with its text. */
  const shapes = () => sent.splice(0).map((b) => (typeof b['query'] === 'string' ? 'text' : 'hash'));

  beforeAll(async () => {
    const catalog = catalogSubgraph();
    subgraph = catalog.server;
    await new Promise<void>((resolve) => subgraph.listen(0, '127.0.0.1', resolve));
    writeFileSync(join(dir, 'catalog.graphql'), catalog.sdl);
    writeFileSync(join(dir, 'supergraph.yaml'), `federation_version: =2.6.0\nsubgraphs:\n  catalog:\n    routing_url: http://127.0.0.1:${(subgraph.address() as AddressInfo).port}/graphql\n    schema:\n      file: ./catalog.graphql\n`);
    const env = {
      SVC_SUPERGRAPH: join(dir, 'supergraph.yaml'),
      SVC_DATA_DIR: dir,
      SVC_REDIS_URL: TEST_REDIS_URL,
      SVC_REDIS_PREFIX: prefix,
      SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'),
      SVC_GRAPHQL_APQ_MAX_ENTRIES: '2',
      SVC_GRAPHQL_APQ_TTL_SECONDS: '600',
    };
    gateways.push(...(await Promise.all([startProcess('gateway', env), startProcess('gateway', env)])));
    await Promise.all(gateways.map((g) => waitUntilReady(g)));
  }, 300_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    subgraph?.close();
    const keys = await redis.keys(`${prefix}:apq:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a miss registers the text through one replica; the other then answers the hash alone', async () => {
    const [one, two] = gateways as [ServiceProcess, ServiceProcess];
    const first = await clientOf(one).query({ query: itemQuery(1), fetchPolicy: 'no-cache' });
    expect(first.data).toEqual({ item: { __typename: 'Item', n: 1, label: 'item 1' } });
    expect(shapes()).toEqual(['hash', 'text']);

    const second = await clientOf(two).query({ query: itemQuery(1), fetchPolicy: 'no-cache' });
    expect(second.data).toEqual(first.data);
    expect(shapes()).toEqual(['hash']);

    // The entry is namespaced by SVC_REDIS_PREFIX and expires (SVC_GRAPHQL_APQ_TTL_SECONDS, renewed on each hit).
    const [key] = await redis.keys(`${prefix}:apq:doc:*`);
    expect(key).toBeDefined();
    const ttl = await redis.ttl(key!);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(600);
  });

  it('keeps at most SVC_GRAPHQL_APQ_MAX_ENTRIES documents, the least recently used leaving first', async () => {
    const [one, two] = gateways as [ServiceProcess, ServiceProcess];
    await clientOf(one).query({ query: itemQuery(2), fetchPolicy: 'no-cache' });
    await clientOf(one).query({ query: itemQuery(3), fetchPolicy: 'no-cache' });
    shapes();
    expect(await redis.zcard(`${prefix}:apq:index`)).toBe(2);
    // Item1 was the least recently used: the other replica misses it now, and the link sends its text again.
    await clientOf(two).query({ query: itemQuery(1), fetchPolicy: 'no-cache' });
    expect(shapes()).toEqual(['hash', 'text']);
    await clientOf(two).query({ query: itemQuery(3), fetchPolicy: 'no-cache' });
    expect(shapes()).toEqual(['hash']);
  });

  it('refuses a hash that is not the SHA-256 of its text, and stores nothing for it', async () => {
    const text = 'query Wrong { item(n: 9) { n } }';
    const wrongHash = sha256('query Other { item(n: 9) { n } }');
    const res = await fetch(`${gateways[1]!.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: text, extensions: { persistedQuery: { version: 1, sha256Hash: wrongHash } } }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ errors: [{ extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', field: 'extensions.persistedQuery.sha256Hash' } }] });
    const missing = await fetch(`${gateways[0]!.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: wrongHash } } }) });
    expect(await missing.json()).toMatchObject({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
  });
});

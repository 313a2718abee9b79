import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { execute, parse } from 'graphql';
import { ConfigError, loadConfig } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * A foreign subgraph that counts the requests it receives and holds every answer until the test
 * lets them go, so that the gateway's requests are all in flight at once.
 */
function stockSubgraph() {
  const schema = buildSubgraphSchema({
    typeDefs: parse(
      'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"]) type Query { stock(sku: String!): Stock } type Mutation { restock(sku: String!): Stock } type Stock @key(fields: "sku") { sku: String! level: Int! }',
    ),
    resolvers: {
      Query: { stock: (_: unknown, args: Record<string, unknown>) => ({ sku: args['sku'], level: 7 }) },
      Mutation: { restock: (_: unknown, args: Record<string, unknown>) => ({ sku: args['sku'], level: 8 }) },
    },
  });
  const state = { received: 0, held: [] as (() => void)[], hold: false, drop: false };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      state.received++;
      const answer = async () => {
        if (state.drop) {
          req.socket.destroy();
          return;
        }
        const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
        const result = await execute({ schema, document: parse(query), variableValues: variables });
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
      };
      if (state.hold) state.held.push(() => void answer());
      else void answer();
    });
  });
  const release = () => {
    state.hold = false;
    for (const go of state.held.splice(0)) go();
  };
  return { server, state, release, sdl: printSubgraphSchema(schema) };
}

const waitFor = async (condition: () => boolean) => {
  const deadline = Date.now() + PATIENCE_MS;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  expect(condition()).toBe(true);
};

describe('identical subgraph queries in flight share one request (SVC_GATEWAY_DEDUPLICATE_QUERIES)', () => {
  const subgraph = stockSubgraph();
  const dir = mkdtempSync(join(tmpdir(), 'svc-dedupe-'));
  let deduplicating: RunningSystem;
  let plain: RunningSystem;

  const gatewayWith = (env: Record<string, string>) =>
    startSystem(loadConfig({ SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'supergraph.yaml'), SVC_LOG_LEVEL: 'silent', SVC_DATA_DIR: dir, SVC_RATE_LIMITS: 'off', ...env }));
  const post = (system: RunningSystem, query: string, variables?: Record<string, unknown>) =>
    system.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query, variables } });
  /** Send `count` copies of each request at once while the subgraph holds its answers; count what reached it. */
  const together = async (system: RunningSystem, requests: { query: string; variables?: Record<string, unknown> }[], expectedAtSubgraph: number) => {
    subgraph.state.received = 0;
    subgraph.state.hold = true;
    const answers = Promise.all(requests.map((r) => post(system, r.query, r.variables)));
    await waitFor(() => subgraph.state.received >= expectedAtSubgraph);
    // Every request had its plan cached by a warm-up, so the others reach the gateway's client at
    // once; the hold lasts long enough for any straggler to arrive before the answer does.
    await new Promise((r) => setTimeout(r, 300));
    const received = subgraph.state.received;
    subgraph.release();
    return { received, answers: await answers };
  };

  beforeAll(async () => {
    await new Promise<void>((resolve) => subgraph.server.listen(0, '127.0.0.1', resolve));
    const port = (subgraph.server.address() as AddressInfo).port;
    writeFileSync(join(dir, 'stock.graphql'), subgraph.sdl);
    writeFileSync(join(dir, 'supergraph.yaml'), `federation_version: =2.6.0\nsubgraphs:\n  stock:\n    routing_url: http://127.0.0.1:${port}/graphql\n    schema:\n      file: ./stock.graphql\n`);
    deduplicating = await gatewayWith({ SVC_GATEWAY_DEDUPLICATE_QUERIES: 'stock' });
    plain = await gatewayWith({});
    // Plans cached, connections open.
    for (const system of [deduplicating, plain]) {
      await post(system, 'query Stock($sku: String!) { stock(sku: $sku) { sku level } }', { sku: 'warm' });
      await post(system, 'mutation Restock($sku: String!) { restock(sku: $sku) { sku level } }', { sku: 'warm' });
    }
  });
  afterAll(async () => {
    subgraph.release();
    await deduplicating?.stop();
    await plain?.stop();
    subgraph.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const STOCK = 'query Stock($sku: String!) { stock(sku: $sku) { sku level } }';

  it('sends one request for identical queries in flight, and every caller gets the whole answer', async () => {
    const { received, answers } = await together(
      deduplicating,
      [...Array.from({ length: 4 }, () => ({ query: STOCK, variables: { sku: 'A-1' } })), ...Array.from({ length: 3 }, () => ({ query: STOCK, variables: { sku: 'B-2' } }))],
      2,
    );
    expect(received).toBe(2);
    expect(answers.map((a) => a.json())).toEqual([
      ...Array.from({ length: 4 }, () => ({ data: { stock: { sku: 'A-1', level: 7 } } })),
      ...Array.from({ length: 3 }, () => ({ data: { stock: { sku: 'B-2', level: 7 } } })),
    ]);
  });

  it('keeps nothing once the answer is in: the next identical query is sent again', async () => {
    subgraph.state.received = 0;
    expect((await post(deduplicating, STOCK, { sku: 'A-1' })).json()).toEqual({ data: { stock: { sku: 'A-1', level: 7 } } });
    expect((await post(deduplicating, STOCK, { sku: 'A-1' })).json()).toEqual({ data: { stock: { sku: 'A-1', level: 7 } } });
    expect(subgraph.state.received).toBe(2);
  });

  it('never shares a mutation', async () => {
    const RESTOCK = 'mutation Restock($sku: String!) { restock(sku: $sku) { sku level } }';
    const { received, answers } = await together(deduplicating, Array.from({ length: 3 }, () => ({ query: RESTOCK, variables: { sku: 'A-1' } })), 3);
    expect(received).toBe(3);
    for (const a of answers) expect(a.json()).toEqual({ data: { restock: { sku: 'A-1', level: 8 } } });
  });

  it('shares nothing for a subgraph not listed (the default)', async () => {
    const { received } = await together(plain, Array.from({ length: 3 }, () => ({ query: STOCK, variables: { sku: 'A-1' } })), 3);
    expect(received).toBe(3);
  });

  it('gives every caller sharing a request that failed the same 503', async () => {
    subgraph.state.drop = true;
    try {
      const { received, answers } = await together(deduplicating, Array.from({ length: 3 }, () => ({ query: STOCK, variables: { sku: 'C-3' } })), 1);
      expect(received).toBe(1);
      for (const a of answers) {
        expect(a.statusCode).toBe(503);
        expect(a.json().errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
      }
    } finally {
      subgraph.state.drop = false;
    }
  });

  it('refuses to share the queries of a subgraph of this platform, and starts with `all` (which leaves ours out)', async () => {
    // The same subgraph, named and reached like our partner subgraph (it then gets our signed principal).
    const port = (subgraph.server.address() as AddressInfo).port;
    writeFileSync(join(dir, 'ours.yaml'), `federation_version: =2.6.0\nsubgraphs:\n  partner:\n    routing_url: http://127.0.0.1:${port}/graphql\n    schema:\n      file: ./stock.graphql\n`);
    const asOurs = { SVC_SUPERGRAPH: join(dir, 'ours.yaml'), SVC_SUBGRAPH_PARTNER_URL: `http://127.0.0.1:${port}/graphql`, SVC_INTERNAL_SECRET: 'dedupe-test-shared-secret-0123456789abcdef' };
    await expect(gatewayWith({ ...asOurs, SVC_GATEWAY_DEDUPLICATE_QUERIES: 'partner' })).rejects.toThrow(/names subgraphs of this platform, whose queries may record themselves and must each reach them: partner/);
    const all = await gatewayWith({ ...asOurs, SVC_GATEWAY_DEDUPLICATE_QUERIES: 'all' });
    try {
      expect((await post(all, STOCK, { sku: 'A-1' })).json()).toEqual({ data: { stock: { sku: 'A-1', level: 7 } } });
    } finally {
      await all.stop();
    }
  });

  it('refuses a malformed list, or a subgraph the supergraph does not have, at start, naming the variable', async () => {
    expect(() => loadConfig({ SVC_GATEWAY_DEDUPLICATE_QUERIES: 'stock, ;drop' })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_GATEWAY_DEDUPLICATE_QUERIES: 'stock, ;drop' })).toThrow(/SVC_GATEWAY_DEDUPLICATE_QUERIES/);
    await expect(gatewayWith({ SVC_GATEWAY_DEDUPLICATE_QUERIES: 'stock,stokc' })).rejects.toThrow(/SVC_GATEWAY_DEDUPLICATE_QUERIES names subgraphs the supergraph does not have: stokc/);
  });
});

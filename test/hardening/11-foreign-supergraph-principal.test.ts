import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { execute, parse } from 'graphql';
import { ConfigError, INTERNAL_PRINCIPAL_HEADER, loadConfig, verifyPrincipal } from '@svc/platform';
import { startSystem, type RunningSystem } from '../../system.js';

const SECRET = 'gateway-internal-secret-for-this-test-0123456789';

/** A subgraph over HTTP that records the headers of every request it receives. */
async function recordingSubgraph(typeDefs: string, resolvers: Record<string, Record<string, unknown>>) {
  const schema = buildSubgraphSchema({ typeDefs: parse(typeDefs), resolvers: resolvers as never });
  const received: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', async () => {
      received.push(req.headers);
      const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
      const result = await execute({ schema, document: parse(query), variableValues: variables });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, received, sdl: printSubgraphSchema(schema), url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql` };
}

const LINK = 'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"])';

describe('a gateway fronting a foreign supergraph sends our signed principal to none of its subgraphs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-foreign-principal-'));
  let foreign: Awaited<ReturnType<typeof recordingSubgraph>>;
  let own: Awaited<ReturnType<typeof recordingSubgraph>>;
  const systems: RunningSystem[] = [];

  beforeAll(async () => {
    // Someone else's subgraph, named like one of ours on purpose: the name alone makes nothing ours.
    foreign = await recordingSubgraph(`${LINK} type Query { forecast(city: String!): String! }`, { Query: { forecast: () => 'clear' } });
    // A stand-in for one of our subgraphs, declared ours with SVC_SUBGRAPH_PIPELINE_URL.
    own = await recordingSubgraph(`${LINK} type Query { jobsToday: Int! }`, { Query: { jobsToday: () => 3 } });
    writeFileSync(join(dir, 'partner.graphql'), foreign.sdl);
    writeFileSync(join(dir, 'pipeline.graphql'), own.sdl);
    writeFileSync(join(dir, 'foreign.yaml'), `federation_version: =2.6.0\nsubgraphs:\n  partner:\n    routing_url: ${foreign.url}\n    schema:\n      file: ./partner.graphql\n`);
    writeFileSync(
      join(dir, 'mixed.yaml'),
      `federation_version: =2.6.0\nsubgraphs:\n  partner:\n    routing_url: ${foreign.url}\n    schema:\n      file: ./partner.graphql\n  pipeline:\n    routing_url: http://127.0.0.1:9/unused\n    schema:\n      file: ./pipeline.graphql\n`,
    );
  });
  afterAll(async () => {
    for (const s of systems) await s.stop();
    foreign?.server.close();
    own?.server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>): Promise<RunningSystem> {
    const system = await startSystem(loadConfig({ SVC_ROLE: 'gateway', SVC_LOG_LEVEL: 'silent', SVC_DATA_DIR: dir, ...env }));
    systems.push(system);
    await system.app.ready();
    return system;
  }

  it('starts without SVC_INTERNAL_SECRET and reaches the foreign subgraph with no principal header, anonymously', async () => {
    const gateway = await start({ SVC_SUPERGRAPH: join(dir, 'foreign.yaml') });
    foreign.received.length = 0;
    const res = await gateway.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: '{ forecast(city: "Porto") }' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { forecast: 'clear' } });
    expect(foreign.received).toHaveLength(1);
    expect(foreign.received[0]![INTERNAL_PRINCIPAL_HEADER]).toBeUndefined();
    expect(foreign.received[0]!['authorization']).toBeUndefined();
  });

  it('never sends a credential lookup to a foreign subgraph named like ours', async () => {
    const gateway = await start({ SVC_SUPERGRAPH: join(dir, 'foreign.yaml') });
    foreign.received.length = 0;
    const res = await gateway.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', authorization: 'Bearer svc_pat_not-for-third-parties' }, payload: { query: '{ forecast(city: "Porto") }' } });
    expect(res.statusCode).toBe(503);
    expect(res.json().errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(foreign.received).toEqual([]);
  });

  it('in a mixed supergraph, signs the principal for the subgraphs declared ours only', async () => {
    const gateway = await start({ SVC_SUPERGRAPH: join(dir, 'mixed.yaml'), SVC_SUBGRAPH_PIPELINE_URL: own.url, SVC_INTERNAL_SECRET: SECRET });
    foreign.received.length = 0;
    own.received.length = 0;
    const res = await gateway.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: '{ forecast(city: "Faro") jobsToday }' } });
    expect(res.json()).toEqual({ data: { forecast: 'clear', jobsToday: 3 } });
    expect(foreign.received[0]![INTERNAL_PRINCIPAL_HEADER]).toBeUndefined();
    const signed = own.received[0]![INTERNAL_PRINCIPAL_HEADER];
    expect(typeof signed).toBe('string');
    expect((await verifyPrincipal(String(signed), SECRET)).kind).toBe('anonymous');
  });

  it('still demands SVC_INTERNAL_SECRET as soon as one of our subgraphs is behind the gateway', () => {
    expect(() => loadConfig({ SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'mixed.yaml'), SVC_SUBGRAPH_PIPELINE_URL: own.url })).toThrow(ConfigError);
    expect(() => loadConfig({ SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'mixed.yaml'), SVC_SUBGRAPH_PIPELINE_URL: own.url })).toThrow(/SVC_INTERNAL_SECRET is required/);
    expect(() => loadConfig({ SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'foreign.yaml') })).not.toThrow();
  });

  it('answers what the HTTP layer refuses as problem documents on this plain gateway component too', async () => {
    const gateway = systems[0]!;
    const badJson = await gateway.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: '{"query":' });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(badJson.json()).toMatchObject({ code: 'BAD_REQUEST', request_id: badJson.headers['x-request-id'] });
    const badUrl = await gateway.app.inject({ url: '/graphql/%E0%A4%A' });
    expect(badUrl.statusCode).toBe(400);
    expect(badUrl.headers['content-type']).toMatch(/^application\/problem\+json/);
    const token = await gateway.app.inject({ url: '/graphql?access_token=abc&query=%7B__typename%7D' });
    expect(token.statusCode).toBe(400);
    expect(token.json().errors).toEqual([expect.objectContaining({ field: 'access_token' })]);
  });
});

import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { execute, parse } from 'graphql';
import { ANONYMOUS, INTERNAL_PRINCIPAL_HEADER, loadConfig, verifyPrincipal, type Principal } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';

const SECRET = 'foreign-supergraph-shared-secret-0123456789';

/** Someone else's subgraph: it says who called (anonymous when no principal is sent, as our gateway sends none to it). */
function weatherSubgraph() {
  const schema = buildSubgraphSchema({
    typeDefs: parse('extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"]) type Query { forecast(city: String!): Forecast } type Forecast @key(fields: "city") { city: String! sky: String! caller: String! }'),
    resolvers: { Query: { forecast: (_: unknown, args: Record<string, unknown>, ctx: unknown) => ({ city: args['city'], sky: 'clear', caller: (ctx as { principal: Principal }).principal.kind }) } },
  });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', async () => {
      const header = req.headers[INTERNAL_PRINCIPAL_HEADER];
      let principal: Principal = ANONYMOUS;
      if (header !== undefined) {
        try {
          principal = await verifyPrincipal(String(header), SECRET);
        } catch {
          res.writeHead(401).end();
          return;
        }
      }
      let request: { query: string; variables?: Record<string, unknown> };
      try {
        request = JSON.parse(body) as typeof request;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const { query, variables } = request;
      const result = await execute({ schema, document: parse(query), variableValues: variables, contextValue: { principal } });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    });
  });
  return { server, sdl: printSubgraphSchema(schema) };
}

describe('the gateway component fronting another supergraph (SVC_SUPERGRAPH)', () => {
  let external: Server;
  let system: RunningSystem;
  const dir = mkdtempSync(join(tmpdir(), 'svc-foreign-'));

  beforeAll(async () => {
    const weather = weatherSubgraph();
    external = weather.server;
    await new Promise<void>((resolve) => external.listen(0, '127.0.0.1', resolve));
    const port = (external.address() as AddressInfo).port;
    writeFileSync(join(dir, 'weather.graphql'), weather.sdl);
    writeFileSync(
      join(dir, 'supergraph.yaml'),
      `federation_version: =2.6.0\nsubgraphs:\n  weather:\n    routing_url: http://127.0.0.1:${port}/graphql\n    schema:\n      file: ./weather.graphql\n`,
    );
    const config = loadConfig({ SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'supergraph.yaml'), SVC_INTERNAL_SECRET: SECRET, SVC_LOG_LEVEL: 'silent', SVC_DATA_DIR: dir });
    system = await startSystem(config);
    await system.app.ready();
  });
  afterAll(async () => {
    await system?.stop();
    external?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves that graph, reaching its subgraph as an anonymous principal when no credential is sent', async () => {
    const res = await system.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, payload: { query: '{ forecast(city: "Lisbon") { city sky caller } }' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { forecast: { city: 'Lisbon', sky: 'clear', caller: 'anonymous' } } });
  });

  it('is ready once the supergraph is loaded', async () => {
    const res = await system.app.inject({ url: '/ready' });
    expect(res.json()).toEqual({ status: 'ready', checks: { supergraph: true, 'subgraph:weather': true, load: true } });
  });

  it('refuses bearer tokens it has no partner registry to verify, with a clear error', async () => {
    const res = await system.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', authorization: 'Bearer x' }, payload: { query: '{ forecast(city: "Oslo") { sky } }' } });
    expect(res.statusCode).toBe(503);
    expect(res.json().errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
  });
});

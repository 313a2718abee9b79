import { createServer, type Server } from 'node:http';
import { buildSubgraphSchema, printSubgraphSchema } from '@apollo/subgraph';
import { execute, parse } from 'graphql';

type Resolvers = NonNullable<Extract<Parameters<typeof buildSubgraphSchema>[0], { resolvers?: unknown }>['resolvers']>;

/**
 * Someone else's small subgraph over plain HTTP (not yet listening): what a test of the gateway
 * fronts through `SVC_SUPERGRAPH`. Answers POSTed operations; the gateways' readiness probe is a
 * bare GET, and any answer below 500 means the subgraph is up.
 */
export function foreignSubgraph(typeDefs: string, resolvers: Resolvers): { server: Server; sdl: string } {
  const schema = buildSubgraphSchema({ typeDefs: parse(typeDefs), resolvers });
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', async () => {
      if (req.method !== 'POST') return void res.writeHead(405).end();
      const { query, variables } = JSON.parse(body) as { query: string; variables?: Record<string, unknown> };
      const result = await execute({ schema, document: parse(query), variableValues: variables });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    });
  });
  return { server, sdl: printSubgraphSchema(schema) };
}

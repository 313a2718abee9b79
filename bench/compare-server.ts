/**
 * One server of the gateway comparison, in its own process so that no two servers, nor the load
 * generator, share an event loop:
 *
 *   compare-server.ts subgraph <partners|pipeline>   a minimal Apollo subgraph (bench/minimal-subgraphs.ts)
 *   compare-server.ts stock <supergraph.graphql>     stock @apollo/gateway in stock @apollo/server
 *
 * It tells its parent where it listens (`{ url }` over IPC) and stops on `{ kind: 'exit' }`.
 */
import { readFileSync } from 'node:fs';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloGateway } from '@apollo/gateway';
import { startMinimalSubgraph, type MinimalSubgraphName } from './minimal-subgraphs.js';

async function start(kind: string | undefined, arg: string | undefined): Promise<{ url: string; stop(): Promise<void> }> {
  if (kind === 'subgraph' && (arg === 'partners' || arg === 'pipeline')) return startMinimalSubgraph(arg satisfies MinimalSubgraphName);
  if (kind === 'stock' && arg) {
    // Stock settings throughout: the gateway's own query-plan cache, Apollo Server's defaults.
    const server = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl: readFileSync(arg, 'utf8') }) });
    const { url } = await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: 0 } });
    return { url, stop: () => server.stop() };
  }
  throw new Error(`usage: compare-server.ts subgraph <partners|pipeline> | stock <supergraph file> (got ${kind} ${arg})`);
}

start(process.argv[2], process.argv[3]).then(
  (server) => {
    process.send?.({ url: server.url });
    process.on('message', (message: { kind?: string }) => {
      if (message.kind === 'exit') void server.stop().finally(() => process.exit(0));
    });
  },
  (err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);

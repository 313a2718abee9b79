/**
 * Hive Gateway (@graphql-hive/gateway-runtime, stock settings) over a supergraph file, one server
 * of the gateway comparison (bench/gateway-compare.ts), in its own process:
 *
 *   node bench/hive-gateway/server.mjs <supergraph.graphql> <share|no-share>
 *
 * Plain JavaScript on purpose: its packages live in this folder's own node_modules (installed by
 * the bench on first use, `npm ci --prefix bench/hive-gateway`), never in the service's, so the
 * service's type check does not see it.
 *
 * Stock settings, with one exception for the headline rows: Hive's HTTP transport shares
 * identical in-flight subgraph requests by default (`deduplicateInflightRequests` of
 * @graphql-tools/executor-http). `no-share` turns that off so that every gateway of the headline
 * rows makes one subgraph request per fetch of every request; `share` keeps Hive's default.
 * Logging is off, as it is (at `warn`) for ours.
 *
 * It tells its parent where it listens (`{ url }` over IPC) and stops on `{ kind: 'exit' }`.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createGatewayRuntime } from '@graphql-hive/gateway-runtime';

const [file, sharing] = process.argv.slice(2);
if (!file || (sharing !== 'share' && sharing !== 'no-share')) {
  process.stderr.write('usage: node bench/hive-gateway/server.mjs <supergraph file> <share|no-share>\n');
  process.exit(2);
}
const sdl = readFileSync(file, 'utf8');

const gateway = createGatewayRuntime({
  supergraph: () => sdl,
  logging: false,
  ...(sharing === 'no-share' ? { transportEntries: { '*.http': { options: { deduplicateInflightRequests: false } } } } : {}),
});
const server = createServer(gateway);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({ url: `http://127.0.0.1:${address.port}/graphql` });
});
process.on('message', (message) => {
  if (message?.kind === 'exit') {
    server.close();
    void Promise.resolve(gateway.dispose?.()).finally(() => process.exit(0));
  }
});

/**
 * Stock @apollo/gateway in stock @apollo/server, as bench/compare-server.ts runs it, for the
 * federation audit: `tsx bench/federation-audit/stock-gateway.ts <supergraph file> <port> <health port>`.
 * The standalone server answers GraphQL on every path, so the audit's health check gets its own
 * listener, opened once the supergraph is loaded.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { ApolloServer } from '@apollo/server';
import { startStandaloneServer } from '@apollo/server/standalone';
import { ApolloGateway } from '@apollo/gateway';

const [file, port, healthPort] = process.argv.slice(2);
if (!file || !port || !healthPort) throw new Error('usage: stock-gateway.ts <supergraph file> <port> <health port>');
const server = new ApolloServer({ gateway: new ApolloGateway({ supergraphSdl: readFileSync(file, 'utf8') }) });
await startStandaloneServer(server, { listen: { host: '127.0.0.1', port: Number(port) } });
const health = createServer((_, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('OK'));
await new Promise<void>((resolve) => health.listen(Number(healthPort), '127.0.0.1', resolve));
const stop = () => {
  health.close();
  void server.stop().finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 3000).unref();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);

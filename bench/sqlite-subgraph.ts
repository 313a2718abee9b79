/**
 * One of our subgraphs on its own HTTP server over the embedded system's SQLite file, for
 * `npm run bench -- --suite subgraphs`: the distributed roles (`SVC_ROLE=subgraph:<name>`) need
 * PostgreSQL, so this hosts the subgraph as bench/run.ts's "Partner subgraph, direct" row does
 * (the subgraph's own `create`, `start` and the distributed mode's `subgraphHttpServer`), in a
 * process of its own so that its CPU time can be read from /proc.
 *
 *   node --import tsx bench/sqlite-subgraph.ts <partner|identity|fhir|pipeline>
 *
 * Settings come from the environment as for `npm start` (SVC_DATA_DIR, SVC_INTERNAL_SECRET, …;
 * SVC_ROLE is `all`, the embedded default, so the SQLite files are the system's own). It serves
 * `/graphql` and `/metrics` (the statement counter `svc_db_queries_total`), and prints
 * `listening <port>` on stdout when ready.
 */
import type { FastifyInstance } from 'fastify';
import { createLogger, createMetrics, loadConfig, MemoryEventBus, subgraphHttpServer } from '@svc/platform';
import { SUBGRAPHS } from '@svc/gateway';

const name = process.argv[2];
const definition = SUBGRAPHS.find((s) => s.name === name);
if (!definition) throw new Error(`usage: sqlite-subgraph.ts <${SUBGRAPHS.map((s) => s.name).join('|')}> (got "${name}")`);

const config = loadConfig({ ...process.env, SVC_ROLE: 'all' });
if (config.databaseUrl) throw new Error('sqlite-subgraph.ts serves the embedded SQLite files: leave SVC_DATABASE_URL unset');
const logger = createLogger(config);
const metrics = createMetrics();
const subgraph = await definition.create({ config, logger, bus: new MemoryEventBus(), metrics });
await subgraph.start();
const app = subgraphHttpServer(subgraph, config.internalSecret, logger);
(app as unknown as FastifyInstance).get('/metrics', async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => subgraph.stop())
    .finally(() => process.exit(0));
});

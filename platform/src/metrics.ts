import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { knexOf, type Orm } from './db/database.js';

/** One registry per running system, exposed at /metrics in the Prometheus text format. */
export interface Metrics {
  registry: Registry;
  dbQueries: Counter<'owner' | 'table' | 'verb'>;
  httpRequests: Histogram<'component' | 'route' | 'method' | 'status'>;
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  return {
    registry,
    dbQueries: new Counter({
      name: 'svc_db_queries_total',
      help: 'SQL statements sent to the database, by owner, first table and verb.',
      labelNames: ['owner', 'table', 'verb'],
      registers: [registry],
    }),
    httpRequests: new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request duration by component, route template, method and status.',
      labelNames: ['component', 'route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

const TABLE = /\b(?:from|into|update|join)\s+[`"]?([a-z0-9_]+)[`"]?/i;

/** Count every statement an owner's ORM sends, so batching is observable from outside. */
export function countQueries(orm: Orm, owner: string, metrics: Metrics): void {
  const knex = knexOf(orm);
  knex.on('query', (data: { sql?: string }) => {
    const sql = data.sql ?? '';
    const verb = (sql.trimStart().split(/\s+/, 1)[0] ?? '').toLowerCase();
    metrics.dbQueries.inc({ owner, table: TABLE.exec(sql)?.[1] ?? '', verb });
  });
}

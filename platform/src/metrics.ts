import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { knexOf, type Orm } from './db/database.js';
import type { ConsumerLag } from './events/stream.js';

/** One registry per running system, exposed at /metrics in the Prometheus text format. */
export interface Metrics {
  registry: Registry;
  dbQueries: Counter<'owner' | 'table' | 'verb'>;
  httpRequests: Histogram<'component' | 'route' | 'method' | 'status'>;
  /** Outbox rows an outbox relay handed to the event stream, by owner. */
  eventsRelayed: Counter<'owner'>;
  /**
   * Outbox rows handed to the stream that it already held: appended by a relay that died (or lost
   * its claim) before marking them published, and relayed again. The stream recognizes them and
   * does not append them a second time. Zero while nothing fails.
   */
  eventsRelayedAgain: Counter<'owner'>;
  /** Calls answered by a job thread (request work run off the event loop), by thread, call and outcome. */
  jobThreadCalls: Histogram<'thread' | 'call' | 'outcome'>;
  /** Job threads that ended without being asked to (a crash, an out-of-memory abort) and were started again. */
  jobThreadRestarts: Counter<'thread'>;
  /** Public GraphQL operations that are none of the trusted documents, run (mode `allow`) or refused (`require`), by principal class. */
  untrustedDocuments: Counter<'principal_class' | 'outcome'>;
  /** GraphQL POSTs answered by the gateway's fast path (gateway/src/fast-path.ts). */
  gatewayFastPath: Counter;
  /** GraphQL subscriptions open at the gateway, over graphql-ws and Server-Sent Events. */
  graphqlSubscribers: Gauge;
  /**
   * The durable event consumers this process runs, by name: how far each is behind (read at every
   * scrape into `svc_event_consumer_lag_events` and `svc_event_consumer_oldest_age_seconds`).
   */
  eventConsumers: Map<string, () => Promise<ConsumerLag>>;
}

/** How long a scrape waits for one consumer's lag (an unreachable broker leaves it out of the scrape). */
const LAG_SCRAPE_TIMEOUT_MS = 2_000;

async function lagsOf(consumers: Map<string, () => Promise<ConsumerLag>>): Promise<ConsumerLag[]> {
  const read = [...consumers.values()].map((lag) =>
    Promise.race([lag().catch(() => null), new Promise<null>((resolve) => setTimeout(() => resolve(null), LAG_SCRAPE_TIMEOUT_MS).unref())]),
  );
  return (await Promise.all(read)).filter((lag): lag is ConsumerLag => lag !== null);
}

export function createMetrics(options: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry });
  const eventConsumers = new Map<string, () => Promise<ConsumerLag>>();
  // One read of the consumers' lags serves both gauges of a scrape.
  let reading: Promise<ConsumerLag[]> | undefined;
  const lags = () => {
    reading ??= lagsOf(eventConsumers).finally(() => setTimeout(() => (reading = undefined), 0));
    return reading;
  };
  new Gauge({
    name: 'svc_event_consumer_lag_events',
    help: 'Events appended to the durable stream that a durable consumer run by this process has not acknowledged yet, by consumer (0: caught up). Read from the stream at each scrape.',
    labelNames: ['consumer'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const lag of await lags()) if (lag.unacknowledged !== null) this.set({ consumer: lag.consumer }, lag.unacknowledged);
    },
  });
  new Gauge({
    name: 'svc_event_consumer_oldest_age_seconds',
    help: 'Age of the oldest event a durable consumer run by this process has not acknowledged, by consumer (0 when caught up).',
    labelNames: ['consumer'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const lag of await lags()) this.set({ consumer: lag.consumer }, (lag.oldestAgeMs ?? 0) / 1000);
    },
  });
  return {
    registry,
    eventConsumers,
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
    eventsRelayed: new Counter({
      name: 'svc_outbox_events_relayed_total',
      help: 'Outbox rows handed to the event stream by this process, by owner.',
      labelNames: ['owner'],
      registers: [registry],
    }),
    eventsRelayedAgain: new Counter({
      name: 'svc_outbox_events_relayed_again_total',
      help: 'Outbox rows relayed again after a relay died or lost its claim between appending and marking them published; the stream already held them and did not append them twice.',
      labelNames: ['owner'],
      registers: [registry],
    }),
    jobThreadCalls: new Histogram({
      name: 'svc_job_thread_call_duration_seconds',
      help: 'Request work handed to a job thread (parsing and storing an X12 interchange, checking an NDJSON push, training a model), from the call to its answer, by thread, call and outcome (ok, error, unavailable).',
      labelNames: ['thread', 'call', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    jobThreadRestarts: new Counter({
      name: 'svc_job_thread_restarts_total',
      help: 'Job threads that ended without being asked to and were started again, by thread.',
      labelNames: ['thread'],
      registers: [registry],
    }),
    untrustedDocuments: new Counter({
      name: 'svc_graphql_untrusted_documents_total',
      help: 'Operations on the public /graphql that are none of the trusted documents, by principal class and outcome (run under SVC_GRAPHQL_TRUSTED_DOCUMENTS=allow, refused under require).',
      labelNames: ['principal_class', 'outcome'],
      registers: [registry],
    }),
    gatewayFastPath: new Counter({
      name: 'svc_gateway_fast_path_requests_total',
      help: 'GraphQL POSTs this gateway process answered without Apollo Server\'s per-request pipeline, their document being one Apollo had already parsed and validated (the rest take the full pipeline).',
      registers: [registry],
    }),
    graphqlSubscribers: new Gauge({
      name: 'svc_graphql_subscribers',
      help: 'GraphQL subscriptions open at this gateway process (graphql-ws and Server-Sent Events); one ends as soon as its client leaves.',
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

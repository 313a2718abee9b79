import type { GraphQLSchema } from 'graphql';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import type { Principal } from '../auth/principal.js';
import type { SubgraphName } from '../config.js';
import { openDatabase, databaseReachable, knexOf, type MigrationEntry, type Orm, type DatabaseOptions } from '../db/database.js';
import { outboxEntity, OutboxRelay } from '../events/outbox.js';
import { OutboxStream } from '../events/outbox-stream.js';
import { createExecutor } from '../graphql/executor.js';
import { countQueries } from '../metrics.js';
import { withLagMetrics } from '../events/consumer-lag-metrics.js';
import { DependencyHealth, DependencyUnavailable, isConnectionFailure } from '../dependency-health.js';
import type { BoundSubgraphRuntime, Subgraph, SubgraphContext, SubgraphRuntime } from './types.js';

/** The services a subgraph's schema and background work are built from. */
export interface SubgraphServices {
  orm: Orm;
  runtime: BoundSubgraphRuntime;
  /** Publish committed events now instead of at the next sweep; call after every flush that recorded one. */
  publishCommitted(): void;
}

export interface SubgraphParts {
  name: SubgraphName;
  entities: DatabaseOptions['entities'];
  migrations: MigrationEntry[];
  /** SQLite reader threads for the selects outside transactions (DatabaseOptions.readers). */
  readers?: number;
  buildSchema(services: SubgraphServices): GraphQLSchema;
  /** Background work beyond the outbox relay; returns its stop function. */
  startWorkers?(services: SubgraphServices): Promise<() => Promise<void>>;
}

/**
 * A request's context. Its entity manager is forked when a resolver first asks for it: a read that
 * goes to the database without the unit of work (identity's registry, plain-row reads through
 * `knex`) never does, and the fork (a unit of work, an identity map and their helpers) was 2-3 % of
 * such a read's CPU. Until then `knex` is the pool's, which is what a fresh fork's would be.
 */
function requestContext(orm: Orm, pool: Knex, principal: Principal, requestId: string): SubgraphContext {
  let em: EntityManager | undefined;
  return {
    principal,
    requestId,
    get em() {
      return (em ??= orm.em.fork());
    },
    get knex() {
      return em ? knexOf(em) : pool;
    },
  };
}

/**
 * Assemble a subgraph from its parts: its own database (and outbox table), its schema, the outbox
 * relay that publishes its events, and an executor that gives every request a fresh entity manager.
 */
export async function assembleSubgraph(runtime: SubgraphRuntime, parts: SubgraphParts): Promise<Subgraph> {
  const { name } = parts;
  const log = runtime.logger.child({ subgraph: name });
  const orm = await openDatabase({
    config: runtime.config,
    owner: name,
    entities: [...parts.entities, outboxEntity(name)],
    migrations: parts.migrations,
    logger: log,
    ...(parts.readers ? { readers: parts.readers } : {}),
  });
  countQueries(orm, name, runtime.metrics);
  // An unreachable database (or Redis, for the relay's publishing) is logged once per outage by the
  // tracker, not once per request or sweep.
  const health = runtime.health ?? new DependencyHealth(log);
  const database = `database:${name}`;
  health.watch(database, () => databaseReachable(orm));
  const failed = (what: string) => (err: unknown) => {
    if (err instanceof DependencyUnavailable) health.down(err.dependency, err.cause);
    else if (isConnectionFailure(err)) health.down(database, err);
    else log.error({ err }, what);
  };
  const ownBackbone = runtime.backbone ? undefined : new OutboxStream(runtime.bus, log, runtime.config.outboxPollMs);
  const backbone = runtime.backbone ?? ownBackbone!;
  const stream = withLagMetrics(backbone.forOwner(name, orm), runtime.metrics);
  const relay = new OutboxRelay(orm, name, backbone, runtime.config.outboxPollMs, failed('outbox relay failed'), { metrics: runtime.metrics });
  const services: SubgraphServices = { orm, runtime: { ...runtime, logger: log, stream }, publishCommitted: () => relay.wake() };
  const schema = parts.buildSchema(services);
  const run = createExecutor<SubgraphContext>(schema, failed('resolver failed'));
  const pool = knexOf(orm);
  let stopWorkers: (() => Promise<void>) | undefined;

  return {
    name,
    schema,
    execute: (request, principal, requestId) => run(request, requestContext(orm, pool, principal, requestId)),
    ready: () => health.check(database),
    async start() {
      relay.start();
      stopWorkers = await parts.startWorkers?.(services);
    },
    drain: () => relay.stop(),
    async stop() {
      await relay.stop();
      await stopWorkers?.();
      stream.detach();
      await ownBackbone?.close();
      await orm.close();
    },
  };
}

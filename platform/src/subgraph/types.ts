import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import type { Config, SubgraphName } from '../config.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../events/bus.js';
import type { EventBackbone, EventStream } from '../events/stream.js';
import type { Metrics } from '../metrics.js';
import type { Principal } from '../auth/principal.js';
import type { GraphQLRequest } from '../graphql/executor.js';
import type { DependencyHealth } from '../dependency-health.js';
import type { RateLimitUsageReader } from '../rate-limit/limiter.js';

/** What the platform hands every subgraph when it is created. */
export interface SubgraphRuntime {
  config: Config;
  logger: Logger;
  bus: EventBus;
  /**
   * The process's durable event stream. Without it (tools such as `npm run compose`) a subgraph
   * gets an embedded one of its own.
   */
  backbone?: EventBackbone;
  metrics: Metrics;
  /** The process's dependency tracker (one log line per outage; feeds /ready). */
  health?: DependencyHealth;
  /**
   * The rate-limit counters the gateway and the facade spend (the same memory in the embedded
   * default, Redis in the distributed mode), read-only; absent when rate limits are off.
   */
  rateLimits?: RateLimitUsageReader;
}

/** The runtime a subgraph's schema and workers see: the stream is bound to the subgraph. */
export interface BoundSubgraphRuntime extends SubgraphRuntime {
  /**
   * Durable consumers of this subgraph: `stream.consume('name', handler)` (positions stored with the
   * subgraph in the embedded default), and live fan-out with `stream.tail(handler)`.
   */
  stream: EventStream;
}

/** The per-request context every subgraph resolver receives. */
export interface SubgraphContext {
  principal: Principal;
  requestId: string;
  /** A fork of the subgraph's entity manager, one identity map per request (forked on first use). */
  em: EntityManager;
  /**
   * The query builder of `em` (its transaction when one is open, see `knexOf`), without forking the
   * entity manager for it when no resolver has asked for `em`: for reads of plain rows.
   */
  readonly knex: Knex;
}

/** A running subgraph: its federated schema and the one way to execute against it. */
export interface Subgraph {
  name: SubgraphName;
  schema: GraphQLSchema;
  /** Execute one request as `principal`; the gateway calls this in-process or over HTTP. */
  execute(request: GraphQLRequest, principal: Principal, requestId: string): Promise<ExecutionResult>;
  /** Readiness: the subgraph's database answers. */
  ready(): Promise<boolean>;
  /** Start background work (outbox relay, event consumers). */
  start(): Promise<void>;
  /** Publish every committed event and stop publishing; the first step of a shutdown. */
  drain(): Promise<void>;
  /** Finish background work (after draining), close the database. */
  stop(): Promise<void>;
}

export interface SubgraphDefinition {
  name: SubgraphName;
  /** Port of the subgraph's own HTTP server in the distributed mode (0 in tests). */
  defaultPort: number;
  create(runtime: SubgraphRuntime): Promise<Subgraph>;
}

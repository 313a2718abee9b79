import type { ExecutionResult, GraphQLSchema } from 'graphql';
import type { EntityManager } from '@mikro-orm/core';
import type { Config, SubgraphName } from '../config.js';
import type { Logger } from '../logging.js';
import type { EventBus } from '../events/bus.js';
import type { Metrics } from '../metrics.js';
import type { Principal } from '../auth/principal.js';
import type { GraphQLRequest } from '../graphql/executor.js';
import type { DependencyHealth } from '../dependency-health.js';

/** What the platform hands every subgraph when it is created. */
export interface SubgraphRuntime {
  config: Config;
  logger: Logger;
  bus: EventBus;
  metrics: Metrics;
  /** The process's dependency tracker (one log line per outage; feeds /ready). */
  health?: DependencyHealth;
}

/** The per-request context every subgraph resolver receives. */
export interface SubgraphContext {
  principal: Principal;
  requestId: string;
  /** A fork of the subgraph's entity manager: one identity map per request. */
  em: EntityManager;
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

import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { readOperationLimits, type OperationLimits } from './graphql/operation-limits.js';
import { readGraphQLDocumentSettings, type GraphQLDocumentSettings } from './graphql/document-settings.js';
import { readWebhookSettings, type WebhookSettings } from './webhook-settings.js';
import { readTefcaSettings, type TefcaSettings } from './tefca/settings.js';
import { readTracingSettings, type TracingSettings } from './tracing/settings.js';

/** Which component(s) this process runs. `all` is the embedded default. */
export type Role = 'all' | 'gateway' | 'facade' | 'worker' | `subgraph:${SubgraphName}`;
export const SUBGRAPH_NAMES = ['partner', 'identity', 'fhir', 'pipeline'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];
export type Environment = 'sandbox' | 'production';

/** Every setting of the service, parsed once from `SVC_*` variables. Tests build their own. */
export interface Config {
  role: Role;
  environment: Environment;
  host: string;
  port: number;
  /**
   * The internal listener (roles all, gateway, facade): /metrics, /health, /ready, and for the
   * gateway the internal hop (/internal/principal, /graphql with a signed principal). Null when
   * `SVC_INTERNAL_PORT=off` (not allowed for the gateway role).
   */
  internalPort: number | null;
  internalHost: string;
  publicUrl: string;
  dataDir: string;
  /** PostgreSQL URL; absent means the embedded SQLite files under `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * Most PostgreSQL connections each database pool of this process opens (opened on demand, none
   * held idle at start). A process has one pool per subgraph it runs: keep processes × pools × this
   * under the server's max_connections.
   */
  databasePoolMax: number;
  /**
   * Embedded SQLite only: threads of the FHIR store that run its searches' selects beside the
   * event loop (platform/src/db/sqlite-readers.ts); 0 runs them on the event loop.
   */
  sqliteReaders: number;
  /** Redis URL; absent means the in-memory bus and rate-limit counters. */
  redisUrl: string | undefined;
  /** Namespace of every Redis key and channel, so several deployments can share one Redis. */
  redisPrefix: string;
  /**
   * Which proxies may set X-Forwarded-For (Fastify's trustProxy): false (default: the socket's
   * address is the client), a hop count, or a comma-separated list of addresses/CIDRs.
   */
  trustProxy: boolean | number | string;
  /** Facade rate limiting; `SVC_RATE_LIMITS=off` only where an upstream proxy already enforces them (or in benchmarks). */
  rateLimits: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Secret the gateway signs forwarded principals with; subgraphs verify it. */
  internalSecret: string;
  bootstrapToken: string | undefined;
  allowBootstrapInProduction: boolean;
  /** Another supergraph to serve (supergraph.yaml or composed SDL) instead of our own. */
  supergraphPath: string | undefined;
  /** Where the gateway reaches each subgraph in the distributed mode. */
  subgraphUrls: Partial<Record<SubgraphName, string>>;
  /** Where the facade reaches the gateway in the distributed mode. */
  gatewayUrl: string | undefined;
  /**
   * Key for the identity fingerprints (HMAC-SHA256), with its version. Without a secret, the
   * embedded default keeps a random key in `dataDir`, created on first start.
   */
  fingerprintKey: { version: string; secret: string | undefined };
  /** Milliseconds between outbox relay sweeps (the relay is also woken on every commit). */
  outboxPollMs: number;
  /** How long a graceful shutdown may wait for in-flight work. */
  shutdownGraceMs: number;
  /** How long the gateway waits for a subgraph, and the facade for the gateway, before answering 503. */
  upstreamTimeoutMs: number;
  /**
   * The foreign subgraphs (by name, or `all` for every foreign one) whose identical queries in flight
   * from the gateway share one HTTP request (`SVC_GATEWAY_DEDUPLICATE_QUERIES`, default none; ours
   * never share, see gateway/README.md).
   */
  deduplicateQueries: 'all' | readonly string[];
  /**
   * Whether the gateway answers a POST of a document Apollo Server already validated without its
   * per-request pipeline (`SVC_GATEWAY_FAST_PATH`, `on` by default; gateway/README.md).
   */
  gatewayFastPath: boolean;
  /** Bounds on every GraphQL operation at the gateway (`SVC_GRAPHQL_*`). */
  operationLimits: OperationLimits;
  /** Trusted documents and automatic persisted queries at the gateway's public /graphql (`SVC_GRAPHQL_TRUSTED_DOCUMENTS*`, `SVC_GRAPHQL_APQ*`). */
  graphqlDocuments: GraphQLDocumentSettings;
  /** Open GraphQL-over-SSE streams one gateway process holds at most, in all and per partner (`SVC_GRAPHQL_SSE_MAX_STREAMS*`). */
  graphqlSseStreams: { maxStreams: number; maxStreamsPerPartner: number };
  /** How many `event(waitMs:)` reads one pipeline process lets wait at once. */
  eventMaxWaiters: number;
  /** Admission control of every HTTP listener (platform/src/http/load-shedding.ts). */
  loadShedding: { maxInFlight: number; maxEventLoopDelayMs: number; maxTurnMs: number };
  /** Distributed mode: how long an event held unacknowledged by a consumer process is left before another member takes it over. */
  eventClaimIdleMs: number;
  /** FHIR Bulk Data $export: resources read (and written as one chunk) per page, and a pause between pages. */
  fhirExport: { pageSize: number; pagePauseMs: number; expirySeconds: number };
  /**
   * Asynchronous FHIR submissions (sync jobs): attempts before a transient failure is final, the
   * first retry delay (doubled each attempt, with jitter), how long a silent worker keeps a job
   * before another takes it over, and a pause between entries (tests, throttling).
   */
  fhirSync: {
    maxAttempts: number;
    retryBaseMs: number;
    leaseMs: number;
    entryPauseMs: number;
    /** Unfinished jobs one partner may have; the next submission is 429 JOB_QUEUE_FULL. */
    queuePerPartner: number;
    /** Unfinished jobs of everyone; the next submission is 503 SERVER_BUSY. */
    queueMax: number;
  };
  /** Webhook delivery (`SVC_WEBHOOK_*`, see webhook-settings.ts). */
  webhooks: WebhookSettings;
  /**
   * Sunset dates moved by the operator (`SVC_DEPRECATION_SUNSETS=routeId=YYYY-MM-DD,…`), by route id
   * of a deprecated route in the facade's route table. Until the new date the route works again.
   */
  deprecationSunsets: Readonly<Record<string, string>>;
  /** TEFCA exchange: our home community, the peer directory seed, time limits (`SVC_TEFCA_*`, see tefca/settings.ts). */
  tefca: TefcaSettings;
  /**
   * Each partner's log of its own recent API requests (`SVC_REQUEST_LOG_*`): how long an entry is
   * kept, at most how many are kept per partner, how often the process writes its buffered entries,
   * and how often the partner subgraph prunes what is beyond either bound.
   */
  requestLog: { retentionHours: number; maxPerPartner: number; flushMs: number; pruneIntervalMs: number };
  /** OpenTelemetry traces (the standard `OTEL_*` variables, see tracing/settings.ts); null when off. */
  tracing: TracingSettings | null;
  /** Which FHIR reads commit a `fhir.resource.read` audit event (`SVC_FHIR_READ_EVENTS`, see {@link FhirReadEvents}). */
  fhirReadEvents: FhirReadEvents;
}

/**
 * `SVC_FHIR_READ_EVENTS`: the `fhir.resource.read` audit events of FHIR reads (read, vread, history,
 * search). Whatever the setting, the FHIR subgraph counts every successful read of a partner exactly
 * and hands the counts on once a second (`fhir.internal.reads_counted`), which is what the
 * certification evidence counts.
 *
 * - `each`: every read commits its own event.
 * - `batched` (default): the first read of a kind (partner, resource type, interaction, status,
 *   credential) has its own event; the reads of that kind in the next second are one event with their
 *   `count`, and so on while they keep coming.
 * - `sampled:<ratio>`: a read commits its own event with that probability (0 < ratio ≤ 1), carrying
 *   `sample_ratio`; the others none.
 * - `off`: no `fhir.resource.read` events.
 */
export type FhirReadEvents = { mode: 'each' } | { mode: 'batched' } | { mode: 'sampled'; ratio: number } | { mode: 'off' };

/** Parse `SVC_FHIR_READ_EVENTS` (see {@link FhirReadEvents}). */
export function parseFhirReadEvents(value: string | undefined, problems: string[]): FhirReadEvents {
  const v = value?.trim().toLowerCase();
  if (v === undefined || v === '' || v === 'batched') return { mode: 'batched' };
  if (v === 'each' || v === 'off') return { mode: v };
  const sampled = /^sampled:(\d+(?:\.\d+)?|\.\d+)$/.exec(v);
  if (sampled) {
    const ratio = Number(sampled[1]);
    if (ratio > 0 && ratio <= 1) return { mode: 'sampled', ratio };
  }
  problems.push(`SVC_FHIR_READ_EVENTS must be each, batched, sampled:<ratio> with 0 < ratio <= 1, or off (got "${value}")`);
  return { mode: 'batched' };
}

export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** `all`, or subgraph names separated by commas (a supergraph's names: letters, digits, `_`, `-`). */
function parseSubgraphList(name: string, value: string | undefined, problems: string[]): 'all' | readonly string[] {
  if (value === undefined || value.trim() === '') return [];
  if (value.trim() === 'all') return 'all';
  const names = value.split(',').map((n) => n.trim());
  if (names.every((n) => /^[A-Za-z][\w-]{0,99}$/.test(n))) return names;
  problems.push(`${name} must be all or subgraph names separated by commas (got "${value}")`);
  return [];
}

function parseTrustProxy(value: string | undefined, problems: string[]): boolean | number | string {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d{1,2}$/.test(value)) return Number(value);
  if (/^[0-9a-fA-F.:/, ]+$/.test(value)) return value;
  problems.push(`SVC_TRUST_PROXY must be true, false, a hop count or a list of addresses/CIDRs (got "${value}")`);
  return false;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Parse and validate the environment. Every bad value is reported at once, by variable name, so a
 * misconfigured deployment fails at start with one readable message instead of at first use.
 */
export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const problems: string[] = [];
  const str = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const oneOf = <T extends string>(name: string, allowed: readonly T[], fallback: T): T => {
    const v = str(name);
    if (v === undefined) return fallback;
    if ((allowed as readonly string[]).includes(v)) return v as T;
    problems.push(`${name} must be one of ${allowed.join(', ')} (got "${v}")`);
    return fallback;
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const v = str(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${v}")`);
      return fallback;
    }
    return n;
  };
  const url = (name: string, protocols: readonly string[]): string | undefined => {
    const v = str(name);
    if (v === undefined) return undefined;
    try {
      const u = new URL(v);
      if (!protocols.includes(u.protocol)) {
        problems.push(`${name} must use ${protocols.join(' or ')} (got "${u.protocol}")`);
        return undefined;
      }
      return v;
    } catch {
      problems.push(`${name} is not a valid URL (got "${v}")`);
      return undefined;
    }
  };
  const bool = (name: string): boolean => {
    const v = str(name);
    if (v === undefined) return false;
    if (['1', 'true', 'yes'].includes(v.toLowerCase())) return true;
    if (['0', 'false', 'no'].includes(v.toLowerCase())) return false;
    problems.push(`${name} must be true or false (got "${v}")`);
    return false;
  };

  const roles: Role[] = ['all', 'gateway', 'facade', 'worker', ...SUBGRAPH_NAMES.map((n) => `subgraph:${n}` as const)];
  const role = oneOf<Role>('SVC_ROLE', roles, 'all');
  const environment = oneOf<Environment>('SVC_ENVIRONMENT', ['sandbox', 'production'], 'sandbox');
  const port = int('SVC_PORT', 4000, 0, 65535);
  const host = str('SVC_HOST') ?? '0.0.0.0';
  const internalPort = str('SVC_INTERNAL_PORT') === 'off' ? null : int('SVC_INTERNAL_PORT', 9464, 0, 65535);
  if (internalPort === null && role === 'gateway') problems.push('SVC_INTERNAL_PORT cannot be off when SVC_ROLE is gateway (the facade reaches the gateway there)');
  const internalHost = str('SVC_INTERNAL_HOST') ?? '127.0.0.1';
  const publicUrl = (url('SVC_PUBLIC_URL', ['http:', 'https:']) ?? `http://localhost:${port}`).replace(/\/+$/, '');
  // Partners follow links to the public URL (password resets, OAuth metadata, export downloads) and
  // the portal cookie is Secure only over https: in production it names https, loopback aside.
  if (environment === 'production' && /^http:/i.test(publicUrl) && !['localhost', '127.0.0.1', '[::1]'].includes(new URL(publicUrl).hostname)) {
    problems.push(`SVC_PUBLIC_URL must be https in production (got "${publicUrl}")`);
  }
  const databaseUrl = url('SVC_DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url('SVC_REDIS_URL', ['redis:', 'rediss:']);

  const subgraphUrls: Partial<Record<SubgraphName, string>> = {};
  for (const name of SUBGRAPH_NAMES) {
    const v = url(`SVC_SUBGRAPH_${name.toUpperCase()}_URL`, ['http:', 'https:']);
    if (v) subgraphUrls[name] = v;
  }

  let internalSecret = str('SVC_INTERNAL_SECRET');
  if (internalSecret !== undefined && internalSecret.length < 32) {
    problems.push('SVC_INTERNAL_SECRET must be at least 32 characters');
  }
  // A gateway that fronts only a foreign supergraph (SVC_SUPERGRAPH, none of our subgraph URLs) signs nothing.
  const frontsOnlyForeign = role === 'gateway' && str('SVC_SUPERGRAPH') !== undefined && Object.keys(subgraphUrls).length === 0;
  if (internalSecret === undefined) {
    if (role !== 'all' && !frontsOnlyForeign) problems.push(`SVC_INTERNAL_SECRET is required when SVC_ROLE is ${role} (components must share it)`);
    internalSecret = randomBytes(32).toString('base64url');
  }

  const fingerprintSecret = str('SVC_FINGERPRINT_KEY');
  if (fingerprintSecret !== undefined && fingerprintSecret.length < 32) {
    problems.push('SVC_FINGERPRINT_KEY must be at least 32 characters');
  }
  if (fingerprintSecret === undefined && environment === 'production') {
    problems.push('SVC_FINGERPRINT_KEY is required in production (identity fingerprints must survive restarts)');
  }
  const fingerprintVersion = str('SVC_FINGERPRINT_KEY_VERSION') ?? 'k1';
  if (!/^[a-z0-9]{1,8}$/.test(fingerprintVersion)) problems.push('SVC_FINGERPRINT_KEY_VERSION must be 1-8 lowercase letters or digits');

  const redisPrefix = str('SVC_REDIS_PREFIX');
  if (redisPrefix !== undefined && !/^[\w.-]{1,40}$/.test(redisPrefix)) problems.push('SVC_REDIS_PREFIX must be 1-40 letters, digits, dots, dashes or underscores');

  const bootstrapToken = str('SVC_BOOTSTRAP_TOKEN');
  if (bootstrapToken !== undefined && bootstrapToken.length < 24) {
    problems.push('SVC_BOOTSTRAP_TOKEN must be at least 24 characters');
  }
  const allowBootstrapInProduction = bool('SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION');
  if (bootstrapToken && environment === 'production' && !allowBootstrapInProduction) {
    problems.push('SVC_BOOTSTRAP_TOKEN is refused in production unless SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION=true');
  }

  const config: Config = {
    role,
    environment,
    host,
    port,
    internalPort,
    internalHost,
    publicUrl,
    dataDir: resolve(cwd, str('SVC_DATA_DIR') ?? './data'),
    databaseUrl,
    databasePoolMax: int('SVC_DATABASE_POOL_MAX', 10, 1, 500),
    sqliteReaders: int('SVC_SQLITE_READERS', 1, 0, 8),
    redisUrl,
    redisPrefix: redisPrefix ?? 'svc',
    trustProxy: parseTrustProxy(str('SVC_TRUST_PROXY'), problems),
    rateLimits: oneOf('SVC_RATE_LIMITS', ['on', 'off'], 'on') === 'on',
    logLevel: oneOf('SVC_LOG_LEVEL', LOG_LEVELS, 'info'),
    internalSecret,
    bootstrapToken,
    allowBootstrapInProduction,
    supergraphPath: str('SVC_SUPERGRAPH'),
    subgraphUrls,
    gatewayUrl: url('SVC_GATEWAY_URL', ['http:', 'https:']),
    fingerprintKey: { version: fingerprintVersion, secret: fingerprintSecret },
    outboxPollMs: int('SVC_OUTBOX_POLL_MS', 1000, 10, 60_000),
    shutdownGraceMs: int('SVC_SHUTDOWN_GRACE_MS', 10_000, 0, 120_000),
    upstreamTimeoutMs: int('SVC_UPSTREAM_TIMEOUT_MS', 30_000, 100, 600_000),
    deduplicateQueries: parseSubgraphList('SVC_GATEWAY_DEDUPLICATE_QUERIES', str('SVC_GATEWAY_DEDUPLICATE_QUERIES'), problems),
    gatewayFastPath: oneOf('SVC_GATEWAY_FAST_PATH', ['on', 'off'], 'on') === 'on',
    operationLimits: readOperationLimits(int),
    graphqlDocuments: readGraphQLDocumentSettings(str, int, (name, fallback) => oneOf(name, ['on', 'off'], fallback), problems),
    graphqlSseStreams: { maxStreams: int('SVC_GRAPHQL_SSE_MAX_STREAMS', 2000, 1, 1_000_000), maxStreamsPerPartner: int('SVC_GRAPHQL_SSE_MAX_STREAMS_PER_PARTNER', 50, 1, 1_000_000) },
    eventMaxWaiters: int('SVC_EVENT_MAX_WAITERS', 1000, 1, 1_000_000),
    loadShedding: { maxInFlight: int('SVC_MAX_IN_FLIGHT', 64, 0, 1_000_000), maxEventLoopDelayMs: int('SVC_SHED_EVENT_LOOP_DELAY_MS', 1000, 0, 60_000), maxTurnMs: int('SVC_SHED_TURN_MS', 100, 0, 60_000) },
    eventClaimIdleMs: int('SVC_EVENT_CLAIM_IDLE_MS', 15_000, 1_000, 600_000),
    fhirExport: { pageSize: int('SVC_FHIR_EXPORT_PAGE_SIZE', 500, 1, 10_000), pagePauseMs: int('SVC_FHIR_EXPORT_PAGE_PAUSE_MS', 0, 0, 60_000), expirySeconds: int('SVC_FHIR_EXPORT_EXPIRY_SECONDS', 86_400, 1, 30 * 86_400) },
    fhirSync: {
      maxAttempts: int('SVC_FHIR_SYNC_MAX_ATTEMPTS', 5, 1, 50),
      retryBaseMs: int('SVC_FHIR_SYNC_RETRY_BASE_MS', 2000, 10, 3_600_000),
      leaseMs: int('SVC_FHIR_SYNC_LEASE_MS', 60_000, 1000, 3_600_000),
      entryPauseMs: int('SVC_FHIR_SYNC_ENTRY_PAUSE_MS', 0, 0, 60_000),
      queuePerPartner: int('SVC_FHIR_SYNC_QUEUE_PER_PARTNER', 20, 1, 100_000),
      queueMax: int('SVC_FHIR_SYNC_QUEUE_MAX', 500, 1, 1_000_000),
    },
    webhooks: readWebhookSettings(int, bool),
    deprecationSunsets: parseDeprecationSunsets(str('SVC_DEPRECATION_SUNSETS'), problems),
    tefca: readTefcaSettings(str, int, bool, problems, environment),
    requestLog: {
      retentionHours: int('SVC_REQUEST_LOG_RETENTION_HOURS', 72, 1, 24 * 90),
      maxPerPartner: int('SVC_REQUEST_LOG_MAX_PER_PARTNER', 10_000, 100, 1_000_000),
      flushMs: int('SVC_REQUEST_LOG_FLUSH_MS', 1_000, 10, 60_000),
      pruneIntervalMs: int('SVC_REQUEST_LOG_PRUNE_INTERVAL_MS', 300_000, 1_000, 86_400_000),
    },
    tracing: readTracingSettings(str, int, problems, role),
    fhirReadEvents: parseFhirReadEvents(str('SVC_FHIR_READ_EVENTS'), problems),
  };
  if (role === 'gateway' && !config.supergraphPath) {
    for (const name of SUBGRAPH_NAMES) {
      if (!subgraphUrls[name]) problems.push(`SVC_SUBGRAPH_${name.toUpperCase()}_URL is required when SVC_ROLE is gateway`);
    }
  }
  if (role === 'facade' && !config.gatewayUrl) problems.push('SVC_GATEWAY_URL is required when SVC_ROLE is facade');
  if (role !== 'all' && role !== 'gateway' && role !== 'facade' && !databaseUrl) {
    problems.push(`SVC_DATABASE_URL is required when SVC_ROLE is ${role} (the distributed mode runs on PostgreSQL)`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/** `routeId=YYYY-MM-DD,…` → { routeId: date }; the facade checks that each id names a deprecated route. */
function parseDeprecationSunsets(value: string | undefined, problems: string[]): Record<string, string> {
  const sunsets: Record<string, string> = {};
  for (const item of (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^([\w.-]+)=(\d{4}-\d{2}-\d{2})$/.exec(item);
    if (!m || Number.isNaN(Date.parse(`${m[2]}T00:00:00Z`))) {
      problems.push(`SVC_DEPRECATION_SUNSETS must be a comma-separated list of routeId=YYYY-MM-DD (got "${item}")`);
      continue;
    }
    sunsets[m[1]!] = m[2]!;
  }
  return sunsets;
}

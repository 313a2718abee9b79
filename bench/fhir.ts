/**
 * The FHIR R4 store under load: transaction-bundle ingest (resources/s), read p95 and typical
 * search p95 at growing store sizes, on the embedded SQLite and on PostgreSQL.
 *
 *   npm run bench -- --suite fhir [--database sqlite,postgres] [--sizes 10000,100000]
 *                    [--clients 4] [--bundle-size 300] [--duration 10] [--connections 8]
 *                    [--source provider] [--creates 300]
 *
 * For each database it boots the whole system on fresh storage (a temporary SQLite directory, or a
 * throwaway PostgreSQL database on SVC_BENCH_ADMIN_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres, with Redis on SVC_BENCH_REDIS_URL, default
 * redis://127.0.0.1:6379, under a private key prefix), registers a partner with a FHIR token,
 * and grows the store through the public API, step by step up to each size: the ingest of each
 * step is the measurement (the seeding path is the measured path). At each size it measures reads
 * and searches with autocannon from a child process, then records a markdown section at the top
 * of bench/RESULTS.md. Everything it created is dropped when it ends.
 */
import { recordResults, RESULTS_FILE } from './results-file.js';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import pg from 'pg';
import { freshDatabase } from './fresh-database.js';
import { isSourceOrigin, loadConfig, SOURCE_ORIGINS } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';
import { ChildRunner } from './child.js';
import { FAMILY_SIZE, LOINC, postRetryingShed, type IngestedPatient, type IngestRun, type IngestSpec } from './fhir-ingest.js';
import type { LoadRun, LoadSpec } from './load.js';

const WARMUP_SECONDS = 1;

type Database = 'sqlite' | 'postgres';

interface Options {
  databases: Database[];
  sizes: number[];
  clients: number;
  bundleSize: number;
  duration: number;
  /** Each row is measured at each of these: 1 for the latency of one caller, more for throughput. */
  connections: number[];
  /** X-Svc-Source on every ingest Bundle (null: none); the ingest then includes the GPID links. */
  source: string | null;
  /** Single Patient creates measured first, without and with X-Svc-Source (0: none). */
  creates: number;
}

const USAGE = 'usage: npm run bench -- --suite fhir [--database sqlite,postgres] [--sizes 10000,100000] [--clients 4] [--bundle-size 300] [--duration 10] [--connections 1,8|none] [--source provider] [--creates 300]';

export function parseFhirArgs(argv: readonly string[]): Options {
  const options: Options = { databases: ['sqlite', 'postgres'], sizes: [10_000, 100_000], clients: 4, bundleSize: 300, duration: 10, connections: [1, 8], source: null, creates: 0 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const match = /^--(database|sizes|clients|bundle-size|duration|connections|source|creates)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    const raw = match[2] ?? argv[++i] ?? '';
    const int = (min: number, max: number): number => {
      const n = Number(raw);
      if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${match[1]} must be an integer from ${min} to ${max} (got "${raw}")`);
      return n;
    };
    switch (match[1]) {
      case 'database': {
        const list = raw.split(',').map((s) => s.trim());
        if (list.length === 0 || list.some((d) => d !== 'sqlite' && d !== 'postgres')) throw new Error(`--database takes sqlite, postgres or both (got "${raw}")`);
        options.databases = list as Database[];
        break;
      }
      case 'sizes': {
        const list = raw.split(',').map(Number);
        if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 100 || n > 10_000_000)) throw new Error(`--sizes takes store sizes from 100 to 10,000,000 (got "${raw}")`);
        options.sizes = [...list].sort((a, b) => a - b);
        break;
      }
      case 'clients':
        options.clients = int(1, 64);
        break;
      case 'bundle-size':
        options.bundleSize = int(FAMILY_SIZE, 1000);
        break;
      case 'duration':
        options.duration = int(1, 600);
        break;
      case 'source':
        if (!isSourceOrigin(raw)) throw new Error(`--source takes a source origin: ${SOURCE_ORIGINS.join(', ')} (got "${raw}")`);
        options.source = raw;
        break;
      case 'creates':
        options.creates = int(0, 100_000);
        break;
      case 'connections': {
        if (raw === 'none') {
          // Ingest (and its event backlog) only: no read or search rows.
          options.connections = [];
          break;
        }
        const list = raw.split(',').map(Number);
        if (list.length === 0 || list.some((n) => !Number.isInteger(n) || n < 1 || n > 256)) throw new Error(`--connections takes counts from 1 to 256 (got "${raw}")`);
        options.connections = [...new Set(list)].sort((a, b) => a - b);
        break;
      }
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// The system under test

interface Booted {
  system: RunningSystem;
  /** Outbox rows of the fhir subgraph not yet published (events the ingest left to deliver). */
  pendingEvents(): Promise<number>;
  /** Patients linked to their GPID (rows of fhir_patient_gpid_links). */
  linkedPatients(): Promise<number>;
  /** Every durable consumer's unacknowledged events, from /metrics (`svc_event_consumer_lag_events`). */
  consumerLags(): Promise<Map<string, number>>;
  /** Fresh planner statistics on PostgreSQL and SQLite, and PostgreSQL's visibility map (VACUUM ANALYZE). */
  analyze(): Promise<void>;
  baseUrl: string;
  operatorToken: string;
  close(): Promise<void>;
}

/** better-sqlite3 (the embedded driver) ships no types; this is the little the bench uses. */
interface SqliteDatabase {
  prepare(sql: string): { get(): unknown };
  exec(sql: string): void;
  close(): void;
}
const Sqlite = createRequire(import.meta.url)('better-sqlite3') as new (file: string, options: { readonly: boolean }) => SqliteDatabase;

const ADMIN_URL = process.env['SVC_BENCH_ADMIN_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env['SVC_BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';


async function boot(database: Database): Promise<Booted> {
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-fhir-`);
  const operatorToken = `op_${randomBytes(24).toString('base64url')}`;
  const env: Record<string, string> = { SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: operatorToken, SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', SVC_PORT: '0', SVC_RATE_LIMITS: 'off' };
  let drop = async () => {};
  let databaseUrl: string | undefined;
  if (database === 'postgres') {
    const fresh = await freshDatabase(ADMIN_URL);
    drop = fresh.drop;
    databaseUrl = fresh.url;
    Object.assign(env, { SVC_DATABASE_URL: databaseUrl, SVC_REDIS_URL: REDIS_URL, SVC_REDIS_PREFIX: fresh.name });
  }
  const dispose = async () => {
    await drop().catch((err: unknown) => process.stderr.write(`dropping the bench database failed: ${String(err)}\n`));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const system = await startSystem(loadConfig(env));
    try {
      await system.app.listen({ host: '127.0.0.1', port: 0 });
    } catch (err) {
      await system.stop();
      throw err;
    }
    const { port } = system.app.server.address() as AddressInfo;
    const countOf = async (sql: string): Promise<number> => {
      if (databaseUrl) {
        const client = new pg.Client({ connectionString: databaseUrl });
        await client.connect();
        try {
          return Number((await client.query<{ n: string }>(sql)).rows[0]?.n ?? 0);
        } finally {
          await client.end();
        }
      }
      const db = new Sqlite(`${dataDir}/fhir.sqlite`, { readonly: true });
      try {
        return Number((db.prepare(sql).get() as { n: number }).n);
      } finally {
        db.close();
      }
    };
    const pendingEvents = () => countOf('select count(*) as n from fhir_outbox where published_at is null');
    const linkedPatients = () => countOf('select count(*) as n from fhir_patient_gpid_links');
    const consumerLags = async (): Promise<Map<string, number>> => {
      const scraped = await system.internalApp!.inject({ method: 'GET', url: '/metrics' });
      const lags = new Map<string, number>();
      for (const m of scraped.body.matchAll(/^svc_event_consumer_lag_events\{consumer="([^"]+)"\} (\S+)$/gm)) lags.set(m[1]!, Number(m[2]));
      return lags;
    };
    const analyze = async (): Promise<void> => {
      if (!databaseUrl) {
        // SQLite's planner statistics (sqlite_stat1), as PRAGMA optimize keeps them in a running
        // system; the server's connection picks them up when it next prepares a statement.
        const db = new Sqlite(`${dataDir}/fhir.sqlite`, { readonly: false });
        try {
          db.exec('pragma busy_timeout = 10000');
          db.exec('analyze');
        } finally {
          db.close();
        }
        return;
      }
      // VACUUM as well: index-only scans (the token indexes, the resources' covering key) read the
      // table for every row of a page the visibility map does not mark all-visible yet.
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      try {
        await client.query('vacuum analyze');
      } finally {
        await client.end();
      }
    };
    return {
      system,
      pendingEvents,
      linkedPatients,
      consumerLags,
      analyze,
      operatorToken,
      baseUrl: `http://127.0.0.1:${port}`,
      async close() {
        await system.stop();
        await dispose();
      },
    };
  } catch (err) {
    await dispose();
    throw err;
  }
}

async function graphql<T>(base: Booted, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${base.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${base.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown[] };
  if (!res.ok || body.errors?.length || !body.data) throw new Error(`GraphQL ${res.status}: ${JSON.stringify(body.errors ?? body)}`);
  return body.data;
}

/** Events the pipeline's durable consumers have not acknowledged yet (all consumers together). */
async function consumersBehind(base: Booted): Promise<number> {
  const { pipelineHealth } = await graphql<{ pipelineHealth: { consumers: { unacknowledged: number | null }[] } }>(base, '{ pipelineHealth { consumers { unacknowledged } } }', {});
  return pipelineHealth.consumers.reduce((sum, c) => sum + (c.unacknowledged ?? 1), 0);
}

/** A partner and its token with the spec's FHIR read, write and bundle scopes: searches see one tenant's data, as partners do. */
async function partnerToken(base: Booted): Promise<string> {
  const { registerPartner } = await graphql<{ registerPartner: { gpid: string } }>(base, 'mutation R($n: String!) { registerPartner(input: { legalName: $n, organizationType: "HEALTH_SYSTEM" }) { gpid } }', { n: 'Benchmark Hospital' });
  const { createApiToken } = await graphql<{ createApiToken: { secret: string } }>(base, 'mutation T($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }', {
    i: { partnerGpid: registerPartner.gpid, name: 'fhir bench', scopes: ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push'] },
  });
  return createApiToken.secret;
}

// ---------------------------------------------------------------------------------------------
// Measurements

interface Stats {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  responses: number;
  statusCounts: Record<string, number>;
  errors: number;
  /** Server CPU (this process: the whole system, events included) per response, in ms. */
  cpuMs: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarize(run: LoadRun, cpuMicros: number): Stats {
  const latencies = Float64Array.from(run.latencies).sort();
  return {
    rps: run.durationSeconds > 0 ? latencies.length / run.durationSeconds : 0,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    responses: latencies.length,
    statusCounts: run.statusCounts,
    errors: run.errors,
    cpuMs: latencies.length > 0 ? cpuMicros / 1000 / latencies.length : Number.NaN,
  };
}

interface Row {
  key: string;
  label: string;
  example: string;
  paths: string[];
}

function rowsFor(patients: readonly IngestedPatient[], observations: readonly string[]): Row[] {
  const sample = <T>(list: readonly T[], n: number): T[] => Array.from({ length: Math.min(n, list.length) }, () => list[Math.floor(Math.random() * list.length)]!);
  const somePatients = sample(patients, 2000);
  const codes = LOINC.map(([code]) => code);
  const reads = [...somePatients.slice(0, 1000).map((p) => `/fhir/R4/Patient/${p.id}`), ...sample(observations, 1000).map((id) => `/fhir/R4/Observation/${id}`)];
  const bySubject = somePatients.map((p, i) => `/fhir/R4/Observation?subject=Patient/${p.id}&code=${encodeURIComponent(`http://loinc.org|${codes[i % codes.length]}`)}`);
  const byName = somePatients.map((p) => `/fhir/R4/Patient?name=${encodeURIComponent(p.family.slice(0, 4))}&birthdate=${p.birthDate}`);
  const sorted = codes.map((code) => `/fhir/R4/Observation?code=${encodeURIComponent(`http://loinc.org|${code}`)}&_sort=-date&_count=20`);
  return [
    { key: 'read', label: 'read', example: '`GET Patient/{id}`, `GET Observation/{id}` (random stored ids)', paths: reads },
    { key: 'search-subject', label: 'search by subject and code', example: '`GET Observation?subject=Patient/{id}&code=http://loinc.org|8867-4`', paths: bySubject },
    { key: 'search-name', label: 'search by name and birthdate', example: '`GET Patient?name=Smit&birthdate=1970-05-03`', paths: byName },
    { key: 'search-sorted', label: 'search by code, sorted, paged', example: '`GET Observation?code=http://loinc.org|8867-4&_sort=-date&_count=20` (the default total: exact up to 1,000 matches, left out beyond)', paths: sorted },
  ];
}

async function probe(baseUrl: string, token: string, path: string): Promise<void> {
  let res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  // Right after a long ingest the load shedder may still count the ingest's event-loop lag: wait as told.
  for (let attempt = 1; res.status === 503 && attempt < 10; attempt++) {
    await res.text();
    await new Promise((resolve) => setTimeout(resolve, 1000 * Math.min(10, Number(res.headers.get('retry-after')) || 2)));
    res = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  }
  const text = await res.text();
  if (res.status !== 200) throw new Error(`probe ${path}: ${res.status} ${text.slice(0, 300)}`);
  // A search may rightly find nothing (a random patient need not have that code); a read must answer its resource.
  const body = JSON.parse(text) as { resourceType?: string };
  if (!body.resourceType) throw new Error(`probe ${path}: not a FHIR resource: ${text.slice(0, 300)}`);
}

async function measure(load: ChildRunner<LoadSpec, LoadRun>, base: Booted, token: string, row: Row, connections: number, options: Options): Promise<Stats> {
  await probe(base.baseUrl, token, row.paths[0]!);
  const spec = { url: `${base.baseUrl}${row.paths[0]}`, method: 'GET' as const, headers: { authorization: `Bearer ${token}`, accept: 'application/fhir+json' }, paths: row.paths, connections };
  await load.run({ ...spec, duration: WARMUP_SECONDS });
  const cpuBefore = process.cpuUsage();
  const run = await load.run({ ...spec, duration: options.duration });
  const cpu = process.cpuUsage(cpuBefore);
  const stats = summarize(run, cpu.user + cpu.system);
  process.stderr.write(`    ${row.label}: ${stats.rps.toFixed(0)} req/s, p95 ${stats.p95.toFixed(1)} ms, p50 ${stats.p50.toFixed(1)} ms, server CPU ${stats.cpuMs.toFixed(2)} ms per request\n`);
  return stats;
}

// ---------------------------------------------------------------------------------------------
// One database

interface Step {
  size: number;
  ingest: { resources: number; seconds: number; bundleP95: number; failures: number; cpuMs: number; drainSeconds: number; consumersSeconds: number; backlog: Backlog };
  /** With --source: server CPU from the ingest's start until every Patient of the step was linked. */
  links?: { cpuMs: number; seconds: number; linked: number; patients: number };
  rows: { row: Row; stats: Stats }[];
}

/** The event backlog an ingest step left, measured from its last committed write. */
interface Backlog {
  /** Unacknowledged events of every durable consumer together when the last write's answer came. */
  atLastWrite: number;
  /** The same, per consumer. */
  perConsumer: Record<string, number>;
  /** Seconds from the last write until the outbox had published every event (relayed to the stream). */
  relayedSeconds: number;
  /** Seconds from the last write until every durable consumer had acknowledged every event (lag 0 on /metrics). */
  drainedSeconds: number;
}

/** How often the backlog is read while it drains (the resolution of the figures above). */
const BACKLOG_POLL_MS = 100;

/**
 * From the last committed write of a step until the outbox has published every event and every
 * durable consumer's lag (`svc_event_consumer_lag_events`, read from the stream's positions) is 0.
 */
async function measureBacklog(base: Booted, lastWriteAt: number): Promise<Backlog> {
  const lags = await base.consumerLags();
  const perConsumer = Object.fromEntries(lags);
  const atLastWrite = [...lags.values()].reduce((a, b) => a + b, 0);
  let relayedAt: number | null = null;
  const until = Date.now() + LINK_PATIENCE_MS;
  for (;;) {
    const pending = await base.pendingEvents();
    const now = Date.now();
    if (pending === 0) relayedAt ??= now;
    if (pending === 0 && [...(await base.consumerLags()).values()].every((n) => n === 0)) {
      return { atLastWrite, perConsumer, relayedSeconds: ((relayedAt ?? now) - lastWriteAt) / 1000, drainedSeconds: (now - lastWriteAt) / 1000 };
    }
    if (now > until) throw new Error(`the event backlog did not drain within ${LINK_PATIENCE_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, BACKLOG_POLL_MS));
  }
}

/** Single Patient creates: server CPU per create, events delivered and (with a source) GPID linked. */
interface Creates {
  source: string | null;
  creates: number;
  cpuMsPerCreate: number;
  seconds: number;
  linked: number;
}

const LINK_PATIENCE_MS = 600_000;

/** Wait until `count()` reaches `target` (or the patience runs out); answers the last count. */
async function waitFor(count: () => Promise<number>, target: number): Promise<number> {
  const until = Date.now() + LINK_PATIENCE_MS;
  let n = await count();
  while (n < target && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    n = await count();
  }
  return n;
}

/**
 * `n` single Patient creates (`POST /fhir/R4/Patient`, 4 at a time, each a different person), with
 * `source` as X-Svc-Source or without it: the server's CPU per create until the events are
 * delivered and, with a source, every Patient is linked to its GPID. The clients run in this
 * process (a few hundred fetches: the same small share in both figures).
 */
async function measureCreates(base: Booted, token: string, n: number, source: string | null): Promise<Creates> {
  const linkedBefore = await base.linkedPatients();
  const bodies = Array.from({ length: n }, (_v, i) =>
    JSON.stringify({
      resourceType: 'Patient',
      name: [{ family: `${FAMILIES_FOR_CREATES[i % FAMILIES_FOR_CREATES.length]}${i}`, given: [`Given${i}`] }],
      gender: i % 2 ? 'female' : 'male',
      birthDate: `19${String(30 + (i % 70)).padStart(2, '0')}-${String(1 + (i % 12)).padStart(2, '0')}-${String(1 + (i % 28)).padStart(2, '0')}`,
      telecom: [{ system: 'email', value: `person${i}.${source ?? 'none'}@example.org` }],
    }),
  );
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  const client = async () => {
    for (let i = next++; i < n; i = next++) {
      const res = await postRetryingShed(`${base.baseUrl}/fhir/R4/Patient`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json', prefer: 'return=minimal', ...(source ? { 'x-svc-source': source } : {}) },
        body: bodies[i]!,
      });
      await res.text();
      if (res.status !== 201) throw new Error(`Patient create answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: 4 }, client));
  while ((await base.pendingEvents()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
  const linked = source ? (await waitFor(base.linkedPatients, linkedBefore + n)) - linkedBefore : 0;
  const cpu = process.cpuUsage(cpuBefore);
  const result = { source, creates: n, cpuMsPerCreate: (cpu.user + cpu.system) / 1000 / n, seconds: (performance.now() - started) / 1000, linked };
  process.stderr.write(`  ${n} Patient creates ${source ? `with X-Svc-Source: ${source}` : 'without X-Svc-Source'}: server CPU ${result.cpuMsPerCreate.toFixed(2)} ms per create${source ? `, ${linked} linked` : ''}, ${result.seconds.toFixed(1)} s\n`);
  return result;
}

const FAMILIES_FOR_CREATES = ['Lindqvist', 'Okafor', 'Ramanathan', 'Halvorsen', 'Moreau', 'Takahashi', 'Novak', 'Castillo'];

async function runDatabase(database: Database, options: Options): Promise<{ steps: Step[]; creates: Creates[] }> {
  process.stderr.write(`${database}: booting …\n`);
  const base = await boot(database);
  const ingest = new ChildRunner<IngestSpec, IngestRun>(new URL('./fhir-ingest.ts', import.meta.url), 'ingest client');
  const load = new ChildRunner<LoadSpec, LoadRun>(new URL('./load.ts', import.meta.url), 'load generator');
  try {
    const token = await partnerToken(base);
    const creates: Creates[] = [];
    if (options.creates > 0) {
      // Once each way first, so that neither figure pays for warming the code paths up.
      await measureCreates(base, token, Math.min(20, options.creates), null);
      await measureCreates(base, token, Math.min(20, options.creates), options.source ?? 'provider');
      creates.push(await measureCreates(base, token, options.creates, null));
      creates.push(await measureCreates(base, token, options.creates, options.source ?? 'provider'));
    }
    const linkedBefore = await base.linkedPatients();
    const patients: IngestedPatient[] = [];
    const observations: string[] = [];
    const steps: Step[] = [];
    let stored = 0;
    let seed = 1;
    for (const size of options.sizes) {
      const perBundle = Math.max(1, Math.round(options.bundleSize / FAMILY_SIZE)) * FAMILY_SIZE;
      const bundles = Math.ceil((size - stored) / perBundle);
      process.stderr.write(`  ingest ${stored} → ${size} resources: ${bundles} bundles of ${perBundle}, ${options.clients} clients … `);
      // Sent in slices so that the client never holds more than a few thousand bundles in memory.
      const slice = Math.max(options.clients, 40);
      // The server runs in this process (the clients in children): its CPU time per resource is a
      // number that a busy shared machine distorts far less than wall-clock throughput.
      const cpuBefore = process.cpuUsage();
      const total = { resources: 0, seconds: 0, latencies: [] as number[], failures: 0, firstFailure: undefined as string | undefined, lastWriteAt: 0 };
      for (let done = 0; done < bundles; done += slice) {
        const run = await ingest.run({ baseUrl: base.baseUrl, token, bundles: Math.min(slice, bundles - done), bundleSize: options.bundleSize, clients: options.clients, seed: seed++, ...(options.source ? { source: options.source } : {}) });
        total.resources += run.resources;
        total.seconds += run.seconds;
        total.latencies.push(...run.latencies);
        total.failures += run.failures;
        total.firstFailure ??= run.firstFailure;
        total.lastWriteAt = Math.max(total.lastWriteAt, run.lastWriteAt);
        patients.push(...run.patients);
        if (observations.length < 4000) observations.push(...run.observations);
      }
      if (total.failures > 0) throw new Error(`${total.failures} bundles failed, first: ${total.firstFailure}`);
      const cpu = process.cpuUsage(cpuBefore);
      // The outbox publishes each resource's event after its commit, and every durable consumer
      // (event log, webhooks, sync jobs, TEFCA log, certification, the identity links) works through
      // them: the backlog is timed from the last committed write until all of them are caught up.
      // Reads are only measured after that, so that they do not compete with it.
      const drainStarted = performance.now();
      const backlog = await measureBacklog(base, total.lastWriteAt);
      const drainSeconds = backlog.relayedSeconds;
      // The pipeline's consumers as its health report sees them (the same positions, through GraphQL).
      while ((await consumersBehind(base)) > 0) await new Promise((resolve) => setTimeout(resolve, 500));
      const consumersSeconds = backlog.drainedSeconds;
      // With X-Svc-Source: until every Patient ingested so far is linked to its GPID (the identity
      // subgraph resolves each one after its write), the CPU that took counted as the ingest's.
      let links: Step['links'];
      if (options.source) {
        const linked = (await waitFor(base.linkedPatients, linkedBefore + patients.length)) - linkedBefore;
        const linkCpu = process.cpuUsage(cpuBefore);
        links = { cpuMs: (linkCpu.user + linkCpu.system) / 1000, seconds: (performance.now() - drainStarted) / 1000, linked, patients: patients.length };
      }
      // Fresh planner statistics and visibility map, as autovacuum would eventually give (pgbench
      // vacuums after seeding too): without statistics PostgreSQL estimates one row per index and
      // picks poor plans; without the map its index-only scans read the table after all.
      await base.analyze();
      stored += total.resources;
      const sortedLatencies = Float64Array.from(total.latencies).sort();
      const step: Step = { size: stored, ingest: { resources: total.resources, seconds: total.seconds, bundleP95: percentile(sortedLatencies, 95), failures: total.failures, cpuMs: (cpu.user + cpu.system) / 1000, drainSeconds, consumersSeconds, backlog }, ...(links ? { links } : {}), rows: [] };
      process.stderr.write(`${(total.resources / total.seconds).toFixed(0)} resources/s, server CPU ${(step.ingest.cpuMs / total.resources).toFixed(2)} ms per resource, events relayed ${step.ingest.drainSeconds.toFixed(1)} s after the last write, backlog (${thousands(backlog.atLastWrite)} events then) drained ${step.ingest.consumersSeconds.toFixed(1)} s after it\n`);
      process.stderr.write(`  backlog per consumer at the last write: ${JSON.stringify(backlog.perConsumer)}\n`);
      if (links) process.stderr.write(`  ${links.linked} of ${links.patients} Patients linked ${links.seconds.toFixed(1)} s after the ingest, server CPU ${(links.cpuMs / total.resources).toFixed(2)} ms per resource links included\n`);
      for (const connections of options.connections) {
        for (const row of rowsFor(patients, observations)) {
          const measured = { ...row, key: `${row.key}@${connections}`, label: `${row.label}, ${connections} conn.` };
          step.rows.push({ row: measured, stats: await measure(load, base, token, measured, connections, options) });
        }
      }
      steps.push(step);
    }
    return { steps, creates };
  } finally {
    await load.close();
    await ingest.close();
    await base.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Reporting

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');
const thousands = (n: number) => Math.round(n).toLocaleString('en-US');

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (nproc ${os.availableParallelism()}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

function statuses(s: Stats): string {
  const parts = Object.entries(s.statusCounts).map(([status, count]) => `${status}: ${count}`);
  if (s.errors > 0) parts.push(`errors: ${s.errors}`);
  return parts.join(', ');
}

function growth(first: number, last: number): string {
  return first > 0 && Number.isFinite(first) && Number.isFinite(last) ? `${(last / first).toFixed(2)}×` : '–';
}

export function fhirReport(date: string, argv: readonly string[], options: Options, loadBefore: readonly number[], loadAfter: readonly number[], results: { database: Database; steps: Step[]; creates: Creates[] }[]): string {
  const lines = [
    `## FHIR R4 store, ${date}`,
    '',
    `- Command: \`npm run bench -- --suite fhir${argv.length ? ` ${argv.join(' ')}` : ''}\``,
    `- Machine: ${machine()}`,
    `- Load average (1/5/15 min) before: ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after: ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — the machine was busy with other work: treat these numbers as rough' : ''}`,
    `- Ingest: transaction Bundles of ${Math.max(1, Math.round(options.bundleSize / FAMILY_SIZE)) * FAMILY_SIZE} resources (per patient: 1 Patient, 2 Encounters, 12 Observations, linked by \`urn:uuid:\` references), ${options.clients} concurrent clients, \`Prefer: return=minimal\`, ${options.source ? `\`X-Svc-Source: ${options.source}\` (every Patient resolved by the identity subgraph and linked to its GPID; "links included" counts the server CPU until the last link)` : 'no `X-Svc-Source`'}, a partner's token, through the REST facade and the gateway; resources/s = resources stored ÷ wall-clock time of the step`,
    options.connections.length === 0
      ? '- Reads and searches: not measured (`--connections none`)'
      : `- Reads and searches: ${options.duration} s per row after a ${WARMUP_SECONDS} s warm-up, ${options.connections.join(' and ')} connections (each row at each), autocannon in a child process, each request a random path of the row's list (ms)`,
    '',
  ];
  for (const { database, steps, creates } of results) {
    lines.push(`### ${database === 'sqlite' ? 'SQLite (embedded)' : 'PostgreSQL (127.0.0.1:5432) + Redis'}`, '');
    if (creates.length > 0) {
      lines.push('| Single Patient creates (4 at a time) | Creates | Server CPU ms per create (events delivered, links made) | Wall-clock s | Linked |', '|---|---:|---:|---:|---:|');
      for (const c of creates) lines.push(`| ${c.source ? `with \`X-Svc-Source: ${c.source}\`` : 'without `X-Svc-Source`'} | ${c.creates} | **${fmt(c.cpuMsPerCreate, 2)}** | ${fmt(c.seconds)} | ${c.source ? c.linked : '–'} |`);
      lines.push('');
    }
    if (steps.some((s) => s.links)) {
      lines.push('| Ingest step | Patients linked | Links done after ingest, s | Server CPU ms per resource, links included |', '|---|---:|---:|---:|');
      let from = 0;
      for (const s of steps) {
        if (s.links) lines.push(`| ${thousands(from)} → ${thousands(s.size)} | ${s.links.linked} of ${s.links.patients} | ${fmt(s.links.seconds)} | **${fmt(s.links.cpuMs / s.ingest.resources, 2)}** |`);
        from = s.size;
      }
      lines.push('');
    }
    lines.push('| Stored resources | Ingest step | Ingest resources/s | Server CPU ms per resource | Bundle p95 ms | Events relayed after the last write, s | Event backlog at the last write (all durable consumers) | **Backlog drained after the last write, s** |' + steps[0]!.rows.map((r) => ` ${r.row.label} p95 ms (p50, req/s, server CPU ms per request) |`).join(''));
    lines.push('|---:|---|---:|---:|---:|---:|---:|---:|' + steps[0]!.rows.map(() => '---:|').join(''));
    let before = 0;
    for (const s of steps) {
      lines.push(
        `| ${thousands(s.size)} | ${thousands(before)} → ${thousands(s.size)} | ${thousands(s.ingest.resources / s.ingest.seconds)} | ${fmt(s.ingest.cpuMs / s.ingest.resources, 2)} | ${fmt(s.ingest.bundleP95, 0)} | ${fmt(s.ingest.drainSeconds)} | ${thousands(s.ingest.backlog.atLastWrite)} | **${fmt(s.ingest.consumersSeconds)}** |` +
          s.rows.map((r) => ` **${fmt(r.stats.p95)}** (${fmt(r.stats.p50)}, ${fmt(r.stats.rps, 0)}, ${fmt(r.stats.cpuMs, 2)}) |`).join(''),
      );
      before = s.size;
    }
    if (steps.length > 1) {
      const a = steps[0]!;
      const b = steps[steps.length - 1]!;
      lines.push(
        `| growth ${thousands(a.size)} → ${thousands(b.size)} | | ${growth(a.ingest.resources / a.ingest.seconds, b.ingest.resources / b.ingest.seconds)} | ${growth(a.ingest.cpuMs / a.ingest.resources, b.ingest.cpuMs / b.ingest.resources)} | | | | |` +
          a.rows.map((r, i) => ` p95 ${growth(r.stats.p95, b.rows[i]!.stats.p95)} |`).join(''),
      );
    }
    lines.push('', `Event backlog per durable consumer at the last write of each step: ${steps.map((s) => `${thousands(s.size)}: ${Object.entries(s.ingest.backlog.perConsumer).map(([name, n]) => `${name} ${thousands(n)}`).join(', ')}`).join(' — ')}`);
    lines.push('', `Statuses: ${steps.map((s) => `${thousands(s.size)}: ${s.rows.map((r) => `${r.row.key} ${statuses(r.stats)}`).join('; ')}`).join(' — ')}`, '');
  }
  const examples = new Map(results[0]!.steps[0]!.rows.map((r) => [r.row.label.replace(/, \d+ conn\.$/, ''), r.row.example]));
  lines.push('Rows:', '', ...[...examples].map(([label, example]) => `- **${label}**: ${example}`), '');
  return lines.join('\n');
}


export async function runFhirSuite(argv: readonly string[]): Promise<void> {
  const options = parseFhirArgs(argv);
  const started = Date.now();
  const loadBefore = os.loadavg();
  const results: { database: Database; steps: Step[]; creates: Creates[] }[] = [];
  for (const database of options.databases) results.push({ database, ...(await runDatabase(database, options)) });
  const section = fhirReport(new Date().toISOString(), argv, options, loadBefore, os.loadavg(), results);
  process.stdout.write(`\n${section}\n`);
  recordResults(section);
  process.stderr.write(`recorded in ${RESULTS_FILE} (${((Date.now() - started) / 1000).toFixed(0)} s in all)\n`);
}

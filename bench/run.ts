/**
 * Loopback benchmarks of the embedded system: the REST facade, the GraphQL gateway, and one
 * subgraph served on its own, so the gateway's overhead can be read off directly.
 *
 *   npm run bench [-- --duration <seconds>] [-- --connections <n>]
 *   npm run bench -- --suite fhir …   (the FHIR store: ingest, read, search; see bench/fhir.ts)
 *   npm run bench -- --suite subscriptions …   (graphql-ws fan-out; see bench/subscriptions-fanout.ts)
 *   npm run bench -- --suite webhooks …   (event-to-webhook latency; see bench/webhook-latency.ts)
 *   npm run bench -- --suite subgraphs …   (our subgraphs vs a minimal Apollo subgraph, REST vs GraphQL; see bench/subgraph-compare.ts)
 *   npm run bench -- --suite overload …   (10× the documented partner load; see bench/overload.ts)
 *   npm run bench -- --suite gateway …   (ours against stock @apollo/gateway; see bench/gateway-compare.ts)
 *   npm run bench -- --suite tracing …   (the gateway's CPU per request, tracing off / sampled 0 / sampled 1; see bench/tracing-cost.ts)
 *   npm run bench -- --suite isolation …   (another partner's reads while heavy jobs run; see bench/isolation.ts)
 *
 * Boots everything in this process on a temporary SQLite directory, seeds a small data set through
 * the public GraphQL API, drives each measurement with autocannon from a child process (so the load
 * generator never shares the server's event loop), prints a markdown table and records it, with the
 * date and the machine, at the top of bench/RESULTS.md.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createMetrics, INTERNAL_PRINCIPAL_HEADER, loadConfig, MemoryEventBus, signPrincipal, subgraphHttpServer, type Config, type Principal, type Subgraph } from '@svc/platform';
import { partnerSubgraph } from '@svc/partner';
import { startSystem, type RunningSystem } from '../system.js';
import type { FromLoad, LoadRun, LoadSpec, ToLoad } from './load.js';
import { missingServerFlags } from './server-flags.js';

const PARTNERS = 20;
const JOBS_PER_PARTNER = 3;
/** Discarded run before every measurement: JIT, query-plan and credential caches. */
const WARMUP_SECONDS = 1;
/** A signed subgraph principal lives 60 s; long measurements are split and re-signed per segment. */
const SEGMENT_SECONDS = 45;
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const RESULTS_MARKER = '<!-- Newest results first; bench/run.ts inserts each run below this line. -->';

// ---------------------------------------------------------------------------------------------
// Arguments

interface Options {
  duration: number;
  connections: number;
}

const USAGE = 'usage: npm run bench -- [--duration <seconds, default 10>] [--connections <n, default 10>]';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { duration: 10, connections: 10 };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    const match = /^--(duration|connections)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    const name = match[1] as keyof Options;
    const raw = match[2] ?? argv[++i];
    const value = Number(raw);
    if (name === 'duration' && !(Number.isFinite(value) && value >= 1 && value <= 600)) {
      throw new Error(`--duration must be a number of seconds from 1 to 600 (got "${raw}")`);
    }
    if (name === 'connections' && !(Number.isInteger(value) && value >= 1 && value <= 1000)) {
      throw new Error(`--connections must be an integer from 1 to 1000 (got "${raw}")`);
    }
    options[name] = value;
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// The system under test

interface Booted {
  config: Config;
  system: RunningSystem;
  /** The bootstrap operator's bearer secret. */
  token: string;
  baseUrl: string;
  close(): Promise<void>;
}

/** The embedded system on fresh SQLite storage, listening on a free loopback port. */
async function boot(rateLimits: 'on' | 'off'): Promise<Booted> {
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-`);
  const token = `op_${randomBytes(24).toString('base64url')}`;
  try {
    const config = loadConfig({
      SVC_LOG_LEVEL: 'silent',
      SVC_BOOTSTRAP_TOKEN: token,
      SVC_DATA_DIR: dataDir,
      SVC_HOST: '127.0.0.1',
      SVC_PORT: '0',
      SVC_RATE_LIMITS: rateLimits,
    });
    const system = await startSystem(config);
    try {
      await system.app.listen({ host: '127.0.0.1', port: 0 });
    } catch (err) {
      await system.stop();
      throw err;
    }
    const { port } = system.app.server.address() as AddressInfo;
    return {
      config,
      system,
      token,
      baseUrl: `http://127.0.0.1:${port}`,
      async close() {
        await system.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

interface GraphQLBody {
  data?: Record<string, unknown>;
  errors?: { message: string }[];
}

async function graphql(base: Booted, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${base.baseUrl}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${base.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as GraphQLBody;
  if (!res.ok || body.errors?.length || !body.data) throw new Error(`GraphQL ${res.status}: ${JSON.stringify(body.errors ?? body)}`);
  return body.data;
}

/** PARTNERS partners with JOBS_PER_PARTNER queued sync jobs each, through the public API. */
async function seed(base: Booted): Promise<void> {
  const jobs = Array.from({ length: JOBS_PER_PARTNER }, (_, i) => `j${i}: createSyncJob(partnerGpid: $gpid, resourceTypes: ["Patient", "Observation"]) { jobId }`).join('\n');
  for (let i = 1; i <= PARTNERS; i++) {
    const data = await graphql(base, 'mutation Register($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', {
      input: { legalName: `Benchmark Health ${String(i).padStart(2, '0')}`, organizationType: 'HEALTH_SYSTEM' },
    });
    const gpid = (data['registerPartner'] as { gpid: string }).gpid;
    await graphql(base, `mutation Jobs($gpid: ID!) { ${jobs} }`, { gpid });
  }
}

/** The partner subgraph on its own HTTP server, on the same data directory as the system. */
async function directPartnerSubgraph(base: Booted): Promise<{ url: string; close(): Promise<void> }> {
  const { config, system } = base;
  const subgraph: Subgraph = await partnerSubgraph.create({ config, logger: system.logger, bus: new MemoryEventBus(), metrics: createMetrics() });
  const app = subgraphHttpServer(subgraph, config.internalSecret, system.logger);
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
  } catch (err) {
    await subgraph.stop();
    throw err;
  }
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    async close() {
      await app.close();
      await subgraph.stop();
    },
  };
}

/** The operator's principal as the gateway authenticates it (the embedded default has no internal hop to ask). */
async function operatorPrincipal(base: Booted): Promise<Principal> {
  const data = await graphql(base, '{ viewer { kind partnerGpid tokenId scopes } }', {});
  const viewer = data['viewer'] as { kind: Principal['kind']; partnerGpid: string | null; tokenId: string | null; scopes: string[] };
  return { kind: viewer.kind, partnerGpid: viewer.partnerGpid, scopes: viewer.scopes, ...(viewer.tokenId ? { tokenId: viewer.tokenId } : {}) };
}

// ---------------------------------------------------------------------------------------------
// The load generator (a child process)

class LoadGenerator {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve(run: LoadRun): void; reject(err: Error): void }>();
  private nextId = 1;

  constructor() {
    // Inherits this process's exec arguments, so the TypeScript loader that runs us runs it too.
    this.child = fork(fileURLToPath(new URL('./load.ts', import.meta.url)), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (message: FromLoad) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.kind === 'done') waiter.resolve(message.run);
      else waiter.reject(new Error(`load generator: ${message.message}`));
    });
    this.child.on('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`load generator exited (${signal ?? code})`));
      this.pending.clear();
    });
  }

  run(spec: LoadSpec): Promise<LoadRun> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ kind: 'run', id, spec } satisfies ToLoad);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ kind: 'exit' } satisfies ToLoad);
    const timer = setTimeout(() => this.child.kill(), 5000);
    await exited;
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// Measurements

type Target = Omit<LoadSpec, 'connections' | 'duration'>;

interface Measurement {
  key: string;
  label: string;
  target: string;
  /** Built afresh for every segment (a signed principal must be fresh). */
  request(): Promise<Target>;
  /** A single request first: the measurement only counts if the route answers what it should. */
  check?(status: number, body: string, headers: Headers): string | undefined;
}

interface Stats {
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  responses: number;
  statusCounts: Record<string, number>;
  errors: number;
  timeouts: number;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarize(runs: readonly LoadRun[]): Stats {
  const total = runs.reduce((n, r) => n + r.latencies.length, 0);
  const latencies = new Float64Array(total);
  let offset = 0;
  const statusCounts: Record<string, number> = {};
  for (const run of runs) {
    latencies.set(run.latencies, offset);
    offset += run.latencies.length;
    for (const [status, count] of Object.entries(run.statusCounts)) statusCounts[status] = (statusCounts[status] ?? 0) + count;
  }
  latencies.sort();
  const seconds = runs.reduce((s, r) => s + r.durationSeconds, 0);
  return {
    rps: seconds > 0 ? total / seconds : 0,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    responses: total,
    statusCounts,
    errors: runs.reduce((n, r) => n + r.errors, 0),
    timeouts: runs.reduce((n, r) => n + r.timeouts, 0),
  };
}

async function probe(m: Measurement): Promise<void> {
  if (!m.check) return;
  const req = await m.request();
  const res = await fetch(req.url, { method: req.method, headers: req.headers, ...(req.body === undefined ? {} : { body: req.body }) });
  const problem = m.check(res.status, await res.text(), res.headers);
  if (problem) throw new Error(`${m.label}: the probe request failed: ${problem}`);
}

async function measure(load: LoadGenerator, m: Measurement, options: Options): Promise<Stats> {
  await probe(m);
  process.stderr.write(`  ${m.label} … `);
  await load.run({ ...(await m.request()), connections: options.connections, duration: WARMUP_SECONDS });
  const runs: LoadRun[] = [];
  for (let left = options.duration; left > 0; left -= SEGMENT_SECONDS) {
    runs.push(await load.run({ ...(await m.request()), connections: options.connections, duration: Math.min(left, SEGMENT_SECONDS) }));
  }
  const stats = summarize(runs);
  process.stderr.write(`${stats.rps.toFixed(0)} req/s, p50 ${stats.p50.toFixed(2)} ms\n`);
  return stats;
}

const CROSS_QUERY = '{ partners(first: 20) { edges { node { gpid legalName syncJobs { jobId status } } } } }';
const PARTNER_QUERY = '{ partners(first: 20) { edges { node { gpid legalName } } } }';

function json(body: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** A GraphQL answer with `partners.edges` of 20 nodes, each with sync jobs when `withJobs`. */
function checkPartners(withJobs: boolean) {
  return (status: number, body: string): string | undefined => {
    const parsed = json(body) as GraphQLBody | undefined;
    if (status !== 200 || !parsed || parsed.errors?.length) return `${status} ${body.slice(0, 300)}`;
    const edges = (parsed.data?.['partners'] as { edges?: { node: { syncJobs?: unknown[] } }[] } | undefined)?.edges ?? [];
    if (edges.length !== PARTNERS) return `expected ${PARTNERS} partners, got ${edges.length}`;
    if (withJobs && edges.reduce((n, e) => n + (e.node.syncJobs?.length ?? 0), 0) < (PARTNERS - 1) * JOBS_PER_PARTNER) return 'sync jobs are missing';
    return undefined;
  };
}

function checkRest(listKey: string, expectLimiter: boolean) {
  return (status: number, body: string, headers: Headers): string | undefined => {
    if (status !== 200) return `${status} ${body.slice(0, 300)}`;
    if (!Array.isArray(json(body)?.[listKey])) return `no "${listKey}" list in ${body.slice(0, 300)}`;
    if (headers.has('x-ratelimit-limit') !== expectLimiter) return expectLimiter ? 'no rate-limit headers' : 'the rate limiter is on (SVC_RATE_LIMITS=off was not honoured)';
    return undefined;
  };
}

// ---------------------------------------------------------------------------------------------
// Reporting

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '–');
const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : '–');

function statusSummary(s: Stats): string {
  const parts = Object.entries(s.statusCounts)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}: ${count}${s.responses > 0 && !status.startsWith('2') ? ` (${((count / s.responses) * 100).toFixed(1)}%)` : ''}`);
  if (s.errors > 0) parts.push(`errors: ${s.errors}${s.timeouts > 0 ? ` (${s.timeouts} timeouts)` : ''}`);
  return parts.join(', ') || 'none';
}

function machine(): string {
  const cpus = os.cpus();
  const gib = (os.totalmem() / 1024 ** 3).toFixed(1);
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${gib} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

function report(date: string, options: Options, loadBefore: readonly number[], rows: { m: Measurement; s: Stats }[]): string {
  const by = (key: string) => rows.find((r) => r.m.key === key)?.s;
  const lines = [
    `## ${date}`,
    '',
    `- Machine: ${machine()}`,
    `- Load average before the run (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — the machine was busy with other work: treat these numbers as rough' : ''}`,
    `- Load: ${options.duration} s per row after a ${WARMUP_SECONDS} s warm-up, ${options.connections} connections, loopback (127.0.0.1), autocannon in a separate process`,
    `- Data: embedded SQLite, ${PARTNERS} partners × ${JOBS_PER_PARTNER} sync jobs (plus the operator partner)`,
    '',
    '| # | Measurement | Request | req/s | p50 ms | p95 ms | p99 ms | Responses by status |',
    '|---|---|---|---:|---:|---:|---:|---|',
    ...rows.map((r, i) => `| ${i + 1} | ${r.m.label} | ${r.m.target} | ${r.s.rps.toFixed(0)} | ${ms(r.s.p50)} | ${ms(r.s.p95)} | ${ms(r.s.p99)} | ${statusSummary(r.s)} |`),
    '',
  ];
  const gw = by('gateway-partner');
  const direct = by('subgraph-partner');
  if (gw && direct) {
    lines.push(
      `Gateway overhead (row ${rows.findIndex((r) => r.m.key === 'gateway-partner') + 1} ÷ row ${rows.findIndex((r) => r.m.key === 'subgraph-partner') + 1}, same partner-only query): ` +
        `p50 ${ratio(gw.p50, direct.p50)}, p99 ${ratio(gw.p99, direct.p99)}, req/s ${ratio(gw.rps, direct.rps)}.`,
    );
  }
  const rest = by('rest-pipeline');
  const cross = by('gateway-cross');
  if (rest && cross) {
    lines.push(
      `REST facade over GraphQL (row ${rows.findIndex((r) => r.m.key === 'rest-pipeline') + 1} ÷ row ${rows.findIndex((r) => r.m.key === 'gateway-cross') + 1}, same two-subgraph read): ` +
        `p50 ${ratio(rest.p50, cross.p50)}, req/s ${ratio(rest.rps, cross.rps)}.`,
    );
  }
  lines.push('');
  return lines.join('\n');
}

const RESULTS_HEADER = `# Benchmark results

Recorded by \`npm run bench\` (see [README.md](./README.md)); every run adds a dated section with
the machine it ran on. Numbers from different machines are not comparable; compare rows within one
section, and sections from the same machine over time.

\`\`\`sh
npm run bench                                  # 10 s per row, 10 connections
npm run bench -- --duration 5 --connections 20
\`\`\`

## What each row measures

The whole embedded system (\`SVC_ROLE=all\`) runs in the benchmark process on a temporary SQLite
directory, seeded through the public GraphQL API with ${PARTNERS} partners and ${JOBS_PER_PARTNER} sync jobs each.
autocannon drives it over loopback from a child process, one row at a time, each after a
${WARMUP_SECONDS} s warm-up that is not counted. req/s counts every response; latencies are exact
percentiles over every response of the row (whatever its status), in milliseconds. The last
column counts the responses per HTTP status, with the share of each non-2xx one. Rows 1-5 run with \`SVC_RATE_LIMITS=off\` so
that the facade's per-partner limits (30/min on these routes, 30/s burst) do not turn the benchmark
into a measurement of the limiter; row 6 measures exactly that, with the limits on.

1. **REST GET /cms/tokens** — the facade with the bootstrap operator's bearer token: credential
   check (cached after the first request), route handler, the \`apiTokens\` query through the
   in-process gateway to the partner subgraph, snake_case mapping.
2. **REST GET /cms/pipeline/partners** — the facade's per-partner pipeline metrics for 20 partners:
   one gateway query that crosses the partner and pipeline subgraphs, then aggregation.
3. **GraphQL, two subgraphs** — \`POST /graphql\` with
   \`{ partners(first: 20) { edges { node { gpid legalName syncJobs { jobId status } } } } }\`:
   the gateway plans and fetches partners from the partner subgraph, then their sync jobs from the
   pipeline subgraph in one batched entity fetch.
4. **GraphQL, partner only, via gateway** — \`POST /graphql\` with
   \`{ partners(first: 20) { edges { node { gpid legalName } } } }\`, answered by the partner
   subgraph alone, with the bearer token.
5. **Partner subgraph, direct** — the same query sent straight to a second instance of the partner
   subgraph, served by its own HTTP server (the distributed mode's \`subgraphHttpServer\`) on the same
   SQLite files, with a gateway-signed principal (\`x-svc-principal\`). Rows 4 and 5 together give
   the gateway's overhead: Apollo request handling, query planning and the in-process subgraph call,
   plus bearer authentication against a cache versus verifying a signed principal.
6. **REST GET /cms/tokens, limiter on** — the same route as row 1 on a second system with the rate
   limits on. After the first 30 requests of the minute every answer is a 429: this row is the
   cost of turning a caller away (authentication plus the limiter), the hot path under abuse.

${RESULTS_MARKER}
`;

function record(section: string): void {
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : RESULTS_HEADER;
  const at = text.indexOf(RESULTS_MARKER);
  if (at === -1) text = `${text.trimEnd()}\n\n${section}`;
  else {
    const after = at + RESULTS_MARKER.length;
    text = `${text.slice(0, after)}\n\n${section}${text.slice(after).replace(/^\n+/, '\n')}`;
  }
  writeFileSync(RESULTS_FILE, `${text.trimEnd()}\n`);
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<void> {
  const options = parseArgs(suiteOf(process.argv.slice(2)).rest);
  const started = Date.now();
  const loadBefore = os.loadavg();
  const cleanups: (() => Promise<unknown>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`));
  };
  try {
    process.stderr.write('booting the embedded system and seeding …\n');
    const sys = await boot('off');
    cleanups.push(() => sys.close());
    await seed(sys);
    const direct = await directPartnerSubgraph(sys);
    cleanups.push(() => direct.close());
    const principal = await operatorPrincipal(sys);
    const load = new LoadGenerator();
    cleanups.push(() => load.close());

    const bearer = (b: Booted) => ({ authorization: `Bearer ${b.token}` });
    const gql = (b: Booted, query: string) => async (): Promise<Target> => ({
      url: `${b.baseUrl}/graphql`,
      method: 'POST',
      headers: { ...bearer(b), 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    });
    const measurements: Measurement[] = [
      {
        key: 'rest-tokens',
        label: 'REST GET /cms/tokens',
        target: '`GET /cms/tokens` (facade → gateway → partner)',
        request: async () => ({ url: `${sys.baseUrl}/cms/tokens`, method: 'GET', headers: bearer(sys) }),
        check: checkRest('tokens', false),
      },
      {
        key: 'rest-pipeline',
        label: 'REST GET /cms/pipeline/partners',
        target: '`GET /cms/pipeline/partners?limit=20` (facade → gateway → partner + pipeline)',
        request: async () => ({ url: `${sys.baseUrl}/cms/pipeline/partners?limit=20`, method: 'GET', headers: bearer(sys) }),
        check: checkRest('partners', false),
      },
      {
        key: 'gateway-cross',
        label: 'GraphQL, two subgraphs',
        target: '`POST /graphql` partners + syncJobs (gateway → partner + pipeline)',
        request: gql(sys, CROSS_QUERY),
        check: checkPartners(true),
      },
      {
        key: 'gateway-partner',
        label: 'GraphQL, partner only, via gateway',
        target: '`POST /graphql` partners (gateway → partner)',
        request: gql(sys, PARTNER_QUERY),
        check: checkPartners(false),
      },
      {
        key: 'subgraph-partner',
        label: 'Partner subgraph, direct',
        target: '`POST /graphql` partners on the subgraph server (signed principal)',
        request: async () => ({
          url: direct.url,
          method: 'POST',
          headers: { [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(principal, sys.config.internalSecret), 'content-type': 'application/json' },
          body: JSON.stringify({ query: PARTNER_QUERY }),
        }),
        check: checkPartners(false),
      },
    ];

    process.stderr.write(`measuring (${options.duration} s per row, ${options.connections} connections):\n`);
    const rows: { m: Measurement; s: Stats }[] = [];
    for (const m of measurements) rows.push({ m, s: await measure(load, m, options) });

    // The limiter's own path, on a second system so that rows 1-5 never see a limit.
    const limited = await boot('on');
    cleanups.push(() => limited.close());
    const rejected: Measurement = {
      key: 'rest-tokens-limited',
      label: 'REST GET /cms/tokens, limiter on',
      target: '`GET /cms/tokens` with `SVC_RATE_LIMITS=on` (mostly 429)',
      request: async () => ({ url: `${limited.baseUrl}/cms/tokens`, method: 'GET', headers: bearer(limited) }),
      check: checkRest('tokens', true),
    };
    rows.push({ m: rejected, s: await measure(load, rejected, options) });

    const section = report(new Date().toISOString(), options, loadBefore, rows);
    process.stdout.write(`\n${section}\n`);
    record(section);
    process.stderr.write(`recorded in ${RESULTS_FILE} (${((Date.now() - started) / 1000).toFixed(0)} s in all)\n`);
  } finally {
    await cleanup();
  }
}

/**
 * `--suite fhir` runs the FHIR store benchmark (bench/fhir.ts), `--suite subscriptions` the
 * graphql-ws fan-out (bench/subscriptions-fanout.ts), `--suite webhooks` the event-to-webhook
 * latency (bench/webhook-latency.ts), `--suite gateway` ours against stock @apollo/gateway
 * (bench/gateway-compare.ts), `--suite tracing` the gateway's CPU per request with tracing off and on
 * (bench/tracing-cost.ts), `--suite boot` the time and CPU to /ready, compiled against sources
 * (bench/boot.ts). Without `--suite`, the default rows, then the webhook latency.
 */
function suiteOf(argv: readonly string[]): { suite: string; rest: string[] } {
  const rest: string[] = [];
  let suite = 'default';
  for (let i = 0; i < argv.length; i++) {
    const m = /^--suite(?:=(.*))?$/.exec(argv[i]!);
    if (m) suite = m[1] ?? argv[++i] ?? '';
    else rest.push(argv[i]!);
  }
  return { suite, rest };
}

const { suite, rest: suiteArgs } = suiteOf(process.argv.slice(2));
/** Every suite by name; `default` is this file's own run followed by the webhook latency. */
const SUITES: Record<string, () => Promise<unknown>> = {
  default: () => main().then(() => import('./webhook-latency.js')).then((m) => m.runWebhookLatencySuite([])),
  fhir: () => import('./fhir.js').then((m) => m.runFhirSuite(suiteArgs)),
  subscriptions: () => import('./subscriptions-fanout.js').then((m) => m.runSubscriptionsSuite(suiteArgs)),
  webhooks: () => import('./webhook-latency.js').then((m) => m.runWebhookLatencySuite(suiteArgs)),
  subgraphs: () => import('./subgraph-compare.js').then((m) => m.runSubgraphsSuite(suiteArgs)),
  overload: () => import('./overload.js').then((m) => m.runOverloadSuite(suiteArgs)),
  gateway: () => import('./gateway-compare.js').then((m) => m.runGatewaySuite(suiteArgs)),
  tracing: () => import('./tracing-cost.js').then((m) => m.runTracingSuite(suiteArgs)),
  isolation: () => import('./isolation.js').then((m) => m.runIsolationSuite(suiteArgs)),
  boot: () => import('./boot.js').then((m) => m.runBootSuite(suiteArgs)),
};
const missing = missingServerFlags();
if (missing.length > 0) {
  process.stderr.write(`warning: this process lacks ${missing.join(' ')}, which npm start gives the service: run the benchmarks with npm run bench to measure it as it runs\n`);
}
const start = SUITES[suite];
const run = start ? start() : Promise.reject(new Error(`unknown suite "${suite}" (${Object.keys(SUITES).join(', ')})`));
run.catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
});

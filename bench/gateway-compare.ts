/**
 * Our gateway (SVC_ROLE=gateway, SVC_SUPERGRAPH) against stock @apollo/gateway and Hive Gateway
 * (@graphql-hive/gateway-runtime, bench/hive-gateway/), in one run, over the same two minimal
 * in-memory Apollo subgraphs (bench/minimal-subgraphs.ts):
 *
 *   npm run bench -- --suite gateway [--duration 10] [--connections 20] [--rounds 1] [--profile] [--workers n]
 *
 * Every server runs in its own child process, the load generator (autocannon) in another. Rows:
 * the partners subgraph directly, then stock, Hive (its in-flight request sharing off) and ours for
 * a single-subgraph query and for a cross-subgraph query (50 partners × 2 sync jobs), and both
 * again through a Hive Gateway with its default sharing of identical in-flight subgraph requests
 * and a second gateway of ours that shares them (SVC_GATEWAY_DEDUPLICATE_QUERIES=all). The
 * headline is each gateway process's CPU time per request, read from /proc. With
 * `--rounds n` the rows are measured n times,
 * interleaved, and each row reports its median round. `--profile` runs our gateway under
 * `node --cpu-prof` and prints its top self-time functions after the run.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ChildRunner } from './child.js';
import type { LoadRun, LoadSpec } from './load.js';
import { MINIMAL_CROSS_QUERY, MINIMAL_JOBS_PER_PARTNER, MINIMAL_PARTNERS, MINIMAL_SINGLE_QUERY, minimalSupergraph, type MinimalSubgraphName } from './minimal-subgraphs.js';
import { profileMarkdown, summarizeProfile } from './cpu-profile.js';
import { cpuMsOf } from './process-cpu.js';
import { freePort } from './free-port.js';

export const WARMUP_SECONDS = 2;
/** Seconds each gateway's CPU is read with no load, before the rows. */
const IDLE_SECONDS = 5;
const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const RESULTS_MARKER = '<!-- Newest results first; bench/run.ts inserts each run below this line. -->';

export interface Options {
  duration: number;
  connections: number;
  rounds: number;
  profile: boolean;
  workers: number | undefined;
  record: boolean;
  /** Measure only the rows whose key contains this (e.g. `ours`: a profile of ours alone). */
  only: string | undefined;
}

const USAGE = 'usage: npm run bench -- --suite gateway [--duration 10] [--connections 20] [--rounds 1] [--profile] [--workers <n>] [--only <row key part>] [--no-record]';

export function parseArgs(argv: readonly string[]): Options {
  const options: Options = { duration: 10, connections: 20, rounds: 1, profile: false, workers: undefined, record: true, only: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--profile') options.profile = true;
    else if (arg === '--no-record') options.record = false;
    else if (arg === '--only') options.only = argv[++i];
    else {
      const m = /^--(duration|connections|rounds|workers)(?:=(.*))?$/.exec(arg);
      if (!m) throw new Error(`unknown argument "${arg}"\n${USAGE}`);
      const value = Number(m[2] ?? argv[++i]);
      if (!Number.isFinite(value) || value < 1 || value > 1000) throw new Error(`--${m[1]} must be a number from 1 to 1000\n${USAGE}`);
      if (m[1] === 'workers') options.workers = value;
      else options[m[1] as 'duration' | 'connections' | 'rounds'] = value;
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// Servers, each in its own process

export interface Running {
  url: string;
  /** The server's process (with its node:cluster workers, if any), for its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
}

async function stopChild(child: ChildProcess, how: () => void): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const done = exited(child);
  how();
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await done;
  clearTimeout(timer);
}

export function startCompareServer(kind: 'subgraph' | 'stock', arg: string): Promise<Running> {
  const child = fork(fileURLToPath(new URL('./compare-server.ts', import.meta.url)), [kind, arg], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${kind} ${arg} exited (${code}) before listening`)));
    child.once('message', (message: { url: string }) =>
      resolve({ url: message.url, pid: child.pid, stop: () => stopChild(child, () => (child.connected ? child.send({ kind: 'exit' }) : child.kill())) }),
    );
  });
}

/** Hive Gateway's own folder: its package.json and package-lock.json pin what runs there. */
const HIVE_DIR = fileURLToPath(new URL('./hive-gateway/', import.meta.url));

/**
 * Hive Gateway lives in a bench-only package (bench/hive-gateway/package.json, its lock file
 * committed), installed into that folder on first use, so the service's `npm ci` stays as it is.
 */
function ensureHiveInstalled(): void {
  if (existsSync(join(HIVE_DIR, 'node_modules', '@graphql-hive', 'gateway-runtime', 'package.json'))) return;
  process.stderr.write(`installing Hive Gateway for this bench: npm ci --prefix ${HIVE_DIR} …\n`);
  execFileSync('npm', ['ci', '--prefix', HIVE_DIR, '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' });
}

/** Hive Gateway over the supergraph file; `share` keeps its default sharing of identical in-flight subgraph requests. */
function startHiveGateway(supergraphFile: string, sharing: 'share' | 'no-share'): Promise<Running> {
  const child = fork(join(HIVE_DIR, 'server.mjs'), [supergraphFile, sharing], { cwd: dirname(HIVE_DIR), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`Hive Gateway (${sharing}) exited (${code}) before listening`)));
    child.once('message', (message: { url: string }) =>
      resolve({ url: message.url, pid: child.pid, stop: () => stopChild(child, () => (child.connected ? child.send({ kind: 'exit' }) : child.kill())) }),
    );
  });
}

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 180_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`our gateway exited (${child.exitCode}) before it was ready`);
    const ok = await fetch(url, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} was not ready within 180 s`);
}

/** Our gateway component as `npm start` runs it (server.ts), fronting the minimal supergraph. */
/** The two minimal subgraphs, each in its own process, and their supergraph written into `dir`; their stops go on `stops`. */
export async function startMinimalSubgraphs(dir: string, stops: (() => Promise<void>)[]): Promise<{ subgraphs: Record<MinimalSubgraphName, Running>; supergraphFile: string }> {
  const subgraphs = {} as Record<MinimalSubgraphName, Running>;
  for (const name of ['partners', 'pipeline'] as const) {
    subgraphs[name] = await startCompareServer('subgraph', name);
    stops.push(() => subgraphs[name].stop());
  }
  const supergraphFile = join(dir, 'supergraph.graphql');
  writeFileSync(supergraphFile, minimalSupergraph({ partners: subgraphs.partners.url, pipeline: subgraphs.pipeline.url }));
  return { subgraphs, supergraphFile };
}

export async function startOurGateway(supergraphFile: string, dir: string, options: Options, env: Record<string, string> = {}): Promise<Running & { profileDir?: string; startupMs: number }> {
  const forked = Date.now();
  const [port, internalPort] = [await freePort(), await freePort()];
  const profileDir = options.profile ? mkdtempSync(join(os.tmpdir(), 'svc-gw-prof-')) : undefined;
  const child = fork(fileURLToPath(new URL('../server.ts', import.meta.url)), [], {
    execArgv: [...process.execArgv, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: {
      ...process.env,
      SVC_ROLE: 'gateway',
      SVC_SUPERGRAPH: supergraphFile,
      SVC_HOST: '127.0.0.1',
      SVC_PORT: String(port),
      SVC_INTERNAL_PORT: String(internalPort),
      SVC_DATA_DIR: dir,
      SVC_LOG_LEVEL: 'warn',
      // Stock Apollo has no rate limiter; the minimal subgraphs' `partners` would otherwise count
      // against the REST twin's per-address limit of our capability table.
      SVC_RATE_LIMITS: 'off',
      // Anonymous callers' cost budget (1000) is below the cross query's static cost (about 1,650).
      SVC_GRAPHQL_COST_ANONYMOUS: '100000',
      ...(options.workers ? { SVC_GATEWAY_WORKERS: String(options.workers) } : {}),
      ...env,
    },
  });
  // With workers, the primary says when every worker listens: none of them starts up under load.
  const allListening = options.workers && options.workers > 1 ? new Promise<void>((resolve) => child.on('message', (m: { kind?: string }) => m.kind === 'gateway-workers-listening' && resolve())) : Promise.resolve();
  await waitReady(`http://127.0.0.1:${port}/ready`, child);
  await allListening;
  return { url: `http://127.0.0.1:${port}/graphql`, pid: child.pid, startupMs: Date.now() - forked, stop: () => stopChild(child, () => child.kill('SIGTERM')), ...(profileDir ? { profileDir } : {}) };
}

// ---------------------------------------------------------------------------------------------
// Measuring

export interface Row {
  key: string;
  label: string;
  url: string;
  query: string;
  cross: boolean;
  /** The gateway process under test; none for the subgraph answered directly. */
  gatewayPid: number | undefined;
}

/** Processes whose CPU time each row records, besides its gateway. */
export interface Processes {
  subgraphs: (number | undefined)[];
  load: number | undefined;
}

export interface Stats {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** CPU ms per response: the gateway process(es), both subgraphs together, the load generator. */
  cpu: { gateway: number; subgraphs: number; load: number };
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function cpuNow(row: Row, processes: Processes): Stats['cpu'] {
  return {
    gateway: row.gatewayPid === undefined ? 0 : cpuMsOf(row.gatewayPid, true),
    subgraphs: processes.subgraphs.reduce((sum: number, pid) => sum + cpuMsOf(pid), 0),
    load: cpuMsOf(processes.load),
  };
}

function stats(run: LoadRun, cpuBefore: Stats['cpu'], cpuAfter: Stats['cpu']): Stats {
  const sorted = run.latencies.slice().sort();
  const responses = Object.values(run.statusCounts).reduce((a, b) => a + b, 0);
  const ok = Object.entries(run.statusCounts).reduce((a, [s, n]) => a + (s.startsWith('2') ? n : 0), 0);
  const perResponse = (key: keyof Stats['cpu']) => (responses > 0 ? (cpuAfter[key] - cpuBefore[key]) / responses : Number.NaN);
  return {
    rps: responses / run.durationSeconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    non2xx: responses - ok,
    errors: run.errors,
    cpu: { gateway: perResponse('gateway'), subgraphs: perResponse('subgraphs'), load: perResponse('load') },
  };
}

/** One request first: the row must answer the full, correct data, or the numbers mean nothing. */
export async function check(row: Row): Promise<void> {
  const res = await fetch(row.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: row.query }) });
  const body = (await res.json()) as { data?: { partners?: { edges: { node: { syncJobs?: unknown[] } }[] } }; errors?: unknown[] };
  const edges = body.data?.partners?.edges ?? [];
  const jobs = edges.reduce((n, e) => n + (e.node.syncJobs?.length ?? 0), 0);
  if (res.status !== 200 || body.errors || edges.length !== MINIMAL_PARTNERS || jobs !== (row.cross ? MINIMAL_PARTNERS * MINIMAL_JOBS_PER_PARTNER : 0)) {
    throw new Error(`${row.label}: unexpected answer ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
}

export async function measure(load: ChildRunner<LoadSpec, LoadRun>, row: Row, processes: Processes, options: Options, seconds: number): Promise<Stats> {
  const spec: LoadSpec = { url: row.url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: row.query }), connections: options.connections, duration: seconds };
  const before = cpuNow(row, processes);
  const run = await load.run(spec);
  return stats(run, before, cpuNow(row, processes));
}

/** Every row measured `options.rounds` times, interleaved (a warm-up before each), its progress on stderr. */
export async function measureRounds(load: ChildRunner<LoadSpec, LoadRun>, rows: readonly Row[], processes: Processes, options: Options, progress: (s: Stats) => string): Promise<Map<string, Stats[]>> {
  const results = new Map<string, Stats[]>(rows.map((r) => [r.key, []]));
  for (let round = 1; round <= options.rounds; round++) {
    for (const row of rows) {
      await measure(load, row, processes, options, WARMUP_SECONDS);
      const s = await measure(load, row, processes, options, options.duration);
      results.get(row.key)!.push(s);
      process.stderr.write(`  round ${round}: ${row.label}: ${s.rps.toFixed(0)} req/s, ${progress(s)}\n`);
    }
  }
  return results;
}

export const median = (values: Stats[]): Stats => {
  const sorted = [...values].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)]!;
};

// ---------------------------------------------------------------------------------------------
// Reporting

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');
const x = (a: number, b: number) => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : '–');

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, Node ${process.version}`;
}

const MISSING: Stats = { rps: Number.NaN, p50: Number.NaN, p99: Number.NaN, non2xx: 0, errors: 0, cpu: { gateway: Number.NaN, subgraphs: Number.NaN, load: Number.NaN } };
const cpuMs = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : '–');

/**
 * The most any gateway could serve of a row on this machine: every core busy, the subgraphs and
 * the load generator spending what they spent per request in this run, the gateway nothing.
 */
function ceiling(v: Stats): number {
  return (os.availableParallelism() * 1000) / (v.cpu.subgraphs + v.cpu.load);
}

const pass = (ok: boolean) => (ok ? 'met' : '**not met**');

function report(options: Options, loadBefore: readonly number[], loadAfter: readonly number[], rows: Row[], results: Map<string, Stats[]>, note: string, idle: ReadonlyMap<number, number>): string {
  const s = (key: string) => (results.get(key)?.length ? median(results.get(key)!) : MISSING);
  const direct = s('direct');
  const stockSingle = s('stock-single');
  const hiveSingle = s('hive-single');
  const oursSingle = s('ours-single');
  const stockCross = s('stock-cross');
  const hiveCross = s('hive-cross');
  const oursCross = s('ours-cross');
  const hiveSharedSingle = s('hive-shared-single');
  const hiveSharedCross = s('hive-shared-cross');
  const sharedSingle = s('ours-shared-single');
  const sharedCross = s('ours-shared-cross');
  const pipelineSingle = s('ours-pipeline-single');
  const pipelineCross = s('ours-pipeline-cross');
  const gw = (v: Stats) => cpuMs(v.cpu.gateway);
  const lines = [
    `## Gateway comparison, ${new Date().toISOString()}`,
    '',
    `- Command: \`npm run bench -- --suite gateway --duration ${options.duration} --connections ${options.connections} --rounds ${options.rounds}${options.only ? ` --only ${options.only}` : ''}${options.workers ? ` --workers ${options.workers}` : ''}${options.profile ? ' --profile' : ''}\`${note ? ` (${note})` : ''}`,
    `- Machine: ${machine()}; load average before ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — busy with other work: compare the CPU per request and the ratios of this run, not absolute numbers' : ''}`,
    `- ${options.duration} s per row after a ${WARMUP_SECONDS} s warm-up, ${options.rounds} round(s) interleaved (median round shown), autocannon in its own process, each server in its own process; our gateway${options.workers ? ` with SVC_GATEWAY_WORKERS=${options.workers}` : ' in one process'}${options.profile ? ', under --cpu-prof' : ''}`,
    '',
    'Gateway CPU ms per request (the gateway process\'s user + system time over the row ÷ its responses, from /proc); Hive\'s sharing of identical in-flight subgraph requests off:',
    '',
    '| Query | stock @apollo/gateway | Hive Gateway runtime | ours (`SVC_ROLE=gateway`) | the subgraph itself, direct |',
    '|---|---:|---:|---:|---:|',
    `| single subgraph, ${MINIMAL_PARTNERS} partners | ${gw(stockSingle)} | ${gw(hiveSingle)} | **${gw(oursSingle)}** | ${cpuMs(direct.cpu.subgraphs)} |`,
    `| cross subgraph, ${MINIMAL_PARTNERS} × ${MINIMAL_JOBS_PER_PARTNER} jobs | ${gw(stockCross)} | ${gw(hiveCross)} | **${gw(oursCross)}** | – |`,
    `| p99 ms single / cross | ${ms(stockSingle.p99)} / ${ms(stockCross.p99)} | ${ms(hiveSingle.p99)} / ${ms(hiveCross.p99)} | ${ms(oursSingle.p99)} / ${ms(oursCross.p99)} | ${ms(direct.p99)} |`,
    `| req/s single / cross | ${stockSingle.rps.toFixed(0)} / ${stockCross.rps.toFixed(0)} | ${hiveSingle.rps.toFixed(0)} / ${hiveCross.rps.toFixed(0)} | ${oursSingle.rps.toFixed(0)} / ${oursCross.rps.toFixed(0)} | ${direct.rps.toFixed(0)} |`,
    '',
    `- cross, ours ÷ stock: **${x(oursCross.cpu.gateway, stockCross.cpu.gateway)}** (target ≤ 0.33×: ${pass(oursCross.cpu.gateway <= stockCross.cpu.gateway / 3)}); ours ÷ Hive: **${x(oursCross.cpu.gateway, hiveCross.cpu.gateway)}** (target < 1×: ${pass(oursCross.cpu.gateway < hiveCross.cpu.gateway)})`,
    `- single, ours ÷ the subgraph's own CPU per request when called directly: **${x(oursSingle.cpu.gateway, direct.cpu.subgraphs)}** (target ≤ 1.2×: ${pass(oursSingle.cpu.gateway <= 1.2 * direct.cpu.subgraphs)}); stock ${x(stockSingle.cpu.gateway, direct.cpu.subgraphs)}, Hive ${x(hiveSingle.cpu.gateway, direct.cpu.subgraphs)}`,
    `- p99, ours ÷ stock: single ${x(oursSingle.p99, stockSingle.p99)}, cross ${x(oursCross.p99, stockCross.p99)}; ours ÷ Hive: single ${x(oursSingle.p99, hiveSingle.p99)}, cross ${x(oursCross.p99, hiveCross.p99)} (target: below both: ${pass(oursSingle.p99 < Math.min(stockSingle.p99, hiveSingle.p99) && oursCross.p99 < Math.min(stockCross.p99, hiveCross.p99))})`,
    '',
    'Every row:',
    '',
    '| Row | req/s | p50 ms | p99 ms | non-2xx | errors | gateway CPU ms/req | subgraphs CPU ms/req | load generator CPU ms/req | gateway idle CPU ms/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.filter((r) => results.get(r.key)?.length).map((r) => {
      const v = s(r.key);
      const idleMs = r.gatewayPid === undefined ? undefined : idle.get(r.gatewayPid);
      return `| ${r.label} | ${v.rps.toFixed(0)} | ${ms(v.p50)} | ${ms(v.p99)} | ${v.non2xx} | ${v.errors} | ${r.gatewayPid === undefined ? '–' : cpuMs(v.cpu.gateway)} | ${cpuMs(v.cpu.subgraphs)} | ${cpuMs(v.cpu.load)} | ${idleMs === undefined ? '–' : ms(idleMs)} |`;
    }),
    '',
    `- gateway idle CPU ms/s: each gateway's CPU over ${IDLE_SECONDS} s with no load, before the rows (timers, metrics); at r req/s it adds about idle ÷ r to that gateway's CPU per request`,
    '',
    `- req/s: ours single / direct ${x(oursSingle.rps, direct.rps)}; ours cross / stock cross ${x(oursCross.rps, stockCross.rps)}, / Hive cross ${x(oursCross.rps, hiveCross.rps)}`,
    `- with identical in-flight subgraph requests shared (every caller of this benchmark sends the same query, so this is the most sharing can give): gateway CPU ms/req single / cross, Hive (its default) ${gw(hiveSharedSingle)} / ${gw(hiveSharedCross)}, ours (SVC_GATEWAY_DEDUPLICATE_QUERIES=all) ${gw(sharedSingle)} / ${gw(sharedCross)}; subgraphs' CPU ms/req, Hive ${cpuMs(hiveSharedSingle.cpu.subgraphs)} / ${cpuMs(hiveSharedCross.cpu.subgraphs)}, ours ${cpuMs(sharedSingle.cpu.subgraphs)} / ${cpuMs(sharedCross.cpu.subgraphs)}; p99 Hive ${ms(hiveSharedSingle.p99)} / ${ms(hiveSharedCross.p99)}, ours ${ms(sharedSingle.p99)} / ${ms(sharedCross.p99)}`,
    `- ours with its fast path off (SVC_GATEWAY_FAST_PATH=off: every request through Apollo Server's full pipeline), gateway CPU ms/req single / cross: ${gw(pipelineSingle)} / ${gw(pipelineCross)}; with it on (the headline) ÷ off: ${x(oursSingle.cpu.gateway, pipelineSingle.cpu.gateway)} / ${x(oursCross.cpu.gateway, pipelineCross.cpu.gateway)}`,
    `- ceiling of the cross query on this machine (${os.availableParallelism()} cores ÷ the subgraphs' and the load generator's CPU per request in ours' row, a gateway costing nothing): ${ceiling(oursCross).toFixed(0)} req/s = ${x(ceiling(oursCross), stockCross.rps)} stock`,
    '',
  ];
  return lines.join('\n');
}

export function record(section: string): void {
  if (!existsSync(RESULTS_FILE)) return;
  let text = readFileSync(RESULTS_FILE, 'utf8');
  const at = text.indexOf(RESULTS_MARKER);
  if (at === -1) text = `${text.trimEnd()}\n\n${section}`;
  else {
    const after = at + RESULTS_MARKER.length;
    text = `${text.slice(0, after)}\n\n${section}${text.slice(after).replace(/^\n+/, '\n')}`;
  }
  writeFileSync(RESULTS_FILE, `${text.trimEnd()}\n`);
}

// ---------------------------------------------------------------------------------------------

export async function runGatewaySuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const loadBefore = os.loadavg();
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-gw-compare-'));
  const stops: (() => Promise<void>)[] = [];
  let profileDir: string | undefined;
  try {
    ensureHiveInstalled();
    process.stderr.write('starting the minimal subgraphs, stock @apollo/gateway, Hive Gateway and ours …\n');
    const { subgraphs, supergraphFile } = await startMinimalSubgraphs(dir, stops);
    const stock = await startCompareServer('stock', supergraphFile);
    stops.push(() => stock.stop());
    const hive = await startHiveGateway(supergraphFile, 'no-share');
    stops.push(() => hive.stop());
    const hiveShared = await startHiveGateway(supergraphFile, 'share');
    stops.push(() => hiveShared.stop());
    // `--profile` profiles one gateway of ours: the one sharing queries when `--only` names its rows.
    const profileShared = options.only?.includes('shared') ?? false;
    const ours = await startOurGateway(supergraphFile, dir, { ...options, profile: options.profile && !profileShared });
    stops.push(() => ours.stop());
    // The same gateway with identical in-flight queries shared (gateway/README.md): its own rows, so
    // that the targets are read both ways.
    const shared = await startOurGateway(supergraphFile, mkdtempSync(join(dir, 'shared-')), { ...options, profile: options.profile && profileShared }, { SVC_GATEWAY_DEDUPLICATE_QUERIES: 'all' });
    stops.push(() => shared.stop());
    // Ours with every request through Apollo Server's full pipeline (SVC_GATEWAY_FAST_PATH=off,
    // gateway/README.md#the-fast-path): what the fast path saves, measured in the same run.
    const pipeline = await startOurGateway(supergraphFile, mkdtempSync(join(dir, 'pipeline-')), { ...options, profile: false }, { SVC_GATEWAY_FAST_PATH: 'off' });
    stops.push(() => pipeline.stop());
    const profiled = profileShared ? shared : ours;
    profileDir = profiled.profileDir;
    const startupMs = profiled.startupMs;
    const load = new ChildRunner<LoadSpec, LoadRun>(new URL('./load.ts', import.meta.url), 'load generator');
    stops.push(() => load.close());

    const allRows: Row[] = [
      { key: 'direct', label: 'partners subgraph directly, single query', url: subgraphs.partners.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: undefined },
      { key: 'stock-single', label: 'stock @apollo/gateway, single-subgraph query', url: stock.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: stock.pid },
      { key: 'hive-single', label: 'Hive Gateway runtime (in-flight sharing off), single-subgraph query', url: hive.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: hive.pid },
      { key: 'ours-single', label: 'ours (SVC_ROLE=gateway), single-subgraph query', url: ours.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: ours.pid },
      { key: 'stock-cross', label: 'stock @apollo/gateway, cross-subgraph query', url: stock.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: stock.pid },
      { key: 'hive-cross', label: 'Hive Gateway runtime (in-flight sharing off), cross-subgraph query', url: hive.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: hive.pid },
      { key: 'ours-cross', label: 'ours (SVC_ROLE=gateway), cross-subgraph query', url: ours.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: ours.pid },
      { key: 'hive-shared-single', label: 'Hive Gateway runtime, its default in-flight sharing, single-subgraph query', url: hiveShared.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: hiveShared.pid },
      { key: 'hive-shared-cross', label: 'Hive Gateway runtime, its default in-flight sharing, cross-subgraph query', url: hiveShared.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: hiveShared.pid },
      { key: 'ours-shared-single', label: 'ours, identical queries shared (SVC_GATEWAY_DEDUPLICATE_QUERIES=all), single-subgraph query', url: shared.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: shared.pid },
      { key: 'ours-shared-cross', label: 'ours, identical queries shared, cross-subgraph query', url: shared.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: shared.pid },
      { key: 'ours-pipeline-single', label: 'ours with its fast path off (SVC_GATEWAY_FAST_PATH=off), single-subgraph query', url: pipeline.url, query: MINIMAL_SINGLE_QUERY, cross: false, gatewayPid: pipeline.pid },
      { key: 'ours-pipeline-cross', label: 'ours with its fast path off, cross-subgraph query', url: pipeline.url, query: MINIMAL_CROSS_QUERY, cross: true, gatewayPid: pipeline.pid },
    ];
    const processes: Processes = { subgraphs: [subgraphs.partners.pid, subgraphs.pipeline.pid], load: load.pid };
    const rows = allRows.filter((r) => !options.only || r.key.includes(options.only));
    for (const row of rows) await check(row);
    // What each gateway spends with nothing to do (timers, metrics, health checks): at a low
    // request rate it weighs on its CPU per request, so the report shows it.
    const gatewayPids = [...new Set(rows.flatMap((r) => (r.gatewayPid === undefined ? [] : [r.gatewayPid])))];
    const idleBefore = new Map(gatewayPids.map((pid) => [pid, cpuMsOf(pid, true)]));
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idle = new Map(gatewayPids.map((pid) => [pid, (cpuMsOf(pid, true) - idleBefore.get(pid)!) / IDLE_SECONDS]));
    const results = await measureRounds(load, rows, processes, options, (s) => `p99 ${ms(s.p99)} ms, CPU ms/req gateway ${cpuMs(s.cpu.gateway)} subgraphs ${cpuMs(s.cpu.subgraphs)} load ${cpuMs(s.cpu.load)}`);
    const loadAfter = os.loadavg();
    for (const stop of stops.reverse().splice(0)) await stop();
    const section = report(options, loadBefore, loadAfter, rows, results, '', idle);
    let profile = '';
    if (profileDir) {
      // The main thread's profile: the largest (a process also writes one per worker thread).
      const file = readdirSync(profileDir)
        .filter((f) => f.endsWith('.cpuprofile'))
        .sort((a, b) => statSync(join(profileDir!, b)).size - statSync(join(profileDir!, a)).size)[0];
      profile = file
        ? `\nOur gateway's CPU profile after its start-up (\`${join(profileDir, file)}\`):\n\n${profileMarkdown(summarizeProfile(join(profileDir, file), 25, startupMs + 500))}`
        : '\n(no CPU profile was written)\n';
    }
    process.stdout.write(`\n${section}${profile}\n`);
    if (options.record) record(section);
  } finally {
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`));
    rmSync(dir, { recursive: true, force: true });
  }
}

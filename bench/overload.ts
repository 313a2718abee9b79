/**
 * Overload: 10× the documented partner load against one process, with p99 and memory over time.
 *
 *   npm run bench -- --suite overload [--duration <s, default 120>] [--rate <req/s, default 300>] [--connections <n, default 200>] [--profile] [--no-record] [--server-env SVC_NAME=value]…
 *
 * The spec documents a partner's limits as 500 req/min overall with bursts of 30 req/s; ten times
 * the burst is 300 req/s. The embedded system (`SVC_ROLE=all`, SQLite, default load-shedding
 * settings) runs in a child process with its per-partner rate limits off, as if many partners each
 * stayed within their own limit; autocannon offers `--rate` requests per second of
 * `GET /api/identity/{gpid}` over `--connections` connections. Every 10 s the suite prints and
 * records the window's throughput, p99, the share refused (429/503) and the server's RSS: a
 * process that degrades well keeps p99 and RSS flat and refuses the excess.
 */
import { recordResults } from './results-file.js';
import { profileMarkdown, summarizeProfile } from './cpu-profile.js';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ChildRunner } from './child.js';
import { SERVER_NODE_FLAGS } from './server-flags.js';
import type { LoadRun, LoadSpec } from './load.js';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WINDOW_SECONDS = 10;
const DOCUMENTED_BURST = 30;

interface Options {
  duration: number;
  rate: number;
  connections: number;
  /** Run the server under `node --cpu-prof` and print where its time went. */
  profile: boolean;
  record: boolean;
  /** `--server-env SVC_…=value`: a setting of the server other than the defaults (e.g. SVC_SHED_TURN_MS=0 for a comparison). */
  serverEnv: Record<string, string>;
}

const USAGE = 'usage: npm run bench -- --suite overload [--duration <s, default 120>] [--rate <req/s, default 300>] [--connections <n, default 200>] [--profile] [--no-record] [--server-env SVC_NAME=value]…';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { duration: 120, rate: DOCUMENTED_BURST * 10, connections: 200, profile: false, record: true, serverEnv: {} };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--profile') {
      options.profile = true;
      continue;
    }
    if (argv[i] === '--no-record') {
      options.record = false;
      continue;
    }
    if (argv[i] === '--server-env') {
      const m = /^(SVC_[A-Z0-9_]+)=(.*)$/.exec(argv[++i] ?? '');
      if (!m) throw new Error(`--server-env takes SVC_NAME=value\n${USAGE}`);
      options.serverEnv[m[1]!] = m[2]!;
      continue;
    }
    const m = /^--(duration|rate|connections)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
    const raw = m[2] ?? argv[++i] ?? '';
    const value = Number(raw);
    if (!(Number.isInteger(value) && value >= 1 && value <= 100_000)) throw new Error(`--${m[1]} must be a positive integer (got "${raw}")\n${USAGE}`);
    options[m[1] as 'duration' | 'rate' | 'connections'] = value;
  }
  return options;
}


/** Resident memory of a process from /proc (Linux), in MiB; NaN elsewhere. */
function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/**
 * One `GET /health` a second on a new connection (no keep-alive agent) until `stop` settles: the
 * time to its answer includes the wait to be accepted, which is what a new caller or a balancer's
 * probe sees. Returns the slowest, in ms; a probe still unanswered after a second when `stop`
 * settles counts as the time it had waited so far, negated (so that the window can say
 * "unanswered after").
 */
async function probeHealthEverySecond(base: string, stop: Promise<unknown>): Promise<number> {
  const probes: { started: number; answeredMs?: number }[] = [];
  let stopped = false;
  void stop.then(
    () => (stopped = true),
    () => (stopped = true),
  );
  while (!stopped) {
    const probe: { started: number; answeredMs?: number } = { started: performance.now() };
    probes.push(probe);
    const req = http.get(`${base}/health`, { agent: false, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => (probe.answeredMs = performance.now() - probe.started));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => undefined);
    await Promise.race([new Promise((r) => setTimeout(r, 1000)), stop.catch(() => undefined)]);
  }
  const now = performance.now();
  // The last probe may have been sent just before the end: only one that waited a full second counts.
  const unanswered = probes.filter((p) => p.answeredMs === undefined && now - p.started >= 1000).map((p) => now - p.started);
  if (unanswered.length) return -Math.max(...unanswered);
  const answered = probes.flatMap((p) => (p.answeredMs === undefined ? [] : [p.answeredMs]));
  return answered.length ? Math.max(...answered) : Number.NaN;
}

interface Window {
  second: number;
  /** Slowest /health on a new connection during the window (ms; negative: one unanswered that long at the window's end). */
  healthMaxMs: number;
  rps: number;
  p50: number;
  p99: number;
  refused: number;
  other: number;
  errors: number;
  rssMiB: number;
}

function windowOf(second: number, run: LoadRun, rss: number, healthMaxMs: number): Window {
  const sorted = Float64Array.from(run.latencies).sort();
  const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN);
  let refused = 0;
  let other = 0;
  for (const [status, count] of Object.entries(run.statusCounts)) {
    if (status === '429' || status === '503') refused += count;
    else if (!status.startsWith('2')) other += count;
  }
  return { second, healthMaxMs, rps: sorted.length / run.durationSeconds, p50: pct(50), p99: pct(99), refused: sorted.length ? refused / sorted.length : 0, other, errors: run.errors, rssMiB: rss };
}

const fmtHealth = (ms: number) => (Number.isNaN(ms) ? '–' : ms < 0 ? `unanswered after ${(-ms).toFixed(0)}` : ms.toFixed(0));

export async function runOverloadSuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const loadBefore = os.loadavg();
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-overload-`);
  const token = `op_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const profileDir = options.profile ? mkdtempSync(join(os.tmpdir(), 'svc-bench-overload-prof-')) : undefined;
  const started = Date.now();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), 'server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', SVC_ROLE: 'all', SVC_PORT: String(port), SVC_HOST: '127.0.0.1', SVC_INTERNAL_PORT: 'off', SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_TOKEN: token, SVC_RATE_LIMITS: 'off', SVC_LOG_LEVEL: 'warn', ...options.serverEnv },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  let loadStartedMs = started;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const load = new ChildRunner<LoadSpec, LoadRun>(new URL('./load.ts', import.meta.url), 'load generator');
  const base = `http://127.0.0.1:${port}`;
  try {
    const deadline = Date.now() + 120_000;
    while (!(await fetch(`${base}/ready`).then((r) => r.ok, () => false))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error('the system did not become ready');
      await new Promise((r) => setTimeout(r, 200));
    }
    const bearer = { authorization: `Bearer ${token}` };
    const created = await fetch(`${base}/api/identity/resolve`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json', 'x-svc-source': 'pulse' },
      body: JSON.stringify({ name: 'Ada Overload', dob: '1980-03-04', email: 'ada.overload@example.org' }),
    });
    const gpid = ((await created.json()) as { gpid?: string }).gpid;
    if (!gpid) throw new Error(`could not seed an identity: ${created.status}`);
    const spec: LoadSpec = { url: `${base}/api/identity/${gpid}`, method: 'GET', headers: bearer, connections: options.connections, overallRate: options.rate, duration: WINDOW_SECONDS };
    process.stderr.write(`overload: ${options.rate} req/s offered over ${options.connections} connections for ${options.duration} s (RSS at start ${rssMiB(child.pid!).toFixed(0)} MiB)\n`);
    loadStartedMs = Date.now();
    const windows: Window[] = [];
    for (let second = 0; second < options.duration; second += WINDOW_SECONDS) {
      const running = load.run({ ...spec, duration: Math.min(WINDOW_SECONDS, options.duration - second) });
      const health = await probeHealthEverySecond(base, running);
      const w = windowOf(second, await running, rssMiB(child.pid!), health);
      windows.push(w);
      process.stderr.write(`  ${String(second).padStart(4)} s: ${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms, refused ${(w.refused * 100).toFixed(1)}%, RSS ${w.rssMiB.toFixed(0)} MiB, /health ≤ ${fmtHealth(w.healthMaxMs)} ms\n`);
    }
    const section = [
      `## ${new Date().toISOString()} — overload, ${+(options.rate / DOCUMENTED_BURST).toFixed(1)}× the documented partner burst (\`--suite overload\`)`,
      '',
      `- Machine: ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}; load average before the run ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — busy with other work' : ''}`,
      `- \`npm run bench -- --suite overload --duration ${options.duration} --rate ${options.rate} --connections ${options.connections}${Object.entries(options.serverEnv).map(([k, v]) => ` --server-env ${k}=${v}`).join("")}\`: ${options.rate} req/s offered (${+(options.rate / DOCUMENTED_BURST).toFixed(1)} × the documented 30 req/s burst) over ${options.connections} connections for ${options.duration} s: \`GET /api/identity/{gpid}\` on the embedded system (SQLite), rate limits off, load shedding SVC_MAX_IN_FLIGHT 64, SVC_SHED_EVENT_LOOP_DELAY_MS 1000, SVC_SHED_TURN_MS 50 (the defaults)${Object.keys(options.serverEnv).length ? ` except ${Object.entries(options.serverEnv).map(([k, v]) => `${k}=${v}`).join(', ')}` : ''}; one \`GET /health\` a second on a new connection`,
      '',
      '| from s | answered req/s | p50 ms | p99 ms | refused 429/503 | other non-2xx | socket errors | server RSS MiB | slowest /health, new connection, ms |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...windows.map((w) => `| ${w.second} | ${w.rps.toFixed(0)} | ${w.p50.toFixed(1)} | ${w.p99.toFixed(1)} | ${(w.refused * 100).toFixed(1)}% | ${w.other} | ${w.errors} | ${w.rssMiB.toFixed(0)} | ${fmtHealth(w.healthMaxMs)} |`),
      '',
    ].join('\n');
    process.stdout.write(`\n${section}\n`);
    if (options.record) recordResults(section);
  } finally {
    await load.close();
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (profileDir) {
    // The profile is written when the server exits; its start-up (until the load began) is left out.
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    process.stdout.write(file ? `\nThe server's CPU profile under load (\`${join(profileDir, file)}\`):\n\n${profileMarkdown(summarizeProfile(join(profileDir, file), 30, loadStartedMs - started))}\n` : '\n(no CPU profile was written)\n');
  }
}

/**
 * Overload: 10× the documented partner load against one process, with p99 and memory over time.
 *
 *   npm run bench -- --suite overload [--duration <s, default 120>] [--rate <req/s, default 300>] [--connections <n, default 200>]
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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { ChildRunner } from './child.js';
import type { LoadRun, LoadSpec } from './load.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const WINDOW_SECONDS = 10;
const DOCUMENTED_BURST = 30;

interface Options {
  duration: number;
  rate: number;
  connections: number;
}

const USAGE = 'usage: npm run bench -- --suite overload [--duration <s, default 120>] [--rate <req/s, default 300>] [--connections <n, default 200>]';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { duration: 120, rate: DOCUMENTED_BURST * 10, connections: 200 };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--(duration|rate|connections)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
    const raw = m[2] ?? argv[++i] ?? '';
    const value = Number(raw);
    if (!(Number.isInteger(value) && value >= 1 && value <= 100_000)) throw new Error(`--${m[1]} must be a positive integer (got "${raw}")\n${USAGE}`);
    options[m[1] as keyof Options] = value;
  }
  return options;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
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

interface Window {
  second: number;
  rps: number;
  p50: number;
  p99: number;
  refused: number;
  other: number;
  errors: number;
  rssMiB: number;
}

function windowOf(second: number, run: LoadRun, rss: number): Window {
  const sorted = Float64Array.from(run.latencies).sort();
  const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : Number.NaN);
  let refused = 0;
  let other = 0;
  for (const [status, count] of Object.entries(run.statusCounts)) {
    if (status === '429' || status === '503') refused += count;
    else if (!status.startsWith('2')) other += count;
  }
  return { second, rps: sorted.length / run.durationSeconds, p50: pct(50), p99: pct(99), refused: sorted.length ? refused / sorted.length : 0, other, errors: run.errors, rssMiB: rss };
}

export async function runOverloadSuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const loadBefore = os.loadavg();
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-overload-`);
  const token = `op_${randomBytes(24).toString('base64url')}`;
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', SVC_ROLE: 'all', SVC_PORT: String(port), SVC_HOST: '127.0.0.1', SVC_INTERNAL_PORT: 'off', SVC_DATA_DIR: dataDir, SVC_BOOTSTRAP_TOKEN: token, SVC_RATE_LIMITS: 'off', SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
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
    const windows: Window[] = [];
    for (let second = 0; second < options.duration; second += WINDOW_SECONDS) {
      const run = await load.run({ ...spec, duration: Math.min(WINDOW_SECONDS, options.duration - second) });
      const w = windowOf(second, run, rssMiB(child.pid!));
      windows.push(w);
      process.stderr.write(`  ${String(second).padStart(4)} s: ${w.rps.toFixed(0)} req/s, p50 ${w.p50.toFixed(1)} ms, p99 ${w.p99.toFixed(1)} ms, refused ${(w.refused * 100).toFixed(1)}%, RSS ${w.rssMiB.toFixed(0)} MiB\n`);
    }
    const section = [
      `## ${new Date().toISOString()} — overload, 10× the documented partner burst (\`--suite overload\`)`,
      '',
      `- Machine: ${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}, ${os.cpus().length} cores, Node ${process.version}; load average before the run ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — busy with other work' : ''}`,
      `- ${options.rate} req/s offered (10 × the documented 30 req/s burst) over ${options.connections} connections for ${options.duration} s: \`GET /api/identity/{gpid}\` on the embedded system (SQLite), rate limits off, default load shedding (SVC_MAX_IN_FLIGHT 64, SVC_SHED_EVENT_LOOP_DELAY_MS 1000)`,
      '',
      '| from s | answered req/s | p50 ms | p99 ms | refused 429/503 | other non-2xx | socket errors | server RSS MiB |',
      '|---:|---:|---:|---:|---:|---:|---:|---:|',
      ...windows.map((w) => `| ${w.second} | ${w.rps.toFixed(0)} | ${w.p50.toFixed(1)} | ${w.p99.toFixed(1)} | ${(w.refused * 100).toFixed(1)}% | ${w.other} | ${w.errors} | ${w.rssMiB.toFixed(0)} |`),
      '',
    ].join('\n');
    process.stdout.write(`\n${section}\n`);
    recordResults(section);
  } finally {
    await load.close();
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

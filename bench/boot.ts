/**
 * `npm run bench -- --suite boot [--rounds 5] [--database sqlite|postgres]`: how long a process
 * takes from its start to its first `/ready` 200, and the CPU it spent on the way (all its
 * threads, from /proc), for the compiled service `npm start` runs (`dist/server.mjs`, build.ts)
 * against the same sources loaded through tsx (`node --import tsx server.ts`).
 *
 * Roles: the embedded default (`all`); with `--database postgres` also a small subgraph
 * (`subgraph:partner`) and the FHIR subgraph with its job thread (`subgraph:fhir`, which starts
 * the thread with itself), as the distributed mode runs only on PostgreSQL. The two forms
 * alternate within each round, each on fresh storage (a temporary data directory; on PostgreSQL a
 * fresh database from SVC_BENCH_ADMIN_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test,
 * and Redis at SVC_BENCH_REDIS_URL, default redis://127.0.0.1:6379); medians over the rounds.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer } from '../build.js';
import { freshDatabase } from './fresh-database.js';
import { cpuMsOf } from './process-cpu.js';
import { recordResults } from './results-file.js';
import { SERVER_NODE_FLAGS } from './server-flags.js';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROLES = ['all', 'subgraph:partner', 'subgraph:fhir'] as const;
const FORMS = {
  compiled: ['dist/server.mjs'],
  sources: ['--import', 'tsx', 'server.ts'],
} as const;
type Form = keyof typeof FORMS;

interface Options {
  rounds: number;
  database: 'sqlite' | 'postgres';
}

function parseOptions(argv: readonly string[]): Options {
  const options: Options = { rounds: 5, database: 'sqlite' };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    const value = inline ?? argv[++i] ?? '';
    if (flag === '--rounds') options.rounds = Math.max(1, Number.parseInt(value, 10) || 5);
    else if (flag === '--database' && (value === 'sqlite' || value === 'postgres')) options.database = value;
    else throw new Error(`bench boot: unknown option ${argv[i]} (--rounds N, --database sqlite|postgres)`);
  }
  return options;
}


/** One start: ms to the first /ready 200 and the process's CPU ms at that moment. */
async function startOnce(role: string, form: Form, options: Options): Promise<{ wallMs: number; cpuMs: number }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'svc-bench-boot-'));
  const database = options.database === 'postgres' ? await freshDatabase(process.env['SVC_BENCH_ADMIN_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test', 'svc_bench_boot') : undefined;
  const port = await freePort();
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    SVC_ROLE: role,
    SVC_PORT: String(port),
    SVC_HOST: '127.0.0.1',
    SVC_INTERNAL_PORT: String(await freePort()),
    SVC_DATA_DIR: dataDir,
    SVC_LOG_LEVEL: 'warn',
    SVC_INTERNAL_SECRET: 'bench-boot-internal-secret-0123456789abcdef',
    ...(database ? { SVC_DATABASE_URL: database.url, SVC_REDIS_URL: process.env['SVC_BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379', SVC_REDIS_PREFIX: database.name } : {}),
  };
  const started = performance.now();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...FORMS[form]], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${role} (${form}) exited before it was ready:\n${stderr}`);
      const ready = await fetch(`http://127.0.0.1:${port}/ready`).then((r) => r.ok, () => false);
      if (ready) return { wallMs: performance.now() - started, cpuMs: cpuMsOf(child.pid) };
      await new Promise((r) => setTimeout(r, 25));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

export async function runBootSuite(argv: readonly string[]): Promise<void> {
  const options = parseOptions(argv);
  await buildServer();
  const loadBefore = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const rows: string[] = [];
  for (const role of options.database === 'postgres' ? ROLES : ROLES.slice(0, 1)) {
    const samples: Record<Form, { wallMs: number; cpuMs: number }[]> = { compiled: [], sources: [] };
    // One start of each form first, not counted: disk caches and tsx's transform cache warm up.
    for (const form of Object.keys(FORMS) as Form[]) await startOnce(role, form, options);
    for (let round = 0; round < options.rounds; round++) {
      for (const form of Object.keys(FORMS) as Form[]) samples[form].push(await startOnce(role, form, options));
    }
    const compiled = { wall: median(samples.compiled.map((s) => s.wallMs)), cpu: median(samples.compiled.map((s) => s.cpuMs)) };
    const sources = { wall: median(samples.sources.map((s) => s.wallMs)), cpu: median(samples.sources.map((s) => s.cpuMs)) };
    rows.push(`| \`${role}\` | ${compiled.wall.toFixed(0)} | ${compiled.cpu.toFixed(0)} | ${sources.wall.toFixed(0)} | ${sources.cpu.toFixed(0)} | ${(compiled.cpu / sources.cpu).toFixed(2)} |`);
    process.stdout.write(`${rows.at(-1)}\n`);
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  recordResults(
    [
      `## Boot: compiled (dist/server.mjs) against sources through tsx, ${options.database}, ${new Date().toISOString().slice(0, 10)}`,
      '',
      `\`npm run bench -- --suite boot --rounds ${options.rounds} --database ${options.database}\` on ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; load average before ${loadBefore}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}.`,
      `Milliseconds from the process's start to its first \`/ready\` 200, and the CPU it had spent then (all threads), medians of ${options.rounds} starts each, the two forms alternating.`,
      '',
      '| role | compiled: to ready | compiled: CPU | sources: to ready | sources: CPU | CPU, compiled / sources |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
}

/**
 * Identity resolution speed: match and resolve through the REST facade as the registry grows.
 *
 *   npx tsx bench/identity/speed.ts --identities 100000
 *   npx tsx bench/identity/speed.ts --identities 10000,100000,1000000 [--duration 20] [--connections 8]
 *                                   [--rate 17] [--database-url postgres://…] [--seed 20260612] [--no-record]
 *
 * 1. Seeds the registry straight through the storage layer (`SqlIdentityRegistry.commit`, batches of
 *    2,000 records, one transaction each) with synthetic people from synthetic.ts, fingerprinted by
 *    the real pipeline stages 1-2 under the same key the service then uses. Sizes are cumulative:
 *    with `--identities 10000,100000` the 10k registry is measured, then grown to 100k.
 *    A single size above 10,000 is measured at 10,000 first, so growth can be compared.
 * 2. Boots the embedded system (SQLite in a temporary directory, or PostgreSQL with --database-url)
 *    with SVC_RATE_LIMITS=off and listens on 127.0.0.1.
 * 3. At each size, drives POST /api/identity/match and POST /api/identity/resolve from a child process
 *    (the load generator never shares the server's event loop), with query variants of seeded people
 *    (typos, nicknames, swapped dates, changed contacts …: 80%) and people never seeded (20%):
 *    - paced at the spec's identity rate, 1,000 matches/min (`--rate` per second, default 17), for
 *      the spec's p95 target (180 ms for match);
 *    - saturated with `--connections` concurrent callers, for the throughput ceiling.
 * 4. Prints a markdown table and records it in bench/RESULTS.md (below the marker, newest first)
 *    with the date and the machine.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------
// The load generator (child process)

interface LoadJob {
  url: string;
  headers: Record<string, string>;
  /** Request bodies, used in turn. */
  bodies: string[];
  /** Extra header value per body (the X-Svc-Source of a resolve), same index. */
  sources?: string[];
  mode: 'paced' | 'closed';
  /** Requests per second (paced). */
  rate: number;
  /** Concurrent callers (closed). */
  connections: number;
  seconds: number;
}

interface LoadResult {
  latencies: Float64Array;
  statuses: Record<string, number>;
  errors: number;
  seconds: number;
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let errors = 0;
  let next = 0;
  const one = async () => {
    const i = next++ % job.bodies.length;
    const headers = job.sources ? { ...job.headers, 'x-svc-source': job.sources[i]! } : job.headers;
    const started = performance.now();
    try {
      const res = await fetch(job.url, { method: 'POST', headers, body: job.bodies[i]! });
      await res.arrayBuffer();
      latencies.push(performance.now() - started);
      statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    } catch {
      errors += 1;
    }
  };
  const begin = performance.now();
  const end = begin + job.seconds * 1000;
  if (job.mode === 'closed') {
    await Promise.all(
      Array.from({ length: job.connections }, async () => {
        while (performance.now() < end) await one();
      }),
    );
  } else {
    // Open loop: requests start on schedule whether or not earlier ones have finished.
    const interval = 1000 / job.rate;
    const inFlight: Promise<void>[] = [];
    for (let k = 0; ; k++) {
      const at = begin + k * interval;
      if (at >= end) break;
      const wait = at - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      inFlight.push(one());
    }
    await Promise.all(inFlight);
  }
  return { latencies: Float64Array.from(latencies), statuses, errors, seconds: (performance.now() - begin) / 1000 };
}

if (process.argv.includes('--load-worker')) {
  process.on('message', (message: { kind: 'run'; id: number; job: LoadJob } | { kind: 'exit' }) => {
    if (message.kind === 'exit') {
      process.disconnect?.();
      return;
    }
    runLoad(message.job).then(
      (result) => process.send?.({ kind: 'done', id: message.id, result }),
      (err: unknown) => process.send?.({ kind: 'failed', id: message.id, message: String(err) }),
    );
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

class LoadGenerator {
  private readonly child: ChildProcess;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve(r: LoadResult): void; reject(e: Error): void }>();

  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), ['--load-worker'], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: { kind: 'done'; id: number; result: LoadResult } | { kind: 'failed'; id: number; message: string }) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.kind === 'done') w?.resolve(m.result);
      else w?.reject(new Error(m.message));
    });
  }

  run(job: LoadJob): Promise<LoadResult> {
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ kind: 'run', id, job });
    });
  }

  close(): void {
    this.child.send({ kind: 'exit' });
  }
}

// ---------------------------------------------------------------------------------------------
// Arguments

interface Options {
  sizes: number[];
  duration: number;
  connections: number;
  rate: number;
  seed: number;
  databaseUrl: string | undefined;
  record: boolean;
}

const USAGE =
  'usage: npx tsx bench/identity/speed.ts --identities <n[,n…]> [--duration <s, 20>] [--connections <n, 8>] [--rate <req/s, 17>] [--seed <n>] [--database-url <postgres url>] [--no-record]';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { sizes: [100_000], duration: 20, connections: 8, rate: 17, seed: 20260612, databaseUrl: undefined, record: true };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--help' || arg === '-h') {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    }
    if (arg === '--no-record') {
      options.record = false;
      continue;
    }
    const match = /^--(identities|duration|connections|rate|seed|database-url)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument "${arg}"\n${USAGE}`);
    const raw = match[2] ?? argv[++i] ?? '';
    const number = (min: number, max: number) => {
      const v = Number(raw);
      if (!Number.isFinite(v) || v < min || v > max) throw new Error(`--${match[1]} must be from ${min} to ${max} (got "${raw}")`);
      return v;
    };
    switch (match[1]) {
      case 'identities': {
        const sizes = raw.split(',').map((s) => Number(s.replaceAll('_', '')));
        if (sizes.some((n) => !Number.isInteger(n) || n < 100 || n > 5_000_000)) throw new Error(`--identities takes sizes from 100 to 5,000,000 (got "${raw}")`);
        options.sizes = [...new Set(sizes)].sort((a, b) => a - b);
        break;
      }
      case 'duration':
        options.duration = number(2, 600);
        break;
      case 'connections':
        options.connections = Math.floor(number(1, 256));
        break;
      case 'rate':
        options.rate = number(1, 2000);
        break;
      case 'seed':
        options.seed = Math.floor(number(0, 2 ** 31));
        break;
      case 'database-url':
        options.databaseUrl = raw;
        break;
    }
  }
  if (options.sizes.length === 1 && options.sizes[0]! > 10_000) options.sizes.unshift(10_000);
  return options;
}

// ---------------------------------------------------------------------------------------------
// Measurement

interface Row {
  size: number;
  route: 'match' | 'resolve';
  mode: 'paced' | 'closed';
  load: string;
  result: LoadResult;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function summarize(r: LoadResult) {
  const sorted = r.latencies.slice().sort();
  const count = r.latencies.length;
  return { count, rps: count / r.seconds, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99) };
}

const fmt = (x: number, digits = 1) => (Number.isFinite(x) ? x.toFixed(digits) : '–');
const thousands = (n: number) => n.toLocaleString('en-US');

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

const RESULTS_FILE = fileURLToPath(new URL('../RESULTS.md', import.meta.url));
const RESULTS_MARKER = '<!-- Newest results first; bench/run.ts inserts each run below this line. -->';

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const { loadConfig, openDatabase, newPatientGpid } = await import('@svc/platform');
  const { startSystem } = await import('../../system.js');
  const { migrations } = await import('../../subgraphs/identity/src/migrations/index.js');
  const { SqlIdentityRegistry } = await import('../../subgraphs/identity/src/entities/sql-registry.js');
  const { Sql } = await import('../../subgraphs/identity/src/entities/sql.js');
  const { loadFingerprintKeyRing } = await import('../../subgraphs/identity/src/fingerprint-key.js');
  const domain = await import('../../subgraphs/identity/src/domain/index.js');
  const synthetic = await import('./synthetic.js');

  const maxSize = options.sizes.at(-1)!;
  const heldOut = 5_000;
  const dataDir = mkdtempSync(join(os.tmpdir(), 'svc-identity-speed-'));
  const token = `bench_${randomBytes(24).toString('base64url')}`;
  const env: Record<string, string> = { SVC_DATA_DIR: dataDir, SVC_RATE_LIMITS: 'off', SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: token, SVC_PORT: '0' };
  if (options.databaseUrl) env['SVC_DATABASE_URL'] = options.databaseUrl;
  const config = loadConfig(env);
  const log = (message: string) => process.stdout.write(`[${new Date().toISOString().slice(11, 19)}] ${message}\n`);

  log(`population of ${thousands(maxSize + heldOut)} synthetic people (seed ${options.seed})`);
  const population = synthetic.generatePopulation(maxSize + heldOut, options.seed);
  const seeded = population.slice(0, maxSize);
  const unseen = population.slice(maxSize);

  // The seeding connection: the storage layer itself, under the key the service will load.
  const orm = await openDatabase({ config, owner: 'identity', entities: [], migrations });
  // Random keys land all over the key index: a larger page cache keeps bulk inserts from thrashing.
  if (!options.databaseUrl) await Sql.of(orm).rows('pragma cache_size = -262144');
  const registry = new SqlIdentityRegistry(Sql.of(orm));
  const fingerprinter = new domain.Fingerprinter(loadFingerprintKeyRing(config));
  const rng = new synthetic.Rng(options.seed ^ 0x2545f491);
  const now = new Date();
  let seededCount = 0;
  let seedSeconds = 0;

  async function seedUpTo(size: number): Promise<void> {
    const started = performance.now();
    const BATCH = 2000;
    while (seededCount < size) {
      const batch: import('../../subgraphs/identity/src/domain/index.js').IdentityRecord[] = [];
      const end = Math.min(size, seededCount + BATCH);
      const at = now.toISOString();
      for (let i = seededCount; i < end; i++) {
        const payload = synthetic.cleanPayload(rng, seeded[i]!);
        const d = domain.acceptDemographics(payload, { purpose: 'resolve', now });
        const { write } = domain.fingerprintDemographics(d, fingerprinter);
        batch.push({
          gpid: newPatientGpid(),
          entityType: 'patient',
          status: 'SHADOW',
          fields: write.fields,
          blockingKeys: write.blockingKeys,
          sources: [domain.SOURCE_ORIGINS[i % domain.SOURCE_ORIGINS.length]!],
          links: [],
          mergedInto: null,
          createdAt: at,
          updatedAt: at,
          version: 1,
        });
      }
      for (let attempt = 1; ; attempt++) {
        try {
          await registry.commit({ inserts: batch, updates: [], transitions: [] });
          break;
        } catch (err) {
          // A random 32-bit GPID already taken: draw that one again (as the pipeline's retry does).
          const gpid = (err as { details?: { reason?: string; gpid?: string } }).details;
          if (gpid?.reason !== 'gpid_taken' || attempt > 20) throw err;
          const i = batch.findIndex((r) => r.gpid === gpid.gpid);
          batch[i] = { ...batch[i]!, gpid: newPatientGpid() };
        }
      }
      seededCount = end;
      if (seededCount % 50_000 === 0 || seededCount === size) log(`  seeded ${thousands(seededCount)} (${fmt((performance.now() - started) / 1000)} s)`);
    }
    seedSeconds += (performance.now() - started) / 1000;
  }

  // Query bodies: variants of seeded people (80%) and people never seeded (20%).
  function bodies(size: number, count: number): { bodies: string[]; sources: string[] } {
    const out: string[] = [];
    const sources: string[] = [];
    for (let k = 0; k < count; k++) {
      const person = rng.chance(0.8) ? seeded[rng.int(0, size - 1)]! : unseen[rng.int(0, unseen.length - 1)]!;
      const variant = synthetic.corruptedVariant(rng, person, synthetic.corruptionCount(rng));
      const payload = { ...variant.payload };
      if (payload.name === undefined) payload.name = `${person.given} ${person.family}`;
      out.push(JSON.stringify(payload));
      sources.push(rng.pick(domain.SOURCE_ORIGINS));
    }
    return { bodies: out, sources };
  }

  const rows: Row[] = [];
  const sizes: Array<{ size: number; records: number; keys: number; bytes: number | null; seconds: number }> = [];
  const loadBefore = os.loadavg();
  let system: Awaited<ReturnType<typeof startSystem>> | undefined;
  const loader = new LoadGenerator();
  try {
    for (const size of options.sizes) {
      log(`seeding up to ${thousands(size)} identities`);
      const before = seedSeconds;
      await seedUpTo(size);
      // Measure a settled database: the seeding connection's WAL folded into the main file.
      if (!options.databaseUrl) await Sql.of(orm).rows('pragma wal_checkpoint(TRUNCATE)');
      const counts = await Sql.of(orm).rows<{ records: number | string; keys: number | string }>(
        'select (select count(*) from identity_records) as records, (select count(*) from identity_blocking_keys) as keys',
      );
      const file = join(dataDir, 'identity.sqlite');
      sizes.push({
        size,
        records: Number(counts[0]!.records),
        keys: Number(counts[0]!.keys),
        bytes: existsSync(file) ? statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0) : null,
        seconds: seedSeconds - before,
      });

      if (!system) {
        system = await startSystem(config);
        await system.app.listen({ port: 0, host: '127.0.0.1' });
      }
      const base = `http://127.0.0.1:${(system.app.server.address() as AddressInfo).port}`;
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const match = bodies(size, 4000);
      const resolve = bodies(size, 4000);

      // Sanity check and warm-up (JIT, query plans, the credential cache).
      const probe = await fetch(`${base}/api/identity/match`, { method: 'POST', headers, body: match.bodies[0]! });
      if (probe.status !== 200) throw new Error(`match answered ${probe.status}: ${await probe.text()}`);
      await loader.run({ url: `${base}/api/identity/match`, headers, bodies: match.bodies.slice(3000), mode: 'closed', rate: 0, connections: options.connections, seconds: 2 });

      for (const [route, set] of [['match', match], ['resolve', resolve]] as const) {
        const url = `${base}/api/identity/${route}`;
        const sources = route === 'resolve' ? set.sources : undefined;
        log(`  ${route} at ${thousands(size)}: paced ${options.rate}/s for ${options.duration} s`);
        const paced = await loader.run({ url, headers, bodies: set.bodies.slice(0, 2000), ...(sources ? { sources: sources.slice(0, 2000) } : {}), mode: 'paced', rate: options.rate, connections: 0, seconds: options.duration });
        rows.push({ size, route, mode: 'paced', load: `${options.rate}/s open loop`, result: paced });
        log(`  ${route} at ${thousands(size)}: ${options.connections} connections for ${options.duration} s`);
        const closed = await loader.run({ url, headers, bodies: set.bodies.slice(2000), ...(sources ? { sources: sources.slice(2000) } : {}), mode: 'closed', rate: 0, connections: options.connections, seconds: options.duration });
        rows.push({ size, route, mode: 'closed', load: `${options.connections} connections`, result: closed });
        for (const r of [paced, closed]) {
          const s = summarize(r);
          log(`    ${thousands(s.count)} requests, ${fmt(s.rps)} req/s, p50 ${fmt(s.p50)} ms, p95 ${fmt(s.p95)} ms, p99 ${fmt(s.p99)} ms, statuses ${JSON.stringify(r.statuses)}${r.errors ? `, ${r.errors} errors` : ''}`);
        }
      }
    }
  } finally {
    loader.close();
    await system?.stop();
    await orm.close();
  }

  const section = report(options, rows, sizes, loadBefore, options.databaseUrl ? 'PostgreSQL' : 'embedded SQLite (WAL)');
  process.stdout.write(`\n${section}\n`);
  if (options.record) {
    const text = readFileSync(RESULTS_FILE, 'utf8');
    const at = text.indexOf(RESULTS_MARKER);
    const updated = at < 0 ? `${text.trimEnd()}\n\n${section}\n` : `${text.slice(0, at + RESULTS_MARKER.length)}\n\n${section}${text.slice(at + RESULTS_MARKER.length)}`;
    writeFileSync(RESULTS_FILE, updated);
    log(`recorded in ${RESULTS_FILE}`);
  }
  rmSync(dataDir, { recursive: true, force: true });
}

function report(
  options: Options,
  rows: Row[],
  sizes: Array<{ size: number; records: number; keys: number; bytes: number | null; seconds: number }>,
  loadBefore: number[],
  storage: string,
): string {
  const lines: string[] = [];
  lines.push(`## Identity resolution speed, ${new Date().toISOString()}`);
  lines.push('');
  lines.push(`- Machine: ${machine()}`);
  lines.push(`- Load average before the run (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — the machine was busy with other work: treat these numbers as rough' : ''}`);
  lines.push(`- Storage: ${storage}; the whole embedded system in one process, \`SVC_RATE_LIMITS=off\`; load from a child process over loopback`);
  lines.push(
    `- Requests: \`npx tsx bench/identity/speed.ts --identities ${options.sizes.join(',')} --duration ${options.duration} --connections ${options.connections} --rate ${options.rate}\`. ` +
      'Bodies are variants of seeded people (80%: typos, nicknames, swapped dates, changed or missing contacts, like the accuracy benchmark) and unseen people (20%); resolve sends a random X-Svc-Source and writes (history, events, new records).',
  );
  lines.push('');
  lines.push('| Registry | Seeded in | Blocking-key rows | Database size |');
  lines.push('|---:|---:|---:|---:|');
  for (const s of sizes) lines.push(`| ${thousands(s.records)} | ${fmt(s.seconds)} s | ${thousands(s.keys)} | ${s.bytes === null ? '–' : `${fmt(s.bytes / 1024 ** 2, 0)} MiB`} |`);
  lines.push('');
  lines.push('| Registry | Route | Load | Requests | req/s | per min | p50 ms | p95 ms | p99 ms | Statuses |');
  lines.push('|---:|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const row of rows) {
    const s = summarize(row.result);
    const statuses = Object.entries(row.result.statuses).map(([k, v]) => `${k}: ${v}`).join(', ') + (row.result.errors ? `, errors: ${row.result.errors}` : '');
    lines.push(`| ${thousands(row.size)} | ${row.route} | ${row.load} | ${thousands(s.count)} | ${fmt(s.rps)} | ${thousands(Math.round(s.rps * 60))} | ${fmt(s.p50)} | ${fmt(s.p95)} | ${fmt(s.p99)} | ${statuses} |`);
  }
  lines.push('');
  const pacedMatch = rows.filter((r) => r.route === 'match' && r.mode === 'paced').map((r) => ({ size: r.size, ...summarize(r.result) }));
  const closedMatch = rows.filter((r) => r.route === 'match' && r.mode === 'closed').map((r) => ({ size: r.size, ...summarize(r.result) }));
  if (pacedMatch.length > 0) {
    const worst = Math.max(...pacedMatch.map((m) => m.p95));
    lines.push(
      `Spec targets (identity): p95 under 180 ms for match, 1,000 matches/min. Match p95 at ${options.rate}/s: ` +
        pacedMatch.map((m) => `${fmt(m.p95)} ms at ${thousands(m.size)}`).join(', ') +
        ` (${worst < 180 ? 'within' : 'over'} the target). Saturated match throughput: ` +
        closedMatch.map((m) => `${thousands(Math.round(m.rps * 60))}/min at ${thousands(m.size)}`).join(', ') +
        '.',
    );
    if (pacedMatch.length > 1) {
      const first = pacedMatch[0]!;
      const last = pacedMatch.at(-1)!;
      lines.push(`Growth ${thousands(first.size)} → ${thousands(last.size)} identities: match p95 ×${fmt(last.p95 / first.p95, 2)} paced, ×${fmt(closedMatch.at(-1)!.p95 / closedMatch[0]!.p95, 2)} saturated.`);
    }
  }
  return lines.join('\n');
}

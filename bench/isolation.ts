/**
 * Isolation: one partner's heavy work must not slow another partner's requests.
 *
 *   npm run bench -- --suite isolation [--database sqlite|postgres|both] [--readings 1000] [--bundle 2000] [--x12-kb 900]
 *
 * For each database, boots the whole system (embedded `all` role; on PostgreSQL with Redis, on a
 * throwaway database), registers two partners, and measures another partner's `GET /health` and
 * `GET /fhir/R4/Patient/{id}` (one at a time, 20 ms apart, from a child process) first on an idle
 * system, then while the first partner runs at once: a wearables batch of `--readings` readings, an
 * asynchronous transaction Bundles of `--bundle` Patients in all (Prefer: respond-async; at most
 * 1,000 entries each, the bundle.entries limit) and an X12 837P of about `--x12-kb` KB (a claim per
 * ~330 bytes, answered synchronously). It waits for the jobs and
 * the 837P, checks that every reading and Patient was stored exactly once, and records p50, p99 and
 * the slowest probe with the machine and date in bench/RESULTS.md. The spec's latency target for
 * these reads is a p99 under 250 ms.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { loadConfig, MAX_BUNDLE_ENTRIES } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';
import { freshDatabase } from './fresh-database.js';
import { recordResults } from './results-file.js';
import type { ProbeRun } from './isolation-probe.js';

type Database = 'sqlite' | 'postgres';

interface Options {
  databases: Database[];
  readings: number;
  bundle: number;
  x12Kb: number;
}

const USAGE = 'usage: npm run bench -- --suite isolation [--database sqlite|postgres|both] [--readings <n>] [--bundle <n>] [--x12-kb <n>]';
const ADMIN_URL = process.env['SVC_BENCH_ADMIN_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS_URL = process.env['SVC_BENCH_REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const IDLE_SECONDS = 5;
const JOB_DEADLINE_MS = 15 * 60_000;

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { databases: ['sqlite', 'postgres'], readings: 1000, bundle: 2000, x12Kb: 900 };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(database|readings|bundle|x12-kb)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
    const value = match[2] ?? argv[++i] ?? '';
    if (match[1] === 'database') {
      if (value !== 'sqlite' && value !== 'postgres' && value !== 'both') throw new Error(`--database takes sqlite, postgres or both\n${USAGE}`);
      options.databases = value === 'both' ? ['sqlite', 'postgres'] : [value];
      continue;
    }
    const n = Number(value);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${match[1]} needs a positive integer\n${USAGE}`);
    if (match[1] === 'readings') options.readings = n;
    else if (match[1] === 'bundle') options.bundle = n;
    else options.x12Kb = n;
  }
  return options;
}

interface Booted {
  system: RunningSystem;
  base: string;
  operator: string;
  dispose(): Promise<void>;
}

async function boot(database: Database): Promise<Booted> {
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-isolation-`);
  const operator = `op_${randomBytes(24).toString('base64url')}`;
  const env: Record<string, string> = { SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: operator, SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', SVC_PORT: '0', SVC_RATE_LIMITS: 'off', SVC_INTERNAL_PORT: 'off' };
  let drop = async () => {};
  if (database === 'postgres') {
    const fresh = await freshDatabase(ADMIN_URL);
    drop = fresh.drop;
    Object.assign(env, { SVC_DATABASE_URL: fresh.url, SVC_REDIS_URL: REDIS_URL, SVC_REDIS_PREFIX: fresh.name });
  }
  const system = await startSystem(loadConfig(env));
  await system.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = system.app.server.address() as AddressInfo;
  return {
    system,
    base: `http://127.0.0.1:${port}`,
    operator,
    dispose: async () => {
      await system.stop();
      await drop().catch((err: unknown) => process.stderr.write(`dropping the bench database failed: ${String(err)}\n`));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function call(base: string, token: string, method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${base}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...headers }, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(JOB_DEADLINE_MS) });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function graphql<T>(base: string, token: string, query: string, variables: Record<string, unknown>): Promise<T> {
  const res = await call(base, token, 'POST', '/graphql', JSON.stringify({ query, variables }), { 'content-type': 'application/json' });
  const json = JSON.parse(res.text) as { data?: T; errors?: unknown[] };
  if (json.errors) throw new Error(`GraphQL: ${JSON.stringify(json.errors).slice(0, 500)}`);
  return json.data!;
}

async function partner(b: Booted, name: string, scopes: string[]): Promise<string> {
  const { registerPartner } = await graphql<{ registerPartner: { gpid: string } }>(b.base, b.operator, 'mutation($n: String!) { registerPartner(input: { legalName: $n, organizationType: "LABORATORY" }) { gpid } }', { n: name });
  await graphql(b.base, b.operator, 'mutation($p: ID!, $s: [String!]!) { updatePartnerScopeGrant(partnerGpid: $p, scopes: $s) { grantedScopes } }', { p: registerPartner.gpid, s: scopes });
  const { createApiToken } = await graphql<{ createApiToken: { secret: string } }>(b.base, b.operator, 'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }', { i: { partnerGpid: registerPartner.gpid, name: 'isolation bench', scopes } });
  return createApiToken.secret;
}

function wearableBatch(readings: number): string {
  const now = Date.now();
  const events = Array.from({ length: readings }, (_, i) => ({
    event_id: `iso-${i}`,
    patient_gpid: 'SVC-00A1B2C3',
    type: 'heart_rate',
    value: 50 + (i % 60),
    unit: 'bpm',
    effective_time: new Date(now - (i + 1) * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
  }));
  return JSON.stringify({ events });
}

/** Transaction Bundles of `size` Patients in all, each within the bundle.entries limit (1,000). */
function transactionBundles(size: number): string[] {
  const bundles: string[] = [];
  for (let from = 0; from < size; from += MAX_BUNDLE_ENTRIES) bundles.push(transactionBundle(from, Math.min(size, from + MAX_BUNDLE_ENTRIES)));
  return bundles;
}

function transactionBundle(from: number, to: number): string {
  const entry = Array.from({ length: to - from }, (_, k) => from + k).map((i) => ({
    fullUrl: `urn:uuid:00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    resource: { resourceType: 'Patient', name: [{ family: 'Isolation', given: [`P${i}`] }], birthDate: `19${String(30 + (i % 70))}-0${1 + (i % 9)}-1${i % 10}` },
    request: { method: 'POST', url: 'Patient' },
  }));
  return JSON.stringify({ resourceType: 'Bundle', type: 'transaction', entry });
}

/** An 837P interchange of about `kb` KB: one subscriber and one claim per HL loop. */
export function claims837(kb: number): string {
  const head = ['ISA*00*          *00*          *ZZ*SUBMITTER01    *ZZ*ACMEPAYER      *261123*1023*^*00501*000000901*0*T*:~', 'GS*HC*SUBMITTER01*ACMEPAYER*20261123*1023*901*X*005010X222A1~', 'ST*837*0001*005010X222A1~', 'BHT*0019*00*244579*20261123*1023*CH~', 'NM1*41*2*RIVERSIDE CLINIC*****46*S123456~', 'PER*IC*BILLING OFFICE*TE*5555551234~', 'NM1*40*2*ACME HEALTH PLAN*****46*12345~', 'HL*1**20*1~', 'NM1*85*2*RIVERSIDE CLINIC*****XX*1234567893~', 'N3*100 MAIN STREET~', 'N4*SPRINGFIELD*IL*627010000~', 'REF*EI*123456789~'];
  const body: string[] = [];
  let size = head.join('').length;
  for (let n = 0; size < kb * 1024; n++) {
    const loop = [`HL*${n + 2}*1*22*0~`, 'SBR*P*18*GRP-0042******CI~', `NM1*IL*1*DOE*JANE****MI*W${String(100000000 + n)}~`, 'DMG*D8*19800101*F~', 'NM1*PR*2*ACME HEALTH PLAN*****PI*12345~', `CLM*ISO-${n}*100***11:B:1*Y*A*Y*Y~`, 'HI*ABK:J069~', 'LX*1~', 'SV1*HC:99213*100*UN*1***1~', 'DTP*472*D8*20261101~'];
    body.push(...loop);
    size += loop.join('').length;
  }
  const segments = head.length - 2 + body.length + 1;
  return [...head, ...body, `SE*${segments}*0001~`, 'GE*1*901~', 'IEA*1*000000901~'].join('\n');
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

function probe(base: string, token: string, readPath: string): { stop(): Promise<ProbeRun> } {
  const child = fork(new URL('./isolation-probe.ts', import.meta.url), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send({ kind: 'start', spec: { base, token, readPath, gapMs: 20 } });
  const result = new Promise<ProbeRun>((resolve, reject) => {
    child.once('message', (run: ProbeRun) => resolve(run));
    child.once('exit', (code) => reject(new Error(`the prober exited (${code})`)));
  });
  return {
    stop: async () => {
      child.send({ kind: 'stop' });
      return result;
    },
  };
}

async function waitForJob(base: string, token: string, statusUrl: string): Promise<number> {
  const deadline = Date.now() + JOB_DEADLINE_MS;
  for (;;) {
    const res = await call(base, token, 'GET', new URL(statusUrl).pathname);
    if (res.status !== 202) return res.status;
    if (Date.now() > deadline) throw new Error(`${statusUrl} still running after ${JOB_DEADLINE_MS / 60_000} minutes`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface Row {
  database: Database;
  phase: string;
  run: ProbeRun;
  seconds: number;
  note: string;
}

async function measure(database: Database, options: Options): Promise<Row[]> {
  const b = await boot(database);
  try {
    const worker = await partner(b, 'Isolation Jobs', ['pulse.wearables.ingest', 'cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.fhir.r4.read', 'velocity.clearinghouse.claims']);
    const reader = await partner(b, 'Isolation Reader', ['cms.fhir.rest.write', 'cms.fhir.r4.read']);
    const created = await call(b.base, reader, 'POST', '/fhir/R4/Patient', JSON.stringify({ resourceType: 'Patient', name: [{ family: 'Reader' }] }), { 'content-type': 'application/fhir+json' });
    const readPath = `/fhir/R4/Patient/${(JSON.parse(created.text) as { id: string }).id}`;

    const idle = probe(b.base, reader, readPath);
    await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
    const rows: Row[] = [{ database, phase: 'idle', run: await idle.stop(), seconds: IDLE_SECONDS, note: '' }];

    const busy = probe(b.base, reader, readPath);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const started = performance.now();
    const [wearables, x12, ...bundles] = await Promise.all([
      call(b.base, worker, 'POST', '/pulse/v1/wearables/events', wearableBatch(options.readings), { 'content-type': 'application/json' }),
      call(b.base, worker, 'POST', '/velocity/v1/clearinghouse/claims', claims837(options.x12Kb), { 'content-type': 'application/edi-x12', accept: 'application/json' }),
      ...transactionBundles(options.bundle).map((bundle) => call(b.base, worker, 'POST', '/fhir/R4', bundle, { 'content-type': 'application/fhir+json', prefer: 'respond-async' })),
    ]);
    if (wearables.status !== 202) throw new Error(`wearables batch: HTTP ${wearables.status} ${wearables.text.slice(0, 300)}`);
    for (const bundle of bundles) if (bundle.status !== 202) throw new Error(`transaction Bundle: HTTP ${bundle.status} ${bundle.text.slice(0, 300)}`);
    const statuses = await Promise.all([waitForJob(b.base, worker, (JSON.parse(wearables.text) as { status_url: string }).status_url), ...bundles.map((bundle) => waitForJob(b.base, worker, bundle.headers.get('content-location')!))]);
    const seconds = (performance.now() - started) / 1000;
    const run = await busy.stop();

    const count = async (query: string) => (JSON.parse((await call(b.base, worker, 'GET', `/fhir/R4/${query}&_summary=count`)).text) as { total: number }).total;
    const observations = await count('Observation?identifier=urn:svc:wearables:pulse:event|&code=http://loinc.org|8867-4');
    const patients = await count('Patient?family=Isolation');
    const claims = x12.status < 300 ? ((JSON.parse(x12.text) as { claims?: unknown[] }).claims?.length ?? 0) : 0;
    const note = `jobs ${statuses.join('/')}; stored ${observations} of ${options.readings} readings, ${patients} of ${options.bundle} Patients; 837P HTTP ${x12.status}, ${claims} claims`;
    rows.push({ database, phase: 'jobs running', run, seconds, note });
    return rows;
  } finally {
    await b.dispose();
  }
}

function table(rows: readonly Row[]): string {
  const ms = (v: number) => (Number.isNaN(v) ? '—' : v.toFixed(0));
  const lines = ['| database | phase | s | probes | /health p50 / p99 / max ms | Patient read p50 / p99 / max ms | failures | what ran |', '|---|---|---:|---:|---|---|---:|---|'];
  for (const r of rows) {
    const h = r.run.health;
    const p = r.run.read;
    lines.push(`| ${r.database} | ${r.phase} | ${r.seconds.toFixed(1)} | ${h.length + p.length} | ${ms(quantile(h, 0.5))} / ${ms(quantile(h, 0.99))} / ${ms(Math.max(...h))} | ${ms(quantile(p, 0.5))} / ${ms(quantile(p, 0.99))} / ${ms(Math.max(...p))} | ${r.run.failures} | ${r.note} |`);
  }
  return lines.join('\n');
}

export async function runIsolationSuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  const rows: Row[] = [];
  for (const database of options.databases) rows.push(...(await measure(database, options)));
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const section = [
    `## Isolation, ${new Date().toISOString().slice(0, 16)} (bench/isolation.ts)`,
    '',
    `\`npm run bench -- --suite isolation --readings ${options.readings} --bundle ${options.bundle} --x12-kb ${options.x12Kb}\` on ${cpu}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}; load average before ${load}, after ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}.`,
    '',
    table(rows),
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  recordResults(section);
}

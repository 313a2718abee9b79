/**
 * Our subgraphs against a minimal in-memory Apollo subgraph, and the REST facade against its
 * GraphQL twin, measured in one run so that the ratios hold on a busy machine.
 *
 *   npm run bench -- --suite subgraphs [--database sqlite,postgres] [--reads partners,identity,patient,jobs,facade] [--no-record] [--duration <s, default 5>] [--warmup <s, default 1>] [--connections <n, default 20>] [--rounds <n, default 1>] [--profile <dir>]
 *
 * Every server runs in its own child process: the stock Apollo Server with a minimal
 * @apollo/subgraph (bench/minimal-apollo-subgraph.ts), and our partner, identity, fhir and pipeline
 * subgraphs, per database: on PostgreSQL as the distributed mode starts them
 * (`SVC_ROLE=subgraph:<name>` on a fresh database), on SQLite each over the embedded system's
 * SQLite file of a fresh data directory (bench/sqlite-subgraph.ts); then the embedded system
 * (`SVC_ROLE=all`, SQLite) for the facade rows. autocannon drives each row from a further child
 * process (bench/load.ts). Each row also counts the SQL statements our subgraph sent
 * (`svc_db_queries_total` on its /metrics) per request. With `--profile <dir>`, our subgraphs run
 * under `node --cpu-prof` and leave their profiles in that directory.
 */
import { recordResults } from './results-file.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freshDatabase } from './fresh-database.js';
import { INTERNAL_PRINCIPAL_HEADER, signPrincipal, type Principal } from '@svc/platform';
import { ChildRunner } from './child.js';
import { cpuMsOf } from './process-cpu.js';
import { SERVER_NODE_FLAGS } from './server-flags.js';
import type { LoadRun, LoadSpec } from './load.js';
import { freePort } from './free-port.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADMIN_DATABASE_URL = process.env['SVC_BENCH_ADMIN_DATABASE_URL'] ?? process.env['SVC_TEST_ADMIN_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
/** Partners per `partners(first:)` answer and per `_entities` fetch. */
const PARTNERS = 20;
const JOBS_PER_PARTNER = 3;
/**
 * Keys stored and asked for: each `identity(gpid)` request names one of IDENTITIES records, each
 * `_entities` fetch PARTNERS of SEEDED_PARTNERS partners, picked at random among VARIANTS request
 * bodies, so that concurrent requests ask for different rows, as real callers do.
 */
const SEEDED_PARTNERS = 100;
const IDENTITIES = 200;
const VARIANTS = 200;
/** A signed principal lives 15 s: longer rows are cut into segments, each with a fresh one. */
const SEGMENT_SECONDS = 10;
const OPERATOR: Principal = { kind: 'service', partnerGpid: null, scopes: ['*'] };

interface Options {
  duration: number;
  /**
   * Seconds of load before each row is measured. Each of our subgraphs serves one row only, so it
   * is still being optimized by V8 for several seconds into it, while the minimal subgraph, far
   * less code, serves all three; a longer warm-up measures both at their steady state.
   */
  warmup: number;
  connections: number;
  /** Rounds of every row, interleaved; each pair's median round (by its ratio) is reported. */
  rounds: number;
  profileDir?: string;
  databases: Database[];
  /** The reads measured (default: all, and the facade rows). */
  reads: Read[];
  /** Add the section to bench/RESULTS.md (default); `--no-record` only prints it. */
  record: boolean;
}

const READS = ['partners', 'identity', 'patient', 'jobs', 'facade'] as const;
type Read = (typeof READS)[number];

type Database = 'sqlite' | 'postgres';
const OURS = ['partner', 'identity', 'fhir', 'pipeline'] as const;
type OurSubgraph = (typeof OURS)[number];

const USAGE = 'usage: npm run bench -- --suite subgraphs [--database sqlite,postgres] [--reads partners,identity,patient,jobs,facade] [--no-record] [--duration <seconds, default 5>] [--warmup <seconds, 1 to 10, default 1>] [--connections <n, default 20>] [--rounds <n, 1 to 9, default 1>] [--profile <dir>]';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { duration: 5, warmup: 1, connections: 20, rounds: 1, databases: ['sqlite', 'postgres'], reads: [...READS], record: true };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--no-record') {
      options.record = false;
      continue;
    }
    const m = /^--(duration|warmup|connections|rounds|profile|database|reads)(?:=(.*))?$/.exec(argv[i]!);
    if (!m) throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
    const raw = m[2] ?? argv[++i] ?? '';
    if (m[1] === 'profile') options.profileDir = resolvePath(raw);
    else if (m[1] === 'database') {
      const list = raw.split(',').map((d) => d.trim());
      if (!list.length || list.some((d) => d !== 'sqlite' && d !== 'postgres')) throw new Error(`--database takes sqlite, postgres or both (got "${raw}")\n${USAGE}`);
      options.databases = [...new Set(list as Database[])];
    } else if (m[1] === 'reads') {
      const list = raw.split(',').map((r) => r.trim());
      if (!list.length || list.some((r) => !(READS as readonly string[]).includes(r))) throw new Error(`--reads takes some of ${READS.join(', ')} (got "${raw}")\n${USAGE}`);
      options.reads = [...new Set(list as Read[])];
    } else {
      const value = Number(raw);
      // The warm-up runs on one signed principal, which lives 15 s.
      const max = m[1] === 'warmup' ? SEGMENT_SECONDS : m[1] === 'rounds' ? 9 : 600;
      if (!(Number.isInteger(value) && value >= 1 && value <= max)) throw new Error(`--${m[1]} must be an integer from 1 to ${max} (got "${raw}")\n${USAGE}`);
      options[m[1] as 'duration' | 'warmup' | 'connections' | 'rounds'] = value;
    }
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// Child processes

interface Service {
  name: string;
  url: string;
  /** The server's process, for its CPU time. */
  pid: number | undefined;
  stop(): Promise<void>;
}

function watch(name: string, child: ChildProcess): { output(): string; exited: Promise<void> } {
  let output = '';
  child.stdout?.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr?.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return { output: () => output.slice(-4000), exited };
}

function stopper(child: ChildProcess, exited: Promise<void>): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  };
}


async function startMinimal(): Promise<Service> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', fileURLToPath(new URL('./minimal-apollo-subgraph.ts', import.meta.url))], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', BENCH_ROWS: String(PARTNERS) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w = watch('minimal', child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = /listening (\d+)/.exec(w.output());
      if (m) resolve(Number(m[1]));
    });
    void w.exited.then(() => reject(new Error(`the minimal subgraph exited:\n${w.output()}`)));
  });
  return { name: 'minimal Apollo subgraph', url: `http://127.0.0.1:${port}/`, pid: child.pid, stop: stopper(child, w.exited) };
}

/** One of our subgraphs over the embedded SQLite file in `dataDir` (bench/sqlite-subgraph.ts). */
async function startSqliteSubgraph(name: OurSubgraph, env: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', fileURLToPath(new URL('./sqlite-subgraph.ts', import.meta.url)), name], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...env, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w = watch(name, child);
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const m = /listening (\d+)/.exec(w.output());
      if (m) resolve(Number(m[1]));
    });
    void w.exited.then(() => reject(new Error(`the ${name} subgraph on SQLite exited:\n${w.output()}`)));
  });
  return { name: `${name} (SQLite)`, url: `http://127.0.0.1:${port}`, pid: child.pid, stop: stopper(child, w.exited) };
}

/** One component as `npm start` runs it (server.ts), ready when /ready answers 200. */
async function startRole(role: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, ...nodeArgs, '--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', NODE_ENV: 'production', ...env, SVC_ROLE: role, SVC_PORT: String(port), SVC_HOST: '127.0.0.1', SVC_INTERNAL_PORT: String(await freePort()), SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const w = watch(role, child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${role} exited early:\n${w.output()}`);
    if (await fetch(`${url}/ready`).then((r) => r.ok, () => false)) break;
    if (Date.now() > deadline) throw new Error(`${role} not ready after 120 s:\n${w.output()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  return { name: role, url, pid: child.pid, stop: stopper(child, w.exited) };
}


// ---------------------------------------------------------------------------------------------
// Requests

interface GraphQLBody {
  data?: Record<string, unknown>;
  errors?: { message: string }[];
}

type Target = Omit<LoadSpec, 'connections' | 'duration'>;

async function post(url: string, headers: Record<string, string>, query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as GraphQLBody;
  if (!res.ok || body.errors?.length || !body.data) throw new Error(`GraphQL ${res.status} from ${url}: ${JSON.stringify(body.errors ?? body).slice(0, 400)}`);
  return body.data;
}

const signed = async (secret: string) => ({ [INTERNAL_PRINCIPAL_HEADER]: await signPrincipal(OPERATOR, secret) });

const GIVEN = ['Ada', 'Bram', 'Chiara', 'Dmitri', 'Eszter', 'Femi', 'Greta', 'Hiroshi', 'Ines', 'Jonas', 'Kalani', 'Leila', 'Mateo', 'Nadia', 'Oskar', 'Priya', 'Quentin', 'Rosa', 'Soren', 'Tala'];
const FAMILY = ['Abernathy', 'Bergström', 'Castellanos', 'Dubois', 'Eriksen', 'Fitzgerald', 'Gallagher', 'Hoffmann', 'Iwasaki', 'Jovanović'];

const PARTNER_QUERY = '{ partners(first: 20) { edges { node { gpid legalName } } } }';
const IDENTITY_QUERY = 'query Identity($gpid: ID!) { identity(gpid: $gpid) { gpid entityType status version createdAt updatedAt } }';
/** A Patient by id with the typed fields a portal reads (subgraphs/fhir/src/schema/fhir-typed.ts). */
const PATIENT_QUERY = 'query Patient($id: ID!) { fhirPatient(id: $id) { id gender birthDate name { family given } meta { versionId lastUpdated } } }';
/** Patients stored and asked for, one at random per request. */
const PATIENTS = 200;
const JOBS_QUERY = 'query Jobs($representations: [_Any!]!) { _entities(representations: $representations) { ... on Partner { syncJobs { jobId status } } } }';
/** The document the facade's `identity.get` route sends (rest-facade/src/routes/identity.ts). */
const IDENTITY_GET_DOCUMENT =
  'query GetIdentity($gpid: ID!) { identity(gpid: $gpid) { gpid entityType status mergedInto survivor { gpid status } ' +
  'sources { source firstConfirmedAt lastConfirmedAt confirmations } relatedGpids lineage { kind gpid requestId reason at } mergedFrom splitFrom ' +
  'matchHistory(last: 10) { total firstAt lastAt recent { at decision matchType confidence status source subjectGpid } } version createdAt updatedAt } }';

function check(expect: (body: GraphQLBody) => string | undefined) {
  return (status: number, text: string): string | undefined => {
    let body: GraphQLBody;
    try {
      body = JSON.parse(text) as GraphQLBody;
    } catch {
      return `${status} ${text.slice(0, 300)}`;
    }
    if (status !== 200 || body.errors?.length) return `${status} ${text.slice(0, 300)}`;
    return expect(body);
  };
}

const twentyPartners = check((b) => {
  const n = ((b.data?.['partners'] as { edges?: unknown[] } | undefined)?.edges ?? []).length;
  return n === PARTNERS ? undefined : `expected ${PARTNERS} partners, got ${n}`;
});
const oneIdentity = check((b) => (b.data?.['identity'] ? undefined : 'no identity'));
const onePatient = check((b) => {
  const p = b.data?.['fhirPatient'] as { id?: string; name?: unknown[] } | null | undefined;
  return p?.id && p.name?.length ? undefined : `no Patient: ${JSON.stringify(b.data).slice(0, 200)}`;
});
const jobsOfTwenty = check((b) => {
  const entities = (b.data?.['_entities'] as { syncJobs?: unknown[] }[] | undefined) ?? [];
  const jobs = entities.reduce((n, e) => n + (e.syncJobs?.length ?? 0), 0);
  return entities.length === PARTNERS && jobs === PARTNERS * JOBS_PER_PARTNER ? undefined : `expected ${PARTNERS} partners with ${JOBS_PER_PARTNER} jobs, got ${entities.length} with ${jobs}`;
});

// ---------------------------------------------------------------------------------------------
// Measuring

interface Row {
  key: string;
  label: string;
  /** The server that answers the row. */
  server: Service;
  request(): Promise<Target>;
  check(status: number, body: string): string | undefined;
  /** Ours: read the statements it sent from its /metrics. */
  countsStatements?: boolean;
}

/** `svc_db_queries_total` of one of our subgraphs, by `verb table`. */
async function statementCounts(server: Service): Promise<Map<string, number>> {
  const text = await (await fetch(`${server.url.replace(/\/$/, '')}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^svc_db_queries_total\{([^}]*)\} (\S+)$/.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...m[1]!.matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1]!, l[2]!]));
    const key = `${labels['verb'] ?? '?'} ${labels['table'] || '(no table)'}`;
    counts.set(key, (counts.get(key) ?? 0) + Number(m[2]));
  }
  return counts;
}

interface Stats {
  /** SQL statements our subgraph sent per answered request (background work such as the outbox relay's polls included), and by `verb table`. */
  statements?: { total: number; by: [string, number][] };
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  /** The server's CPU time per answered request, ms. */
  cpuMs: number;
}

function summarize(runs: readonly LoadRun[], cpuMs: number): Stats {
  const total = runs.reduce((n, r) => n + r.latencies.length, 0);
  const all = new Float64Array(total);
  let at = 0;
  let non2xx = 0;
  for (const r of runs) {
    all.set(r.latencies, at);
    at += r.latencies.length;
    for (const [status, count] of Object.entries(r.statusCounts)) if (!status.startsWith('2')) non2xx += count;
  }
  all.sort();
  const pct = (p: number) => (all.length ? all[Math.min(all.length - 1, Math.ceil((p / 100) * all.length) - 1)]! : Number.NaN);
  const seconds = runs.reduce((s, r) => s + r.durationSeconds, 0);
  return { rps: seconds > 0 ? total / seconds : 0, p50: pct(50), p99: pct(99), non2xx, cpuMs: total > 0 ? cpuMs / total : Number.NaN };
}

async function measure(load: ChildRunner<LoadSpec, LoadRun>, row: Row, options: Options): Promise<Stats> {
  const probe = await row.request();
  const res = await fetch(probe.url, { method: probe.method, headers: probe.headers, ...(probe.body === undefined ? {} : { body: probe.body }) });
  const problem = row.check(res.status, await res.text());
  if (problem) throw new Error(`${row.label}: the probe request failed: ${problem}`);
  process.stderr.write(`  ${row.label} … `);
  await load.run({ ...(await row.request()), connections: options.connections, duration: options.warmup });
  const runs: LoadRun[] = [];
  const statementsBefore = row.countsStatements ? await statementCounts(row.server) : undefined;
  const cpuBefore = cpuMsOf(row.server.pid);
  for (let left = options.duration; left > 0; left -= SEGMENT_SECONDS) {
    runs.push(await load.run({ ...(await row.request()), connections: options.connections, duration: Math.min(left, SEGMENT_SECONDS) }));
  }
  const cpuAfter = cpuMsOf(row.server.pid);
  const stats = summarize(runs, cpuAfter - cpuBefore);
  if (statementsBefore) {
    const after = await statementCounts(row.server);
    const requests = runs.reduce((n, r) => n + r.latencies.length, 0);
    const by = [...after].map(([k, v]): [string, number] => [k, (v - (statementsBefore.get(k) ?? 0)) / requests]).filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
    stats.statements = { total: by.reduce((n, [, v]) => n + v, 0), by };
  }
  process.stderr.write(`${stats.rps.toFixed(0)} req/s, p99 ${stats.p99.toFixed(2)} ms, ${ms(stats.cpuMs)} ms CPU per request${stats.statements ? `, ${stats.statements.total.toFixed(2)} statements per request` : ''}${stats.non2xx ? `, ${stats.non2xx} non-2xx` : ''}\n`);
  return stats;
}

// ---------------------------------------------------------------------------------------------

export async function runSubgraphsSuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const loadBefore = os.loadavg();
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const secret = randomBytes(32).toString('base64url');
    const profile = (name: string) => (options.profileDir ? ['--cpu-prof', '--cpu-prof-dir', `${options.profileDir}/${name}`] : []);
    process.stderr.write('starting the minimal Apollo subgraph …\n');
    const minimal = await startMinimal();
    cleanups.push(() => minimal.stop());
    const gql = (s: Service) => `${s.url.replace(/\/$/, '')}${s.url.endsWith('/graphql') ? '' : s === minimal ? '/' : '/graphql'}`;

    interface Keys {
      gpids: string[];
      identityGpids: string[];
      patientIds: string[];
    }

    /** The data of every row, written through our subgraphs' own mutations. */
    async function seed(ours: Record<OurSubgraph, Service>): Promise<Keys> {
      process.stderr.write(`seeding ${SEEDED_PARTNERS} partners, ${SEEDED_PARTNERS * JOBS_PER_PARTNER} sync jobs, ${IDENTITIES} identities and ${PATIENTS} Patients …\n`);
      const gpids: string[] = [];
      for (let i = 1; i <= SEEDED_PARTNERS; i++) {
        const data = await post(gql(ours.partner), await signed(secret), 'mutation R($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }', {
          input: { legalName: `Benchmark Health ${String(i).padStart(3, '0')}`, organizationType: 'HEALTH_SYSTEM' },
        });
        const gpid = (data['registerPartner'] as { gpid: string }).gpid;
        gpids.push(gpid);
        const jobs = Array.from({ length: JOBS_PER_PARTNER }, (_, j) => `j${j}: createSyncJob(partnerGpid: $gpid, resourceTypes: ["Patient"]) { jobId }`).join(' ');
        await post(gql(ours.pipeline), await signed(secret), `mutation J($gpid: ID!) { ${jobs} }`, { gpid });
      }
      const identityGpids: string[] = [];
      for (let i = 0; i < IDENTITIES; i += 20) {
        const people = Array.from({ length: 20 }, (_, j) => i + j);
        const data = await post(
          gql(ours.identity),
          await signed(secret),
          `mutation I { ${people.map((n) => `p${n}: resolveIdentity(input: { name: "${GIVEN[n % GIVEN.length]} ${FAMILY[Math.floor(n / GIVEN.length)]}", dob: "19${50 + (n % 50)}-0${1 + (n % 9)}-1${n % 10}" }, source: "pulse") { gpid }`).join(' ')} }`,
        );
        for (const n of people) identityGpids.push((data[`p${n}`] as { gpid: string }).gpid);
      }
      if (new Set(identityGpids).size !== IDENTITIES) throw new Error(`seeding made ${new Set(identityGpids).size} identities, not ${IDENTITIES}`);
      const patientIds: string[] = [];
      for (let n = 0; n < PATIENTS; n++) {
        const resource = { resourceType: 'Patient', gender: n % 2 ? 'male' : 'female', birthDate: `19${50 + (n % 50)}-0${1 + (n % 9)}-1${n % 10}`, name: [{ family: FAMILY[n % FAMILY.length], given: [GIVEN[n % GIVEN.length], 'B'] }] };
        const data = await post(gql(ours.fhir), await signed(secret), 'mutation P($resource: JSONObject!) { fhirCreate(resourceType: "Patient", resource: $resource) { status resource } }', { resource });
        const created = data['fhirCreate'] as { status: number; resource: { id: string } };
        if (created.status !== 201) throw new Error(`fhirCreate answered ${created.status}`);
        patientIds.push(created.resource.id);
      }
      return { gpids, identityGpids, patientIds };
    }

    /** The four reads, each answered by `target` (the minimal subgraph) or by the subgraph of ours that owns it. */
    function rowsFor(target: Service | Record<OurSubgraph, Service>, label: string, keys: Keys | undefined): Row[] {
      const serverOf = (name: OurSubgraph) => ('url' in target ? (target as Service) : (target as Record<OurSubgraph, Service>)[name]);
      const isMinimal = keys === undefined;
      const headers = async () => (isMinimal ? {} : await signed(secret));
      const body = (query: string, variables: Record<string, unknown> = {}) => JSON.stringify({ query, variables });
      const partnerKeys = keys?.gpids ?? Array.from({ length: SEEDED_PARTNERS }, (_, i) => `PRD-PTN-${1000 + i}`);
      const identityKeys = keys?.identityGpids ?? Array.from({ length: IDENTITIES }, (_, i) => `SVC-${(0xbeef + i).toString(16).toUpperCase().padStart(8, '0')}`);
      const patientKeys = keys?.patientIds ?? Array.from({ length: PATIENTS }, (_, i) => `patient-${i}`);
      const someOf = <T>(list: readonly T[], n: number): T[] => [...list].sort(() => Math.random() - 0.5).slice(0, n);
      const fetches = Array.from({ length: VARIANTS }, () => ({ representations: someOf(partnerKeys, PARTNERS).map((gpid) => ({ __typename: 'Partner', gpid })) }));
      const req = (server: Service, query: string, variables: Record<string, unknown>[] = [{}]) => async (): Promise<Target> => {
        const bodies = variables.map((v) => body(query, v));
        return { url: gql(server), method: 'POST', headers: { ...(await headers()), 'content-type': 'application/json' }, body: bodies[0]!, ...(bodies.length > 1 ? { bodies } : {}) };
      };
      const row = (key: string, name: OurSubgraph, read: string, query: string, check: Row['check'], variables?: Record<string, unknown>[]): Row => ({
        key: `${key}:${label}`,
        server: serverOf(name),
        label: `${read} — ${label}`,
        request: req(serverOf(name), query, variables),
        check,
        ...(isMinimal ? {} : { countsStatements: true }),
      });
      return [
        row('partners', 'partner', 'partners(first: 20)', PARTNER_QUERY, twentyPartners),
        row('identity', 'identity', 'identity(gpid)', IDENTITY_QUERY, oneIdentity, identityKeys.map((gpid) => ({ gpid }))),
        row('patient', 'fhir', 'fhirPatient(id)', PATIENT_QUERY, onePatient, patientKeys.map((id) => ({ id }))),
        row('jobs', 'pipeline', '_entities Partner.syncJobs × 20', JOBS_QUERY, jobsOfTwenty, fetches),
      ];
    }

    const load = new ChildRunner<LoadSpec, LoadRun>(new URL('./load.ts', import.meta.url), 'load generator');
    cleanups.push(() => load.close());
    const measured = (row: Row) => options.reads.includes(row.key.split(':')[0] as Read);
    const minimalRows = rowsFor(minimal, 'minimal Apollo', undefined).filter(measured);
    const rounds = Array.from({ length: options.rounds }, () => new Map<string, Stats>());
    const pairs: Pair[] = [];

    for (const database of options.databases) {
      process.stderr.write(`starting our partner, identity, fhir and pipeline subgraphs on ${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'} …\n`);
      const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-sg-`);
      const stopped: (() => Promise<unknown>)[] = [async () => rmSync(dataDir, { recursive: true, force: true })];
      const env: Record<string, string> = { SVC_INTERNAL_SECRET: secret, SVC_DATA_DIR: dataDir };
      if (database === 'postgres') {
        const db = await freshDatabase(ADMIN_DATABASE_URL);
        stopped.push(() => db.drop());
        env['SVC_DATABASE_URL'] = db.url;
      }
      cleanups.push(() => Promise.all(stopped.reverse().map((step) => step())));
      const ours = {} as Record<OurSubgraph, Service>;
      for (const name of OURS) {
        ours[name] = database === 'postgres' ? await startRole(`subgraph:${name}`, env, profile(`${name}-postgres`)) : await startSqliteSubgraph(name, env, profile(`${name}-sqlite`));
        const service = ours[name];
        stopped.unshift(() => service.stop());
      }
      const keys = await seed(ours);
      const rows = rowsFor(ours, `ours, ${database === 'sqlite' ? 'SQLite' : 'PostgreSQL'}`, keys).filter(measured);
      rows.forEach((row, i) => pairs.push({ ours: row, minimalKey: `${minimalRows[i]!.key}:${database}`, database }));
      process.stderr.write(`measuring on ${database} (${options.duration} s per row, ${options.connections} connections, ${options.rounds} round(s)):\n`);
      // Alternate minimal and ours per read, so that a burst of other work on the machine hits both.
      for (const [r, results] of rounds.entries()) {
        if (options.rounds > 1) process.stderr.write(` round ${r + 1}:\n`);
        for (let i = 0; i < rows.length; i++) {
          for (const row of [minimalRows[i]!, rows[i]!]) {
            const stats = await measure(load, row, options);
            // The minimal subgraph's rows are measured once per database: keep them apart.
            results.set(row.server === minimal ? `${row.key}:${database}` : row.key, stats);
          }
        }
      }
      for (const name of OURS) await ours[name].stop();
    }

    // The REST facade against its GraphQL twin, on the embedded system.
    if (options.reads.includes('facade')) {
      process.stderr.write('starting the embedded system for the facade rows …\n');
      const token = `op_${randomBytes(24).toString('base64url')}`;
      const allDir = mkdtempSync(`${os.tmpdir()}/svc-bench-all-`);
      cleanups.push(async () => rmSync(allDir, { recursive: true, force: true }));
      const all = await startRole('all', { SVC_DATA_DIR: allDir, SVC_BOOTSTRAP_TOKEN: token, SVC_RATE_LIMITS: 'off' }, profile('all'));
      cleanups.push(() => all.stop());
      const bearer = { authorization: `Bearer ${token}` };
      const created = await fetch(`${all.url}/api/identity/resolve`, {
        method: 'POST',
        headers: { ...bearer, 'content-type': 'application/json', 'x-svc-source': 'pulse' },
        body: JSON.stringify({ name: 'Ada Benchmark', dob: '1980-03-04', email: 'ada.benchmark@example.org' }),
      });
      const createdBody = (await created.json()) as { gpid?: string };
      if (!createdBody.gpid) throw new Error(`could not seed an identity through the facade: ${created.status} ${JSON.stringify(createdBody).slice(0, 300)}`);
      const restRow: Row = {
        key: 'rest',
        server: all,
        label: 'REST GET /api/identity/{gpid}',
        request: async () => ({ url: `${all.url}/api/identity/${createdBody.gpid}`, method: 'GET', headers: bearer }),
        check: (status, text) => (status === 200 && text.includes(createdBody.gpid!) ? undefined : `${status} ${text.slice(0, 300)}`),
      };
      const twinRow: Row = {
        key: 'twin',
        server: all,
        label: 'POST /graphql, the same document',
        request: async () => ({ url: `${all.url}/graphql`, method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ query: IDENTITY_GET_DOCUMENT, variables: { gpid: createdBody.gpid } }) }),
        check: oneIdentity,
      };
      for (const results of rounds) for (const row of [twinRow, restRow]) results.set(row.key, await measure(load, row, options));
    }

    const section = report(new Date().toISOString(), options, loadBefore, pairs, rounds);
    process.stdout.write(`\n${section}\n`);
    if (options.record) recordResults(section);
  } finally {
    for (const step of cleanups.reverse()) await step().catch((err: unknown) => process.stderr.write(`cleanup failed: ${String(err)}\n`));
  }
}

// ---------------------------------------------------------------------------------------------
// Reporting

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '–');
const cpu = (v: number) => (Number.isFinite(v) ? v.toFixed(3) : '–');

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()}, Node ${process.version}`;
}

/** Of a pair of rows measured in every round: the round whose req/s ratio (a ÷ b) is the median, and each round's ratio. */
function medianRound(rounds: readonly Map<string, Stats>[], a: string, b: string): { a: Stats; b: Stats; ratios: number[] } {
  const ratios = rounds.map((r) => r.get(a)!.rps / r.get(b)!.rps);
  const median = [...ratios].sort((x, y) => x - y)[Math.floor((ratios.length - 1) / 2)]!;
  const round = rounds[ratios.indexOf(median)]!;
  return { a: round.get(a)!, b: round.get(b)!, ratios };
}

interface Pair {
  ours: Row;
  /** The minimal subgraph's row measured beside it. */
  minimalKey: string;
  database: Database;
}

function report(date: string, options: Options, loadBefore: readonly number[], pairs: readonly Pair[], rounds: readonly Map<string, Stats>[]): string {
  const perRound = rounds.length > 1;
  const lines = [
    `## ${date} — subgraphs against a minimal Apollo subgraph (\`--suite subgraphs\`)`,
    '',
    `- Machine: ${machine()}`,
    `- Load average before the run (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' — the machine was busy with other work: only the ratios (same run) mean something' : ''}`,
    `- ${options.duration} s per row after a ${options.warmup} s warm-up, ${options.connections} connections, each server in its own process; ours on ${options.databases.map((d) => (d === 'sqlite' ? 'SQLite (bench/sqlite-subgraph.ts)' : 'PostgreSQL (`SVC_ROLE=subgraph:<name>`)')).join(' and ')}${options.profileDir ? ', **under --cpu-prof** (slower)' : ''}`,
    ...(perRound ? [`- ${rounds.length} rounds, interleaved (each pair of rows one after the other in every round); each pair shows its median round by its ratio, and every round's ratio`] : []),
    '- CPU ms/req: the server process\'s own user + system time over the row ÷ the requests it answered (from /proc; PostgreSQL\'s share, in its own processes, is not in ours)',
    '',
    `| Read | database | minimal req/s | minimal p99 ms | minimal CPU ms/req | ours req/s | ours p99 ms | ours CPU ms/req | ours ÷ minimal (req/s) | ours ÷ minimal (CPU/req) |${perRound ? ' req/s ratio per round | CPU/req ratio per round |' : ''}`,
    `|---|---|---:|---:|---:|---:|---:|---:|---:|---:|${perRound ? '---|---|' : ''}`,
  ];
  const each = (ratios: number[]) => (perRound ? ` ${ratios.map((r) => r.toFixed(2)).join(', ')} |` : '');
  const statementLines: string[] = [];
  for (const pair of pairs) {
    const { a: o, b: m, ratios } = medianRound(rounds, pair.ours.key, pair.minimalKey);
    const cpuRatios = rounds.map((r) => r.get(pair.ours.key)!.cpuMs / r.get(pair.minimalKey)!.cpuMs);
    const database = pair.database === 'sqlite' ? 'SQLite' : 'PostgreSQL';
    if (o.statements) statementLines.push(`| ${pair.ours.label.replace(/ — .*$/, '')} | ${database} | ${o.statements.total.toFixed(2)} | ${o.statements.by.filter(([, v]) => v >= 0.005).map(([k, v]) => `${k.replace(/;/g, '')}: ${v.toFixed(2)}`).join('; ')}${o.statements.by.some(([, v]) => v < 0.005) ? '; others (background) < 0.005 each' : ''} |`);
    lines.push(
      `| ${pair.ours.label.replace(/ — .*$/, '')} | ${database} | ${m.rps.toFixed(0)} | ${ms(m.p99)} | ${cpu(m.cpuMs)} | ${o.rps.toFixed(0)} | ${ms(o.p99)} | ${cpu(o.cpuMs)} | **${(o.rps / m.rps).toFixed(2)}** | ${(o.cpuMs / m.cpuMs).toFixed(2)} |${each(ratios)}${perRound ? ` ${cpuRatios.map((r) => r.toFixed(2)).join(', ')} |` : ''}`,
    );
  }
  lines.push(
    '',
    'SQL statements our subgraph sent per answered request over the median round (`svc_db_queries_total` on its /metrics; background work such as the outbox relay\'s polls is included), by verb and first table:',
    '',
    '| Read | database | statements per request | by verb and table |',
    '|---|---|---:|---|',
    ...statementLines,
  );
  if (!rounds[0]?.has('rest')) return [...lines, ''].join('\n');
  const { a: rest, b: twin, ratios } = medianRound(rounds, 'rest', 'twin');
  lines.push(
    '',
    '| Facade row | req/s | p50 ms | p99 ms | CPU ms/req |',
    '|---|---:|---:|---:|---:|',
    `| POST /graphql (GetIdentity, the route's document) | ${twin.rps.toFixed(0)} | ${ms(twin.p50)} | ${ms(twin.p99)} | ${cpu(twin.cpuMs)} |`,
    `| REST GET /api/identity/{gpid} | ${rest.rps.toFixed(0)} | ${ms(rest.p50)} | ${ms(rest.p99)} | ${cpu(rest.cpuMs)} |`,
    '',
    `REST facade ÷ its GraphQL twin (same run${perRound ? ', median round' : ''}): req/s ${(rest.rps / twin.rps).toFixed(2)}×, p50 ${(rest.p50 / twin.p50).toFixed(2)}×, p99 ${(rest.p99 / twin.p99).toFixed(2)}× (target: the facade adds at most 10%: req/s ≥ 0.90×, latency ≤ 1.10×).${perRound ? ` req/s ratio per round: ${ratios.map((r) => r.toFixed(2)).join(', ')}.` : ''}`,
    '',
  );
  return lines.join('\n');
}

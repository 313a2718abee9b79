/**
 * What authenticating a request costs, per credential kind, and the p95 of GET /cms/tokens under
 * load with each of them.
 *
 *   npx tsx bench/credentials.ts [--duration <seconds per HTTP row, default 5>] [--connections <n, default 10>]
 *
 * Boots the embedded system on a temporary SQLite directory (SVC_RATE_LIMITS=off, so the limiter
 * does not turn the run into a measurement of 429s), listens on 127.0.0.1 only, and creates through
 * the public API one partner with a portal session, an API token and an OAuth client. Then:
 *
 * 1. verification cost, in process: the gateway's Authenticator against a second instance of the
 *    partner subgraph on the same SQLite files, timed per call: an API token from the cache, an API
 *    token looked up every time (cache disabled), an access token from the cache, and access tokens
 *    each verified for the first time (ES256 signature, claims, client standing from its cache);
 * 2. GET /cms/tokens over loopback with autocannon (bench/load.ts in a child process), one bounded
 *    row per credential kind.
 *
 * Prints a markdown section and appends it to bench/RESULTS.md under "Credential verification".
 * Everything it started is stopped and its temporary files are removed when it ends.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createMetrics, loadConfig, MemoryEventBus, type Config, type Subgraph } from '@svc/platform';
import { Authenticator, inProcessClient } from '@svc/gateway';
import { partnerSubgraph } from '@svc/partner';
import { startSystem, type RunningSystem } from '../system.js';
import type { FromLoad, LoadRun, LoadSpec, ToLoad } from './load.js';

const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const HEADING = '## Credential verification (bench/credentials.ts)';

function parseArgs(argv: readonly string[]): { duration: number; connections: number } {
  const options = { duration: 5, connections: 10 };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(duration|connections)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) throw new Error(`unknown argument "${argv[i]}"; usage: npx tsx bench/credentials.ts [--duration <s>] [--connections <n>]`);
    const value = Number(match[2] ?? argv[++i]);
    if (match[1] === 'duration' && !(value >= 1 && value <= 60)) throw new Error('--duration must be 1 to 60 seconds');
    if (match[1] === 'connections' && !(Number.isInteger(value) && value >= 1 && value <= 200)) throw new Error('--connections must be 1 to 200');
    options[match[1] as 'duration' | 'connections'] = value;
  }
  return options;
}

// ---------------------------------------------------------------------------------------------
// Setup through the public API

interface Credentials {
  session: string;
  apiToken: string;
  accessToken: () => Promise<string>;
}

async function call(base: string, path: string, init: RequestInit & { bearer?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers = new Headers(init.headers);
  if (init.bearer) headers.set('authorization', `Bearer ${init.bearer}`);
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const res = await fetch(`${base}${path}`, { ...init, headers });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function setUp(base: string, operator: string): Promise<Credentials> {
  const graphql = async (query: string, variables: Record<string, unknown>, bearer = operator) => {
    const { body } = await call(base, '/graphql', { method: 'POST', bearer, body: JSON.stringify({ query, variables }) });
    if (body['errors']) throw new Error(`setup failed: ${JSON.stringify(body['errors'])}`);
    return body['data'] as Record<string, Record<string, unknown>>;
  };
  const { registerPartner } = await graphql('mutation($i: RegisterPartnerInput!) { registerPartner(input: $i) { gpid } }', { i: { legalName: 'Benchmark Health', organizationType: 'HEALTH_SYSTEM' } });
  const email = 'bench@benchmark-partner.example';
  const password = `Bq7!${randomBytes(9).toString('base64url')}`;
  await graphql('mutation($p: ID!, $e: String!, $pw: String!) { createPortalAccount(partnerGpid: $p, email: $e, password: $pw) { email } }', { p: registerPartner!['gpid'], e: email, pw: password });
  const login = await call(base, '/cms/partner-login', { method: 'POST', body: JSON.stringify({ email, password }) });
  const session = String(login.body['access_token']);
  const token = await call(base, '/cms/tokens', { method: 'POST', bearer: session, body: JSON.stringify({ name: 'bench', scopes: ['cms.tokens.manage'] }) });
  const client = await call(base, '/cms/oauth/register', { method: 'POST', bearer: session, body: JSON.stringify({ client_name: 'bench', scope: 'cms.tokens.manage', token_endpoint_auth_method: 'client_secret_post' }) });
  if (token.status !== 201 || client.status !== 201) throw new Error(`setup failed: ${JSON.stringify([token.body, client.body])}`);
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: String(client.body['client_id']), client_secret: String(client.body['client_secret']) });
  return {
    session,
    apiToken: String(token.body['secret']),
    accessToken: async () => {
      const res = await call(base, '/oauth/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
      if (res.status !== 200) throw new Error(`token request failed: ${JSON.stringify(res.body)}`);
      return String(res.body['access_token']);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 1. Verification cost, in process

interface CostRow {
  label: string;
  calls: number;
  meanUs: number;
  p95Us: number;
}

function costRow(label: string, samplesNs: number[]): CostRow {
  const sorted = [...samplesNs].sort((a, b) => a - b);
  const mean = sorted.reduce((s, v) => s + v, 0) / sorted.length;
  return { label, calls: sorted.length, meanUs: mean / 1000, p95Us: sorted[Math.ceil(sorted.length * 0.95) - 1]! / 1000 };
}

async function timeCalls(calls: number, once: (i: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < calls; i++) {
    const start = process.hrtime.bigint();
    await once(i);
    samples.push(Number(process.hrtime.bigint() - start));
  }
  return samples;
}

async function verificationCosts(config: Config, system: RunningSystem, credentials: Credentials): Promise<CostRow[]> {
  // A second partner subgraph on the same SQLite files: what the gateway would reach.
  const bus = new MemoryEventBus();
  const subgraph: Subgraph = await partnerSubgraph.create({ config, logger: system.logger, bus, metrics: createMetrics({ defaultMetrics: false }) });
  const client = inProcessClient(subgraph);
  const gateway = { callSubgraph: (_name: string, request: Parameters<typeof client.execute>[0], context: { principal: Parameters<typeof client.execute>[1]; requestId: string }) => client.execute(request, context.principal, context.requestId) };
  const cached = new Authenticator(gateway, bus, system.logger);
  const uncached = new Authenticator(gateway, bus, system.logger, 0);
  try {
    const pat = `Bearer ${credentials.apiToken}`;
    const jwt = `Bearer ${await credentials.accessToken()}`;
    const fresh: string[] = [];
    for (let i = 0; i < 300; i++) fresh.push(`Bearer ${await credentials.accessToken()}`);
    for (let i = 0; i < 200; i++) {
      await cached.authenticate(pat, 'warmup');
      await uncached.authenticate(pat, 'warmup');
      await cached.authenticate(jwt, 'warmup');
    }
    return [
      costRow('API token, cached (SHA-256 + cache hit)', await timeCalls(20_000, () => cached.authenticate(pat, 'bench'))),
      costRow('API token, looked up every time (cache off)', await timeCalls(2_000, () => uncached.authenticate(pat, 'bench'))),
      costRow('OAuth access token, cached (SHA-256 + cache hit + client standing)', await timeCalls(20_000, () => cached.authenticate(jwt, 'bench'))),
      costRow('OAuth access token, first sight (ES256 verify + claims)', await timeCalls(fresh.length, (i) => cached.authenticate(fresh[i]!, 'bench'))),
    ];
  } finally {
    cached.close();
    uncached.close();
    await subgraph.stop();
    await bus.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. GET /cms/tokens under load

class LoadGenerator {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, (message: FromLoad) => void>();
  private nextId = 1;

  constructor() {
    this.child = fork(fileURLToPath(new URL('./load.ts', import.meta.url)), [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (message: FromLoad) => {
      this.pending.get(message.id)?.(message);
      this.pending.delete(message.id);
    });
  }

  run(spec: LoadSpec): Promise<LoadRun> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, (m) => (m.kind === 'done' ? resolve(m.run) : reject(new Error(m.message))));
      this.child.send({ kind: 'run', id, spec } satisfies ToLoad);
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ kind: 'exit' } satisfies ToLoad);
    const timer = setTimeout(() => this.child.kill(), 5000);
    await exited;
    clearTimeout(timer);
  }
}

interface HttpRow {
  label: string;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  statuses: string;
}

function percentile(sorted: Float64Array, p: number): number {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function httpRows(base: string, credentials: Credentials, options: { duration: number; connections: number }): Promise<HttpRow[]> {
  const load = new LoadGenerator();
  const rows: HttpRow[] = [];
  try {
    const kinds: [string, string][] = [
      ['API token (svc_pat_)', credentials.apiToken],
      ['Portal session (svc_ses_)', credentials.session],
      ['OAuth access token (JWT)', await credentials.accessToken()],
    ];
    for (const [label, bearer] of kinds) {
      const spec: LoadSpec = { url: `${base}/cms/tokens`, method: 'GET', headers: { authorization: `Bearer ${bearer}` }, connections: options.connections, duration: 1 };
      await load.run(spec); // warm-up, not counted
      const run = await load.run({ ...spec, duration: options.duration });
      const sorted = run.latencies.slice().sort();
      rows.push({
        label,
        rps: run.latencies.length / run.durationSeconds,
        p50: percentile(sorted, 50),
        p95: percentile(sorted, 95),
        p99: percentile(sorted, 99),
        statuses: Object.entries(run.statusCounts).map(([s, n]) => `${s}: ${n}`).join(', '),
      });
    }
  } finally {
    await load.close();
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Report

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

const EXPLANATION = `
${HEADING}

\`npx tsx bench/credentials.ts\` (see its header). The embedded system on SQLite with
\`SVC_RATE_LIMITS=off\`, one partner with a portal session, an API token and an OAuth client, all
made through the public API. The first table times the gateway's \`Authenticator.authenticate\` in
process (microseconds per call, against a second partner-subgraph instance on the same SQLite
files): the cached paths are what nearly every request pays; "looked up every time" is a cache miss
of an opaque secret (one indexed query); "first sight" is an access token's first request (ES256
signature and claims checked locally; the client's standing comes from its own cache). The second
table is \`GET /cms/tokens\` over loopback with autocannon (child process), per credential kind,
after a 1 s warm-up; latencies in milliseconds over every response. Sections are appended, newest last.
`;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-credentials-`);
  const operator = `op_${randomBytes(24).toString('base64url')}`;
  let system: RunningSystem | undefined;
  try {
    const config = loadConfig({ SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: operator, SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', SVC_PORT: '0', SVC_RATE_LIMITS: 'off' });
    system = await startSystem(config);
    await system.app.listen({ host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${(system.app.server.address() as AddressInfo).port}`;
    const loadBefore = os.loadavg();
    const credentials = await setUp(base, operator);
    const costs = await verificationCosts(config, system, credentials);
    const http = await httpRows(base, credentials, options);

    const section = [
      `### ${new Date().toISOString()}`,
      '',
      `- Machine: ${machine()}`,
      `- Load average before the run (1/5/15 min): ${loadBefore.map((l) => l.toFixed(2)).join(' / ')}${(loadBefore[0] ?? 0) > os.cpus().length / 2 ? ' (busy machine: treat as rough)' : ''}`,
      `- HTTP rows: ${options.duration} s each after a 1 s warm-up, ${options.connections} connections, loopback`,
      '',
      '| Verification path | calls | mean µs | p95 µs |',
      '|---|---:|---:|---:|',
      ...costs.map((r) => `| ${r.label} | ${r.calls} | ${r.meanUs.toFixed(1)} | ${r.p95Us.toFixed(1)} |`),
      '',
      '| GET /cms/tokens with | req/s | p50 ms | p95 ms | p99 ms | Responses by status |',
      '|---|---:|---:|---:|---:|---|',
      ...http.map((r) => `| ${r.label} | ${r.rps.toFixed(0)} | ${r.p50.toFixed(2)} | ${r.p95.toFixed(2)} | ${r.p99.toFixed(2)} | ${r.statuses} |`),
      '',
    ].join('\n');
    process.stdout.write(`${section}\n`);
    const existing = readFileSync(RESULTS_FILE, 'utf8');
    appendFileSync(RESULTS_FILE, `${existing.includes(HEADING) ? '' : EXPLANATION}\n${section}`);
  } finally {
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();

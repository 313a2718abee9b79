/**
 * Subscription fan-out: many graphql-ws subscribers of one event type, and how long each of them
 * waits for every event.
 *
 *   npm run bench -- --suite subscriptions [--subscribers 1000] [--events 50] [--interval 100] [--credentials 1,20]
 *
 * Boots the embedded system (SVC_ROLE=all, a temporary SQLite directory, SVC_RATE_LIMITS=off; the
 * gateway has no per-process cap on connections or subscriptions to raise), registers one partner
 * and gives it API tokens with `cms.pipeline.read` through the public GraphQL API. For each
 * `--credentials` count, a child process (bench/subscribers.ts) opens `--subscribers` connections
 * to `/graphql`, spread round-robin over that many of the partner's tokens (the hub shares one
 * execution per event among subscribers with the same document and credential, so the count is
 * the number of executions per event), each running
 * `subscription { pipelineSyncCompleted { id occurredAt data } }`. One warm-up event must reach
 * every subscriber (that is how we know all are subscribed); then `--events` sync jobs (created
 * beforehand) are completed through `POST /graphql` from the child process, `--interval` ms apart,
 * each producing one `pipeline.sync.completed`.
 *
 * Every delivery is timed from the event's `occurred_at` (stamped in the committing transaction)
 * and from the producing mutation's return, to its arrival in the child. Reports p50/p95/p99/max,
 * deliveries expected and received (every subscriber must get every event), the first delivery of
 * each event and the spread to its last one (the fan-out's own cost), the server's CPU time and
 * event-loop delay during the run, and the machine. Records a dated section in bench/RESULTS.md.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';
import { ChildRunner } from './child.js';
import type { Delivery, SubscriberRun, SubscriberSpec } from './subscribers.js';

const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const RESULTS_MARKER = '<!-- Newest results first; bench/run.ts inserts each run below this line. -->';
const FIELD = 'pipelineSyncCompleted';
const QUERY = `subscription { ${FIELD} { id occurredAt data } }`;
/** The issue's target for the fan-out p99. */
const TARGET_P99_MS = 200;

interface Options {
  subscribers: number;
  events: number;
  interval: number;
  credentials: number[];
  /** `ws` (graphql-ws over WebSocket, /graphql), `sse` (graphql-sse, /graphql/stream), or both. */
  transports: ('ws' | 'sse')[];
}

const USAGE = 'usage: npm run bench -- --suite subscriptions [--subscribers 1000] [--events 50] [--interval <ms, 100>] [--credentials 1,20] [--transport ws|sse|ws,sse]';

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { subscribers: 1000, events: 50, interval: 100, credentials: [1, 20], transports: ['ws'] };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(subscribers|events|interval|credentials|transport)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) throw new Error(`unknown argument "${argv[i]}"\n${USAGE}`);
    const raw = match[2] ?? argv[++i] ?? '';
    if (match[1] === 'transport') {
      const list = raw.split(',');
      if (!list.length || list.some((t) => t !== 'ws' && t !== 'sse')) throw new Error(`--transport must be ws, sse or ws,sse (got "${raw}")`);
      options.transports = list as ('ws' | 'sse')[];
      continue;
    }
    const name = match[1] as Exclude<keyof Options, 'transports'>;
    if (name === 'credentials') {
      const list = raw.split(',').map(Number);
      if (!list.length || list.some((n) => !Number.isInteger(n) || n < 1 || n > 1000)) throw new Error(`--credentials must be a comma-separated list of 1 to 1000 (got "${raw}")`);
      options.credentials = list;
      continue;
    }
    const value = Number(raw);
    const [min, max] = name === 'subscribers' ? [1, 5000] : name === 'events' ? [1, 1000] : [0, 10_000];
    if (!Number.isInteger(value) || value < min || value > max) throw new Error(`--${name} must be an integer from ${min} to ${max} (got "${raw}")`);
    options[name] = value;
  }
  return options;
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

interface Row {
  transport: 'ws' | 'sse';
  credentials: number;
  subscribers: number;
  events: number;
  expected: number;
  received: number;
  duplicates: number;
  fromOccurred: number[];
  fromReturn: number[];
  firstPerEvent: number[];
  spreadPerEvent: number[];
  errorCount: number;
  errors: string[];
  cpuMsPerEvent: number;
  loopDelayP99: number;
  loopDelayMax: number;
}

function summarise(transport: 'ws' | 'sse', credentials: number, options: Options, run: SubscriberRun, returnedAt: Map<string, number>, cpuMs: number, loop: { p99: number; max: number }): Row {
  const seen = new Set<string>();
  let duplicates = 0;
  const fromOccurred: number[] = [];
  const fromReturn: number[] = [];
  const perEvent = new Map<string, { first: number; last: number; occurred: number }>();
  for (const d of run.deliveries as Delivery[]) {
    const key = `${d.subscriber} ${d.eventId}`;
    if (seen.has(key)) {
      duplicates++;
      continue;
    }
    seen.add(key);
    const occurred = Date.parse(d.occurredAt);
    fromOccurred.push(d.receivedAt - occurred);
    const returned = d.jobId ? returnedAt.get(d.jobId) : undefined;
    if (returned !== undefined) fromReturn.push(d.receivedAt - returned);
    const e = perEvent.get(d.eventId);
    if (!e) perEvent.set(d.eventId, { first: d.receivedAt, last: d.receivedAt, occurred });
    else {
      e.first = Math.min(e.first, d.receivedAt);
      e.last = Math.max(e.last, d.receivedAt);
    }
  }
  const sort = (list: number[]) => list.sort((a, b) => a - b);
  return {
    transport,
    credentials,
    subscribers: options.subscribers,
    events: options.events,
    expected: options.subscribers * options.events,
    received: seen.size,
    duplicates,
    fromOccurred: sort(fromOccurred),
    fromReturn: sort(fromReturn),
    firstPerEvent: sort([...perEvent.values()].map((e) => e.first - e.occurred)),
    spreadPerEvent: sort([...perEvent.values()].map((e) => e.last - e.first)),
    errorCount: run.errorCount,
    errors: run.errors,
    cpuMsPerEvent: cpuMs / options.events,
    loopDelayP99: loop.p99,
    loopDelayMax: loop.max,
  };
}

export async function runSubscriptionsSuite(argv: readonly string[]): Promise<void> {
  const options = parseArgs(argv);
  const started = Date.now();
  const loadBefore = os.loadavg();
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-subscriptions-`);
  const operator = `op_${randomBytes(24).toString('base64url')}`;
  let system: RunningSystem | undefined;
  let pool: ChildRunner<SubscriberSpec, SubscriberRun> | undefined;
  try {
    // The SSE stream bounds (2000 in all, 50 per partner by default) raised above the subscriber count: one partner holds them all here.
    const streams = String(Math.max(options.subscribers, 50));
    const config = loadConfig({ SVC_LOG_LEVEL: 'silent', SVC_ROLE: 'all', SVC_BOOTSTRAP_TOKEN: operator, SVC_DATA_DIR: dataDir, SVC_HOST: '127.0.0.1', SVC_PORT: '0', SVC_RATE_LIMITS: 'off', SVC_GRAPHQL_SSE_MAX_STREAMS: streams, SVC_GRAPHQL_SSE_MAX_STREAMS_PER_PARTNER: streams });
    system = await startSystem(config);
    await system.app.listen({ host: '127.0.0.1', port: 0 });
    const port = (system.app.server.address() as AddressInfo).port;
    const url = `ws://127.0.0.1:${port}/graphql`;
    const httpUrl = `http://127.0.0.1:${port}/graphql`;
    const app = system.app;
    const graphql = async (query: string, variables: Record<string, unknown> = {}) => {
      const res = await app.inject({ method: 'POST', url: '/graphql', headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' }, payload: JSON.stringify({ query, variables }) });
      const body = res.json() as { data?: Record<string, Record<string, unknown>>; errors?: unknown };
      if (body.errors || !body.data) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
      return body.data;
    };

    const gpid = String((await graphql('mutation { registerPartner(input: { legalName: "Bench Subscribers", organizationType: "LABORATORY" }) { gpid } }'))['registerPartner']!['gpid']);
    const tokens: string[] = [];
    for (let i = 0; i < Math.max(...options.credentials); i++) {
      const created = await graphql('mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }', { i: { partnerGpid: gpid, name: `bench subscriber ${i}`, scopes: ['cms.pipeline.read'] } });
      tokens.push(String(created['createApiToken']!['secret']));
    }
    const createJob = async () => String((await graphql('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid }))['createSyncJob']!['jobId']);
    const completeJob = (jobId: string) => graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 1) { status } }', { j: jobId });

    pool = new ChildRunner<SubscriberSpec, SubscriberRun>(new URL('./subscribers.ts', import.meta.url), 'subscriber pool');
    const rows: Row[] = [];
    for (const transport of options.transports)
    for (const credentials of options.credentials) {
      process.stderr.write(`subscriptions (${transport}): ${options.subscribers} subscribers over ${credentials} credential(s) …\n`);
      const openedAt = Date.now();
      const opened = await pool.run({ op: 'open', url: transport === 'sse' ? `${httpUrl}/stream` : url, tokens: tokens.slice(0, credentials), count: options.subscribers, query: QUERY, field: FIELD, transport });
      process.stderr.write(`  ${opened.connected} connected in ${((Date.now() - openedAt) / 1000).toFixed(1)} s; warm-up event …\n`);
      // Warm-up events prove every subscription is registered with the hub (neither protocol
      // acknowledges a subscribe): one more every few seconds until every subscriber has one.
      let warm: SubscriberRun | undefined;
      for (let attempt = 0; attempt < 20 && (!warm || warm.short > 0); attempt++) {
        await completeJob(await createJob());
        warm = await pool.run({ op: 'await', perSubscriber: 1, timeoutMs: 5_000 });
      }
      if (warm!.short > 0) throw new Error(`${warm!.short} of ${options.subscribers} subscribers never received a warm-up event: ${warm!.errors.join('; ')}`);
      await pool.run({ op: 'reset' });

      const jobs: string[] = [];
      for (let i = 0; i < options.events; i++) jobs.push(await createJob());
      const returnedAt = new Map<string, number>();
      process.stderr.write(`  ${options.events} events, ${options.interval} ms apart …\n`);
      const loop = monitorEventLoopDelay({ resolution: 5 });
      loop.enable();
      const cpuBefore = process.cpuUsage();
      const produced = await pool.run({ op: 'produce', url: httpUrl, token: operator, jobIds: jobs, interval: options.interval });
      for (const [jobId, at] of produced.returned ?? []) returnedAt.set(jobId, at);
      const run = await pool.run({ op: 'await', perSubscriber: options.events, timeoutMs: 60_000 });
      const cpu = process.cpuUsage(cpuBefore);
      loop.disable();
      rows.push(summarise(transport, credentials, options, run, returnedAt, (cpu.user + cpu.system) / 1000, { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 }));
      await pool.run({ op: 'close' });
    }

    const loadAfter = os.loadavg();
    const section = report(new Date().toISOString(), options, loadBefore, loadAfter, rows);
    process.stdout.write(`\n${section}\n`);
    record(section);
    process.stderr.write(`recorded in ${RESULTS_FILE} (${((Date.now() - started) / 1000).toFixed(0)} s in all)\n`);
  } finally {
    await pool?.close();
    await system?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function report(date: string, options: Options, before: number[], after: number[], rows: Row[]): string {
  const cpus = os.cpus();
  const busy = (before[0] ?? 0) > cpus.length / 2; // the run itself raises the load after it
  const lines = [
    `## ${date} — subscription fan-out (${options.transports.map((t) => (t === 'ws' ? 'graphql-ws' : 'graphql-sse')).join(', ')})`,
    '',
    `- Machine: ${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores (nproc ${os.availableParallelism()}), ${(os.totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`,
    `- Load average before / after (1/5/15 min): ${before.map((l) => l.toFixed(2)).join(' / ')} → ${after.map((l) => l.toFixed(2)).join(' / ')}${busy ? ' — the machine was busy with other work: treat these numbers as rough' : ''}`,
    `- \`npm run bench -- --suite subscriptions --subscribers ${options.subscribers} --events ${options.events} --interval ${options.interval} --credentials ${options.credentials.join(',')} --transport ${options.transports.join(',')}\`: embedded system (SVC_ROLE=all, SQLite, rate limits off), ${options.subscribers} subscribers from one child process (graphql-ws: one WebSocket each on /graphql; graphql-sse: one Server-Sent Events stream each on /graphql/stream, SSE stream bounds raised to the subscriber count), each \`${QUERY}\`, as one partner's API tokens (\`cms.pipeline.read\`) round-robin; ${options.events} \`pipeline.sync.completed\` events from \`completeSyncJob\` over GraphQL, ${options.interval} ms apart, after one warm-up event that every subscriber received`,
    `- Latency of each delivery, in ms: from the event's \`occurred_at\` (set in the committing transaction; millisecond precision) and from the producing mutation's return, to the subscriber's socket. "First" is each event's first delivery (outbox relay → stream → hub → one execution per credential group); "spread" is from an event's first to its last delivery (the fan-out itself). Target: p99 under ${TARGET_P99_MS} ms.`,
    '',
    '| Transport | Credentials (executions per event) | deliveries received / expected | missing | duplicates | p50 | p95 | p99 | max | p99 from mutation return | first p50 / max | spread p50 / max | server CPU ms per event | server loop delay p99 / max | errors |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => {
      const o = r.fromOccurred;
      return `| ${r.transport === 'ws' ? 'graphql-ws' : 'graphql-sse'} | ${r.credentials} | ${r.received} / ${r.expected} | ${r.expected - r.received} | ${r.duplicates} | ${ms(percentile(o, 50))} | ${ms(percentile(o, 95))} | ${ms(percentile(o, 99))} | ${ms(o.at(-1) ?? Number.NaN)} | ${ms(percentile(r.fromReturn, 99))} | ${ms(percentile(r.firstPerEvent, 50))} / ${ms(r.firstPerEvent.at(-1) ?? Number.NaN)} | ${ms(percentile(r.spreadPerEvent, 50))} / ${ms(r.spreadPerEvent.at(-1) ?? Number.NaN)} | ${r.cpuMsPerEvent.toFixed(1)} | ${ms(r.loopDelayP99)} / ${ms(r.loopDelayMax)} | ${r.errorCount} |`;
    }),
    '',
  ];
  for (const r of rows) if (r.errors.length) lines.push(`Errors with ${r.credentials} credential(s) (first ${r.errors.length}): ${r.errors.map((e) => `\`${e}\``).join('; ')}`, '');
  return lines.join('\n');
}

function record(section: string): void {
  let text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : `# Benchmark results\n\n${RESULTS_MARKER}\n`;
  const at = text.indexOf(RESULTS_MARKER);
  text = at === -1 ? `${text.trimEnd()}\n\n${section}` : `${text.slice(0, at + RESULTS_MARKER.length)}\n\n${section}${text.slice(at + RESULTS_MARKER.length).replace(/^\n+/, '\n')}`;
  writeFileSync(RESULTS_FILE, `${text.trimEnd()}\n`);
}

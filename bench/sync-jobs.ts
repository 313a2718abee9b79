/**
 * Sync-job throughput: how many records per second the durable sync-job worker writes, per kind of
 * asynchronous submission (NDJSON push, batch Bundle, transaction Bundle).
 *
 *   npx tsx bench/sync-jobs.ts [--records <per kind, default 2000>] [--job-size <records per job, default 500>]
 *
 * Boots the embedded system on a temporary SQLite directory (SVC_RATE_LIMITS=off), submits every
 * job of a kind at once through the REST facade (`POST /fhir/R4`, app.inject, no port) as the
 * bootstrap operator, and polls the status URLs until every job is done. Records are Patients and
 * Observations (half each; in a transaction each Observation references a Patient of the same
 * Bundle by urn:uuid). records/s = records ÷ (last job done − first submission); one process runs
 * one job at a time, so this is one worker's throughput, end to end (validation, indexing, history,
 * events, per-entry bookkeeping). Prints a markdown section and appends it to bench/RESULTS.md under
 * "Sync-job throughput". Everything it started is stopped and its temporary files removed.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '@svc/platform';
import { startSystem, type RunningSystem } from '../system.js';

const RESULTS_FILE = fileURLToPath(new URL('./RESULTS.md', import.meta.url));
const HEADING = '## Sync-job throughput (bench/sync-jobs.ts)';

function parseArgs(argv: readonly string[]): { records: number; jobSize: number } {
  const options = { records: 2000, jobSize: 500 };
  for (let i = 0; i < argv.length; i++) {
    const match = /^--(records|job-size)(?:=(.*))?$/.exec(argv[i]!);
    if (!match) throw new Error(`unknown argument "${argv[i]}"; usage: npx tsx bench/sync-jobs.ts [--records <n>] [--job-size <n>]`);
    const value = Number(match[2] ?? argv[++i]);
    if (!Number.isInteger(value) || value < 2) throw new Error(`--${match[1]} needs an integer of at least 2`);
    if (match[1] === 'records') options.records = value;
    else options.jobSize = Math.min(value, 1000);
  }
  return options;
}

type Kind = 'ndjson' | 'batch' | 'transaction';

const patient = (n: number) => ({ resourceType: 'Patient', name: [{ family: `Bench${n}`, given: ['Sync'] }], gender: n % 2 ? 'female' : 'male', birthDate: `19${String(50 + (n % 50))}-0${1 + (n % 9)}-1${n % 10}` });
const observation = (subject: string | null, n: number) => ({
  resourceType: 'Observation',
  status: 'final',
  code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] },
  valueQuantity: { value: 60 + (n % 40), unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
  ...(subject ? { subject: { reference: subject } } : {}),
});

/** One job's body and headers: `size` records, half Patients, half Observations. */
function payload(kind: Kind, size: number, offset: number): { body: string; headers: Record<string, string> } {
  if (kind === 'ndjson') {
    const lines = Array.from({ length: size }, (_, i) => JSON.stringify(i % 2 === 0 ? patient(offset + i) : observation(null, offset + i)));
    return { body: lines.join('\n'), headers: { 'content-type': 'application/fhir+ndjson' } };
  }
  const entry: Record<string, unknown>[] = [];
  for (let i = 0; i < size; i += 2) {
    const fullUrl = `urn:uuid:${randomUUID()}`;
    entry.push({ fullUrl, resource: patient(offset + i), request: { method: 'POST', url: 'Patient' } });
    if (i + 1 < size) entry.push({ resource: observation(kind === 'transaction' ? fullUrl : null, offset + i + 1), request: { method: 'POST', url: 'Observation' } });
  }
  return { body: JSON.stringify({ resourceType: 'Bundle', type: kind, entry }), headers: { 'content-type': 'application/fhir+json', prefer: 'respond-async, return=minimal' } };
}

interface Row {
  kind: Kind;
  jobs: number;
  records: number;
  seconds: number;
  perJob: number[];
  statuses: string;
}

async function runKind(system: RunningSystem, token: string, kind: Kind, records: number, jobSize: number): Promise<Row> {
  const jobs = Math.ceil(records / jobSize);
  const started = performance.now();
  const submitted: { url: string; at: number }[] = [];
  for (let j = 0; j < jobs; j++) {
    const size = Math.min(jobSize, records - j * jobSize);
    const { body, headers } = payload(kind, size, j * jobSize);
    const res = await system.app.inject({ method: 'POST', url: '/fhir/R4', headers: { authorization: `Bearer ${token}`, ...headers }, payload: body });
    if (res.statusCode !== 202) throw new Error(`${kind} submission answered ${res.statusCode}: ${res.body.slice(0, 300)}`);
    submitted.push({ url: new URL(res.headers['content-location'] as string).pathname, at: performance.now() });
  }
  const perJob: number[] = new Array(jobs);
  const statuses = new Map<number, number>();
  const pending = new Set(submitted.keys());
  while (pending.size > 0) {
    for (const i of [...pending]) {
      const res = await system.app.inject({ method: 'GET', url: submitted[i]!.url, headers: { authorization: `Bearer ${token}` } });
      if (res.statusCode === 202) continue;
      pending.delete(i);
      perJob[i] = performance.now() - submitted[i]!.at;
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
    }
    if (pending.size > 0) await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - started) / 1000;
  return { kind, jobs, records, seconds, perJob, statuses: [...statuses].map(([s, n]) => `${s}: ${n}`).join(', ') };
}

function machine(): string {
  const cpus = os.cpus();
  return `${cpus[0]?.model.trim() ?? 'unknown CPU'}, ${cpus.length} cores, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ${os.type()} ${os.release()} ${os.arch()}, Node ${process.version}`;
}

const EXPLANATION = `
${HEADING}

\`npx tsx bench/sync-jobs.ts\` (see its header). The embedded system on SQLite; every job of a kind
is submitted at once (\`POST /fhir/R4\`, \`Prefer: respond-async\` or an NDJSON body) and the status
URLs are polled until all are done. records/s counts the records written from the first submission
to the last job done, by the one worker of the process (one job at a time); "per job" is
submission to done. Records are half Patients, half Observations. Sections are appended, newest last.
`;

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const dataDir = mkdtempSync(`${os.tmpdir()}/svc-bench-sync-`);
  const operator = `op_${randomBytes(24).toString('base64url')}`;
  let system: RunningSystem | undefined;
  try {
    const config = loadConfig({ SVC_LOG_LEVEL: 'silent', SVC_BOOTSTRAP_TOKEN: operator, SVC_DATA_DIR: dataDir, SVC_RATE_LIMITS: 'off' });
    system = await startSystem(config);
    await system.app.ready();
    const loadBefore = os.loadavg();
    const rows: Row[] = [];
    for (const kind of ['ndjson', 'batch', 'transaction'] as const) rows.push(await runKind(system, operator, kind, options.records, options.jobSize));
    const loadAfter = os.loadavg();
    const busy = (loadBefore[0] ?? 0) > os.cpus().length / 2;
    const section = [
      `### ${new Date().toISOString()}`,
      '',
      `- Machine: ${machine()}`,
      `- Load average before / after the run (1 min): ${loadBefore[0]!.toFixed(2)} / ${loadAfter[0]!.toFixed(2)}${busy ? ' — the machine was busy with other work (other builds and test suites running): treat these numbers as rough' : ''}`,
      `- ${options.records} records per kind in jobs of ${options.jobSize}; embedded SQLite, one worker`,
      '',
      '| Kind | Jobs | Records | Seconds | records/s | per job p50 s | per job max s | Final statuses |',
      '|---|---:|---:|---:|---:|---:|---:|---|',
      ...rows.map((r) => {
        const sorted = [...r.perJob].sort((a, b) => a - b);
        return `| ${r.kind} | ${r.jobs} | ${r.records} | ${r.seconds.toFixed(1)} | ${(r.records / r.seconds).toFixed(0)} | ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(1)} | ${(sorted.at(-1)! / 1000).toFixed(1)} | ${r.statuses} |`;
      }),
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

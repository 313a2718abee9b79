/**
 * Fuzz every REST operation of the OpenAPI documents the running system serves.
 *
 *   npm run fuzz -- --seed 1729 --cases-per-operation 40 --time-limit 110
 *
 * See README.md beside this file for what is generated and what fails a run.
 */
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { bootSystem } from '../support/system.js';
import { generateCase, type Dictionary, type FuzzCase } from './cases.js';
import { checkResponse, notServedMatcher, type Finding } from './check.js';
import { authorizationFor, setUpCredentials, type Credentials } from './credentials.js';
import { LoopbackClient, type FuzzRequest, type FuzzResponse } from './http.js';
import { operationsOf, type Operation } from './openapi.js';
import { fixedProbes } from './probes.js';

interface Options {
  seed: number;
  casesPerOperation: number;
  timeLimitMs: number;
  limits: 'off' | 'on' | 'both';
  operations: string[];
  slowMs: number;
  timeoutMs: number;
}

/** One occurrence of a finding, with everything needed to send the request again. */
interface Failure {
  finding: Finding;
  testCase: FuzzCase;
  variant: string;
  serverError?: string;
}

interface VariantResult {
  name: string;
  passed: number;
  failures: Failure[];
  skipped: number;
  slow: { testCase: FuzzCase; ms: number }[];
  notes: string[];
  operations: number;
  ms: number;
}

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      'cases-per-operation': { type: 'string', default: '40' },
      'time-limit': { type: 'string', default: '110' },
      limits: { type: 'string', default: 'both' },
      operation: { type: 'string', multiple: true, default: [] },
      'slow-ms': { type: 'string', default: '2000' },
      'timeout-ms': { type: 'string', default: '30000' },
    },
  });
  const number = (name: string, raw: string | undefined) => {
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} must be a non-negative integer, not ${JSON.stringify(raw)}`);
    return value;
  };
  const limits = values.limits;
  if (limits !== 'off' && limits !== 'on' && limits !== 'both') throw new Error('--limits must be off, on or both');
  const seedText = values.seed ?? process.env['FUZZ_SEED'] ?? String(Math.floor(Math.random() * 2 ** 31));
  return {
    seed: number('seed', seedText),
    casesPerOperation: Math.max(1, number('cases-per-operation', values['cases-per-operation'])),
    timeLimitMs: number('time-limit', values['time-limit']) * 1000,
    limits,
    operations: values.operation ?? [],
    slowMs: number('slow-ms', values['slow-ms']),
    timeoutMs: number('timeout-ms', values['timeout-ms']),
  };
}

/** Server errors logged while the run goes, by request id, so a 5xx can name where it came from. */
class ServerLog extends Writable {
  readonly byRequest = new Map<string, string>();

  override _write(chunk: Buffer, _encoding: string, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as { requestId?: string; msg?: string; err?: { type?: string; message?: string; stack?: string } };
        if (!entry.requestId || this.byRequest.has(entry.requestId)) continue;
        const frame = entry.err?.stack?.split('\n').find((l) => /\/(rest-facade|gateway|platform|subgraphs)\//.test(l) && !l.includes('node_modules'));
        this.byRequest.set(entry.requestId, `${entry.err?.type ?? 'error'}: ${entry.err?.message ?? entry.msg ?? ''}${frame ? ` ${frame.trim().replace(process.cwd() + '/', '')}` : ''}`);
      } catch {
        // not a JSON line
      }
    }
    callback();
  }
}

const processErrors: string[] = [];
process.on('uncaughtException', (err) => processErrors.push(`uncaught exception: ${err.stack ?? err.message}`));
process.on('unhandledRejection', (err) => processErrors.push(`unhandled rejection: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`));

function withAuthorization(testCase: FuzzCase, credentials: Credentials): FuzzRequest {
  const authorization = testCase.authorization ?? authorizationFor(testCase.auth, credentials, testCase.operation.serviceCredential);
  return { ...testCase.request, headers: { ...testCase.request.headers, ...(authorization ? { authorization } : {}) } };
}

async function runVariant(name: string, env: Record<string, string>, casesPerOperation: number, withProbes: boolean, deadline: number, options: Options): Promise<VariantResult> {
  const started = Date.now();
  const log = new ServerLog();
  const t = await bootSystem({ SVC_LOG_LEVEL: 'error', ...env }, { logger: pino({ level: 'error' }, log) });
  const result: VariantResult = { name, passed: 0, failures: [], skipped: 0, slow: [], notes: [], operations: 0, ms: 0 };
  try {
    await t.system.app.listen({ host: '127.0.0.1', port: 0 });
    const address = t.system.app.server.address();
    if (!address || typeof address === 'string') throw new Error('fuzz: the system did not listen on a TCP port');
    const client = new LoopbackClient(address.port, options.timeoutMs);
    const dictionary: Dictionary = {};
    const credentials = await setUpCredentials(t, dictionary);

    const served = await client.send({ method: 'GET', path: '/api/openapi/all.yaml', headers: {} });
    if (served.kind !== 'response' || served.status !== 200) throw new Error(`fuzz: GET /api/openapi/all.yaml did not answer 200 (${served.kind === 'response' ? served.status : served.error})`);
    const servedOperations = operationsOf(served.body.toString('utf8'));
    const notServed = notServedMatcher(servedOperations);
    const operations = servedOperations.filter((op) => options.operations.length === 0 || options.operations.includes(op.id));
    result.operations = operations.length;

    const answers = new Map<string, FuzzResponse>();
    const run = async (testCase: FuzzCase): Promise<FuzzResponse> => {
      const response = await client.send(withAuthorization(testCase, credentials));
      answers.set(testCase.id, response);
      const findings: Finding[] = checkResponse(testCase, response, notServed);
      if (processErrors.length > 0) findings.push(...processErrors.splice(0).map((detail) => ({ kind: 'no-response' as const, detail })));
      if (response.kind === 'response' && response.ms > options.slowMs) result.slow.push({ testCase, ms: response.ms });
      if (findings.length === 0) result.passed++;
      for (const finding of findings) {
        const requestId = response.kind === 'response' ? String(response.headers['x-request-id'] ?? '') : '';
        const serverError = log.byRequest.get(requestId);
        result.failures.push({ finding, testCase, variant: name, ...(serverError ? { serverError } : {}) });
      }
      return response;
    };

    for (const op of operations) {
      for (let index = 0; index < casesPerOperation; index++) {
        if (Date.now() > deadline) {
          result.skipped += casesPerOperation - index;
          break;
        }
        await run(generateCase(op, index, options.seed, casesPerOperation, dictionary));
      }
      const health = await client.send({ method: 'GET', path: '/health', headers: {} });
      if (health.kind !== 'response' || health.status !== 200) {
        result.failures.push({ finding: { kind: 'no-response', detail: `GET /health after ${op.id}: ${health.kind === 'response' ? health.status : health.error}` }, testCase: generateCase(op, 0, options.seed, casesPerOperation, dictionary), variant: name });
      }
    }

    // The cases must not have cost the run its own credentials (a revoked token turns every later case into a 401).
    for (const [who, bearer] of [['partner API token', credentials.partner], ['operator token', credentials.operator]] as const) {
      const still = await client.send({ method: 'GET', path: '/cms/tokens', headers: { authorization: `Bearer ${bearer}` } });
      if (still.kind === 'response' && still.status === 429) {
        result.failures.push({ finding: { kind: 'isolation', detail: `the ${who} answers 429 after the cases: bad bearers from its address locked out a valid credential` }, testCase: generateCase(operations[0]!, 0, options.seed, casesPerOperation, dictionary), variant: name });
      } else if (still.kind !== 'response' || still.status !== 200) {
        result.notes.push(`the ${who} no longer works after the cases (${still.kind === 'response' ? still.status : still.error}): later cases spoke without it`);
      }
    }

    if (withProbes) {
      for (const probe of fixedProbes(servedOperations, credentials)) {
        if (options.operations.length > 0 && !options.operations.includes(probe.testCase.operation.id)) continue;
        const response = await run(probe.testCase);
        if (response.kind !== 'response') continue;
        if (probe.mustRefuse && response.status < 400) {
          result.passed--;
          result.failures.push({ finding: { kind: 'isolation', detail: `${response.status} for another tenant's object` }, testCase: probe.testCase, variant: name });
        }
        const twin = probe.twinOf ? answers.get(probe.twinOf) : undefined;
        if (twin?.kind === 'response' && (twin.status !== response.status || codeOf(twin) !== codeOf(response))) {
          result.passed--;
          result.failures.push({ finding: { kind: 'isolation', detail: `another tenant's object answers ${twin.status} ${codeOf(twin)}, a missing one ${response.status} ${codeOf(response)}` }, testCase: probe.testCase, variant: name });
        }
      }
    }
    client.close();
  } finally {
    await t.close();
  }
  result.ms = Date.now() - started;
  return result;
}

function codeOf(response: Extract<FuzzResponse, { kind: 'response' }>): string {
  try {
    const body = JSON.parse(response.body.toString('utf8')) as Record<string, unknown>;
    return String(body['code'] ?? body['error'] ?? '');
  } catch {
    return '';
  }
}

/** Bytes as readable text: printable ASCII as is, everything else escaped; long bodies cut. */
function printable(bytes: Buffer, limit = 400): string {
  const text = bytes.subarray(0, limit).toString('latin1').replace(/[^\x20-\x7e]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return bytes.length > limit ? `${text}… (${bytes.length} bytes in all)` : text;
}

function describeAuthorization(testCase: FuzzCase): string | undefined {
  if (testCase.authorization !== undefined) return testCase.authorization.length > 120 ? `${testCase.authorization.slice(0, 60)}… (${testCase.authorization.length} chars)` : testCase.authorization;
  const who = { anonymous: undefined, 'bad-token': 'Bearer op_not-a-real-credential-0000000000', partner: `Bearer <partner ${testCase.operation.serviceCredential ? 'OAuth access token' : 'API token'}>`, operator: 'Bearer <bootstrap operator token>' }[testCase.auth];
  return who;
}

function reproduction(failure: Failure, count: number, options: Options): string {
  const { testCase, finding } = failure;
  const req = testCase.request;
  const lines = [
    `✗ ${finding.kind}: ${req.method} ${testCase.operation.path} → ${finding.detail}   [${count} case${count === 1 ? '' : 's'}, ${failure.variant}]`,
    `    case ${testCase.id} (seed ${options.seed}; ${testCase.mutations.length > 0 ? `mutations: ${testCase.mutations.join(', ')}` : 'valid-looking'}; as ${testCase.auth})`,
    `    ${req.method} ${printable(Buffer.from(req.path, 'latin1'), 300)}`,
  ];
  const authorization = describeAuthorization(testCase);
  if (authorization) lines.push(`    authorization: ${authorization}`);
  for (const [name, value] of Object.entries(req.headers)) lines.push(`    ${name}: ${printable(Buffer.from(value, 'latin1'), 200)}`);
  if (req.body) lines.push(`    body: ${printable(req.body)}`);
  if (failure.serverError) lines.push(`    server: ${failure.serverError}`);
  if (!testCase.id.startsWith('probe:')) lines.push(`    again: npm run fuzz -- --seed ${options.seed} --operation ${testCase.operation.id} --limits ${failure.variant === 'limits on' ? 'on' : 'off'}`);
  return lines.join('\n');
}

/** One line per distinct failure (kind, route, symptom), with its first reproduction. */
function report(failures: readonly Failure[], options: Options): void {
  const groups = new Map<string, { first: Failure; count: number }>();
  for (const failure of failures) {
    const key = [failure.finding.kind, failure.testCase.request.method, failure.testCase.operation.path, failure.finding.detail.replace(/"[^"]*"/g, '"…"')].join('|');
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { first: failure, count: 1 });
  }
  for (const { first, count } of groups.values()) console.log(reproduction(first, count, options));
}

async function main(): Promise<void> {
  const options = readOptions();
  const started = Date.now();
  const deadline = started + options.timeLimitMs;
  console.log(`fuzz: seed ${options.seed}, ${options.casesPerOperation} cases per operation, time limit ${options.timeLimitMs / 1000}s, rate limits ${options.limits}`);

  // Most cases run with the rate limits off so that 429s hide nothing; a tenth again with them on.
  const variants: { name: string; env: Record<string, string>; cases: number; probes: boolean; share: number }[] = [];
  if (options.limits !== 'on') variants.push({ name: 'limits off', env: { SVC_RATE_LIMITS: 'off' }, cases: options.casesPerOperation, probes: true, share: options.limits === 'both' ? 0.85 : 1 });
  if (options.limits !== 'off') variants.push({ name: 'limits on', env: { SVC_RATE_LIMITS: 'on' }, cases: options.limits === 'both' ? Math.max(4, Math.round(options.casesPerOperation / 10)) : options.casesPerOperation, probes: options.limits === 'on', share: 1 });

  const results: VariantResult[] = [];
  for (const variant of variants) {
    const variantDeadline = started + options.timeLimitMs * variant.share;
    results.push(await runVariant(variant.name, variant.env, variant.cases, variant.probes, Math.min(deadline, variantDeadline), options));
  }

  const failures = results.flatMap((r) => r.failures);
  for (const r of results) {
    const slowest = [...r.slow].sort((a, b) => b.ms - a.ms).slice(0, 5);
    console.log(
      `fuzz ${r.name}: ${r.operations} operations, ${r.passed} passed, ${r.failures.length} findings, ${r.skipped} cases not run (time limit), ${r.slow.length} slower than ${options.slowMs} ms, ${(r.ms / 1000).toFixed(1)} s`,
    );
    for (const s of slowest) console.log(`  slow: ${s.ms} ms ${s.testCase.request.method} ${s.testCase.operation.path} (${s.testCase.id}; ${s.testCase.mutations.join(', ') || 'valid-looking'})`);
    for (const note of r.notes) console.log(`  note: ${note}`);
  }
  if (failures.length > 0) {
    console.log(`\nFailures:`);
    report(failures, options);
  }
  const failedCases = new Set(failures.map((f) => `${f.variant}|${f.testCase.id}`)).size;
  const passed = results.reduce((sum, r) => sum + r.passed, 0);
  console.log(`fuzz: ${passed} passed, ${failedCases} failed`);
  process.exit(failedCases > 0 ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(2);
});

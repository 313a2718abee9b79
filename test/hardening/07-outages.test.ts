import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { loadConfig } from '@svc/platform';
import { startSystem, type RunningSystem } from '../../system.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from '../support/databases.js';
import { freePort, startProcess, waitUntilReady, type ServiceProcess } from '../support/processes.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';
import { bootSystem, type TestSystem } from '../support/system.js';
import { PATIENCE_MS } from '../support/patience.js';
import { foreignSubgraph } from '../support/foreign-subgraph.js';

const GRAPHQL_RESPONSE = 'application/graphql-response+json';

/** Poll until `accept` holds (outages are noticed and recovered from asynchronously). */
async function eventually<T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 45_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await probe();
  while (!accept(last)) {
    if (Date.now() > deadline) throw new Error(`condition not reached; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 250));
    last = await probe();
  }
  return last;
}

/** The dependency state changes (down/up) of `dependency` logged in `output`, in order. */
function stateChanges(output: string, dependency: string): string[] {
  return output
    .split('\n')
    .filter((line) => line.includes('"dependency"'))
    .map((line) => JSON.parse(line) as { dependency?: string; state?: string })
    .filter((entry) => entry.dependency === dependency)
    .map((entry) => entry.state ?? '?');
}

interface Answer {
  status: number;
  contentType: string;
  retryAfter: string | null;
  body: { data?: unknown; errors?: { message: string; extensions?: { code?: string } }[]; code?: string; status?: number; checks?: Record<string, boolean> };
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(PATIENCE_MS) });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', retryAfter: res.headers.get('retry-after'), body: text ? JSON.parse(text) : {} };
}

function expectOutage(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
  expect(answer.body).not.toHaveProperty('data');
  expect(answer.body.errors!.length).toBeGreaterThan(0);
  for (const error of answer.body.errors!) {
    expect(error.extensions?.code).toBe('UPSTREAM_UNAVAILABLE');
    expect(error.message).not.toMatch(/fetch failed/i);
  }
}

function expectProblem503(answer: Answer): void {
  expect(answer.status).toBe(503);
  expect(answer.contentType).toMatch(/^application\/problem\+json/);
  expect(answer.retryAfter).toMatch(/^[1-9]\d*$/);
  expect(answer.body).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
}

/**
 * The distributed mode as separate processes, with Redis and PostgreSQL reached through TCP proxies
 * the test takes down and brings back (the shared servers keep running for the other test files).
 */
describe.runIf(USE_POSTGRES)('outages in the distributed mode: a subgraph, Redis and the database go away and come back', { timeout: 300_000 }, () => {
  let storage: TestStorage;
  let redisProxy: TcpProxy;
  let pgProxy: TcpProxy;
  let shared: Record<string, string>;
  const subgraphs = new Map<string, ServiceProcess>();
  const retired: ServiceProcess[] = [];
  let gateway: ServiceProcess;
  let facade: ServiceProcess;
  let worker: ServiceProcess;
  const token = `out_${randomBytes(18).toString('base64url')}`;
  const all = () => [...subgraphs.values(), gateway, facade, worker];

  const graphql = (accept: string) =>
    call(`${gateway.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${token}` },
      body: JSON.stringify({ query: '{ pipelineHealth { status } }' }),
    });
  const rest = () => call(`${facade.url}/cms/pipeline/health`, { headers: { authorization: `Bearer ${token}` } });
  const ready = (service: ServiceProcess) => call(`${service.url}/ready`);
  const outputs = () => new Map(all().map((s) => [s, s.output().length]));

  beforeAll(async () => {
    storage = await freshStorage();
    const redisUrl = new URL(storage.env['SVC_REDIS_URL']!);
    const databaseUrl = new URL(storage.env['SVC_DATABASE_URL']!);
    redisProxy = await startTcpProxy(Number(redisUrl.port || 6379), redisUrl.hostname);
    pgProxy = await startTcpProxy(Number(databaseUrl.port || 5432), databaseUrl.hostname);
    shared = {
      ...storage.env,
      SVC_REDIS_URL: redisProxy.url(redisUrl.toString()),
      SVC_DATABASE_URL: pgProxy.url(databaseUrl.toString()),
      SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'),
      SVC_OUTBOX_POLL_MS: '200',
    };
    const started = await Promise.all(
      ['partner', 'identity', 'fhir', 'pipeline'].map((name) => startProcess(`subgraph:${name}`, name === 'partner' ? { ...shared, SVC_BOOTSTRAP_TOKEN: token } : shared)),
    );
    for (const s of started) subgraphs.set(s.role.split(':')[1]!, s);
    await Promise.all(started.map((s) => waitUntilReady(s)));
    // The worker (outbox relays and background jobs of every subgraph) starts once the schemas exist.
    worker = await startProcess('worker', shared);
    await waitUntilReady(worker);
    const urls = Object.fromEntries(started.map((s) => [`SVC_SUBGRAPH_${s.role.split(':')[1]!.toUpperCase()}_URL`, `${s.url}/graphql`]));
    gateway = await startProcess('gateway', { ...shared, ...urls });
    await waitUntilReady(gateway);
    facade = await startProcess('facade', { ...shared, SVC_GATEWAY_URL: gateway.internalUrl });
    await waitUntilReady(facade);
  }, 600_000);

  afterAll(async () => {
    await Promise.all([...all(), ...retired].filter(Boolean).map((s) => s.stop()));
    await redisProxy?.close();
    await pgProxy?.close();
    await storage?.dispose();
  });

  it('the worker\'s /ready lists Redis and the database of each subgraph it runs', async () => {
    const answer = await ready(worker);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      status: 'ready',
      checks: { redis: true, 'database:partner': true, 'database:identity': true, 'database:fhir': true, 'database:pipeline': true },
    });
  });

  it('a killed subgraph: GraphQL and REST answer 503 with Retry-After, /ready names it, and all recover when it restarts', async () => {
    expect((await graphql(GRAPHQL_RESPONSE)).status).toBe(200);
    const mark = outputs();
    const pipeline = subgraphs.get('pipeline')!;
    await pipeline.stop('SIGKILL');
    retired.push(pipeline);

    const spec = await graphql(GRAPHQL_RESPONSE);
    expectOutage(spec);
    expect(spec.contentType).toMatch(/^application\/graphql-response\+json/);
    const legacy = await graphql('application/json');
    expectOutage(legacy);
    expect(legacy.contentType).toMatch(/^application\/json/);
    expectProblem503(await rest());

    const gatewayReady = await eventually(() => ready(gateway), (a) => a.status === 503);
    expect(gatewayReady.body.checks).toMatchObject({ 'subgraph:pipeline': false, 'subgraph:partner': true });
    const facadeReady = await eventually(() => ready(facade), (a) => a.status === 503);
    expect(facadeReady.body.checks).toMatchObject({ gateway: false });

    const restarted = await startProcess('subgraph:pipeline', shared, { port: Number(new URL(pipeline.url).port) });
    subgraphs.set('pipeline', restarted);
    await waitUntilReady(restarted);
    await eventually(() => ready(gateway), (a) => a.status === 200);
    await eventually(() => ready(facade), (a) => a.status === 200);
    const after = await graphql(GRAPHQL_RESPONSE);
    expect(after.status).toBe(200);
    expect(after.body.data).toEqual({ pipelineHealth: { status: expect.any(String) } });
    expect((await rest()).status).toBe(200);

    expect(stateChanges(gateway.output().slice(mark.get(gateway)), 'subgraph:pipeline')).toEqual(['down', 'up']);
  });

  it('Redis down: REST answers 503 problem+json with Retry-After, /ready is 503 everywhere, and all recover when it returns', async () => {
    const mark = outputs();
    await redisProxy.close();

    expectProblem503(await eventually(rest, (a) => a.status !== 200));
    for (const service of all()) {
      const answer = await eventually(() => ready(service), (a) => a.status === 503);
      expect(answer.body.checks).toMatchObject({ redis: false });
    }
    // The worker names Redis alone: its databases are still reachable.
    expect((await ready(worker)).body).toEqual({
      status: 'not_ready',
      checks: { redis: false, 'database:partner': true, 'database:identity': true, 'database:fhir': true, 'database:pipeline': true },
    });

    await redisProxy.open();
    for (const service of all()) await eventually(() => ready(service), (a) => a.status === 200);
    expect((await eventually(rest, (a) => a.status === 200)).status).toBe(200);
    expect((await graphql(GRAPHQL_RESPONSE)).status).toBe(200);

    // Every process logged the outage once and the recovery once, however many requests failed.
    await eventually(async () => all().map((s) => stateChanges(s.output().slice(mark.get(s)), 'redis')), (changes) => changes.every((c) => c.length === 2));
    for (const service of all()) expect(stateChanges(service.output().slice(mark.get(service)), 'redis')).toEqual(['down', 'up']);
  });

  it('the database down: GraphQL and REST answer 503 with Retry-After, /ready is 503, and all recover when it returns', async () => {
    const mark = outputs();
    await pgProxy.close();

    expectOutage(await eventually(() => graphql(GRAPHQL_RESPONSE), (a) => a.status !== 200));
    expectProblem503(await eventually(rest, (a) => a.status !== 200));
    const pipeline = subgraphs.get('pipeline')!;
    expect((await eventually(() => ready(pipeline), (a) => a.status === 503)).body.checks).toMatchObject({ 'database:pipeline': false, redis: true });
    expect((await eventually(() => ready(gateway), (a) => a.status === 503)).body.checks).toMatchObject({ 'subgraph:pipeline': false });
    expect((await eventually(() => ready(facade), (a) => a.status === 503)).body.checks).toMatchObject({ gateway: false });
    expect((await eventually(() => ready(worker), (a) => a.status === 503)).body.checks).toMatchObject({ 'database:pipeline': false, redis: true });

    await pgProxy.open();
    for (const service of all()) await eventually(() => ready(service), (a) => a.status === 200);
    expect((await eventually(() => graphql(GRAPHQL_RESPONSE), (a) => a.status === 200)).body.data).toEqual({ pipelineHealth: { status: expect.any(String) } });
    expect((await eventually(rest, (a) => a.status === 200)).status).toBe(200);

    const changes = await eventually(async () => stateChanges(pipeline.output().slice(mark.get(pipeline)), 'database:pipeline'), (c) => c.length >= 2);
    expect(changes).toEqual(['down', 'up']);
  });

  it('logs dependency errors only as structured JSON lines: no "Unhandled error event", no per-request error for an outage', () => {
    for (const service of [...all(), ...retired]) {
      const output = service.output();
      expect(output).not.toMatch(/Unhandled error event/);
      // Plain-text lines from the runtime unrelated to dependencies (Node warnings) are not ours to judge.
      const plain = output.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('{'));
      expect(plain.filter((line) => /redis|ECONN|connection|dependency|fetch failed|database|subgraph|gateway/i.test(line)), service.role).toEqual([]);
      expect(output).not.toMatch(/"msg":"(route failed|resolver failed|outbox relay failed|credential lookup failed)"/);
    }
  });
});

/** Someone else's subgraph, served on its own port, which the test can stop and start again. */
function weatherSubgraph() {
  return foreignSubgraph(
    'extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key"]) type Query { forecast(city: String!): Forecast } type Forecast { city: String! sky: String! }',
    { Query: { forecast: (_: unknown, args: Record<string, unknown>) => ({ city: args['city'], sky: 'clear' }) } },
  );
}

/** Runs in both passes: one process, a gateway fronting a separately served subgraph, and a facade in front of it. */
describe('outages in one process: a gateway whose subgraph stops, a facade whose gateway is not there yet', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-outage-'));
  const secret = randomBytes(32).toString('base64url');
  const logs: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(line) });
  let weather: Server;
  let weatherPort: number;
  let gatewayPort: number;
  let gateway: RunningSystem;
  let facade: RunningSystem;

  const forecast = (accept: string, query = '{ forecast(city: "Oslo") { sky } }') =>
    gateway.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', accept }, payload: { query } });
  const logged = (dependency: string) => stateChanges(logs.join(''), dependency);

  beforeAll(async () => {
    const subgraph = weatherSubgraph();
    weather = subgraph.server;
    await new Promise<void>((resolve) => weather.listen(0, '127.0.0.1', resolve));
    weatherPort = (weather.address() as { port: number }).port;
    writeFileSync(join(dir, 'weather.graphql'), subgraph.sdl);
    writeFileSync(
      join(dir, 'supergraph.yaml'),
      `federation_version: =2.6.0\nsubgraphs:\n  weather:\n    routing_url: http://127.0.0.1:${weatherPort}/graphql\n    schema:\n      file: ./weather.graphql\n`,
    );
    gatewayPort = await freePort();
    const common = { SVC_INTERNAL_SECRET: secret, SVC_DATA_DIR: dir, SVC_LOG_LEVEL: 'warn' };
    gateway = await startSystem(loadConfig({ ...common, SVC_ROLE: 'gateway', SVC_SUPERGRAPH: join(dir, 'supergraph.yaml') }), { logger: logger.child({ role: 'gateway' }) });
    facade = await startSystem(loadConfig({ ...common, SVC_ROLE: 'facade', SVC_GATEWAY_URL: `http://127.0.0.1:${gatewayPort}` }), { logger: logger.child({ role: 'facade' }) });
    await Promise.all([gateway.app.ready(), facade.app.ready()]);
  });
  afterAll(async () => {
    await facade?.stop();
    await gateway?.stop();
    weather?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the facade answers 503 problem+json with Retry-After while its gateway is unreachable, and /ready names the gateway', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await facade.app.inject({ url: '/cms/pipeline/health', headers: { authorization: 'Bearer svc_pat_whatever' } });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(res.json()).toMatchObject({ status: 503, code: 'UPSTREAM_UNAVAILABLE' });
    }
    const readiness = await facade.app.inject({ url: '/ready' });
    expect(readiness.statusCode).toBe(503);
    expect(readiness.json()).toEqual({ status: 'not_ready', checks: { gateway: false, load: true } });
    expect(logged('gateway')).toEqual(['down']);

    // The facade reaches the gateway on its internal listener.
    await gateway.internalApp!.listen({ port: gatewayPort, host: '127.0.0.1' });
    await eventually(async () => (await facade.app.inject({ url: '/ready' })).statusCode, (s) => s === 200);
    await eventually(async () => logged('gateway'), (c) => c.length === 2);
    expect(logged('gateway')).toEqual(['down', 'up']);
  });

  it('the gateway answers 503 with UPSTREAM_UNAVAILABLE and Retry-After while its subgraph is down, in both media types', async () => {
    expect((await forecast(GRAPHQL_RESPONSE)).statusCode).toBe(200);
    await new Promise<void>((resolve) => {
      weather.close(() => resolve());
      weather.closeAllConnections();
    });

    for (const accept of [GRAPHQL_RESPONSE, 'application/json']) {
      const res = await forecast(accept);
      expectOutage({ status: res.statusCode, contentType: String(res.headers['content-type']), retryAfter: (res.headers['retry-after'] as string | undefined) ?? null, body: res.json() });
      expect(res.headers['content-type']).toContain(accept);
    }
    // Data that did come back keeps the response a (partial) success, as GraphQL over HTTP requires.
    const partial = await forecast(GRAPHQL_RESPONSE, '{ __typename forecast(city: "Oslo") { sky } }');
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toMatchObject({ data: { __typename: 'Query', forecast: null }, errors: [{ extensions: { code: 'UPSTREAM_UNAVAILABLE' } }] });

    const readiness = await gateway.app.inject({ url: '/ready' });
    expect(readiness.statusCode).toBe(503);
    expect(readiness.json()).toEqual({ status: 'not_ready', checks: { supergraph: true, 'subgraph:weather': false, load: true } });
    expect(logged('subgraph:weather')).toEqual(['down']);
  });

  it('recovers by itself when the subgraph is back: /ready 200, answers 200, one recovery line', async () => {
    await new Promise<void>((resolve) => weather.listen(weatherPort, '127.0.0.1', resolve));
    await eventually(async () => (await gateway.app.inject({ url: '/ready' })).statusCode, (s) => s === 200);
    const res = await forecast(GRAPHQL_RESPONSE);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { forecast: { sky: 'clear' } } });
    await eventually(async () => logged('subgraph:weather'), (c) => c.length === 2);
    expect(logged('subgraph:weather')).toEqual(['down', 'up']);
  });
});

/** The embedded default with Redis (PostgreSQL pass): its /ready names Redis and every database, and follows Redis. */
describe.runIf(USE_POSTGRES)('the embedded default with Redis: /ready follows Redis', () => {
  let storage: TestStorage;
  let redisProxy: TcpProxy;
  let t: TestSystem;
  const ready = async () => {
    const res = await t.system.app.inject({ url: '/ready' });
    return { status: res.statusCode, body: res.json() as { status: string; checks: Record<string, boolean> } };
  };
  const checks = (redis: boolean) => ({ supergraph: true, redis, 'database:partner': true, 'database:identity': true, 'database:fhir': true, 'database:pipeline': true, load: true });

  beforeAll(async () => {
    storage = await freshStorage();
    const redisUrl = new URL(storage.env['SVC_REDIS_URL']!);
    redisProxy = await startTcpProxy(Number(redisUrl.port || 6379), redisUrl.hostname);
    t = await bootSystem({ SVC_REDIS_URL: redisProxy.url(redisUrl.toString()) }, { storage });
  });
  afterAll(async () => {
    await t?.close();
    await redisProxy?.close();
    await storage?.dispose();
  });

  it('lists Redis and each database, turns 503 while Redis is unreachable and 200 when it returns', async () => {
    expect(await ready()).toEqual({ status: 200, body: { status: 'ready', checks: checks(true) } });
    await redisProxy.close();
    expect(await eventually(ready, (a) => a.status === 503)).toEqual({ status: 503, body: { status: 'not_ready', checks: checks(false) } });
    await redisProxy.open();
    expect(await eventually(ready, (a) => a.status === 200)).toEqual({ status: 200, body: { status: 'ready', checks: checks(true) } });
  });
});

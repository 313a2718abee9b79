import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventually } from './support/patience.js';
import { descendsFrom, OtlpReceiver, type ExportedSpan } from './support/otlp-receiver.js';

const CLIENT = 3;
const CONSUMER = 5;

/**
 * The work a request leaves behind, traced in that request's trace: a durable FHIR job (an
 * asynchronous Bundle, a `$export`) runs on the job thread, which exports its own spans; its run is
 * a span of the enqueuing request's trace (the job row keeps the traceparent), with its SQL
 * statements as children. The event the job emits reaches a live graphql-ws subscriber: the
 * gateway's execution for that event is a span of the event's trace. On SQLite, and on PostgreSQL +
 * Redis in the PostgreSQL pass.
 */
describe('OpenTelemetry: durable jobs and subscription events in the trace of the request behind them', () => {
  const receiver = new OtlpReceiver();
  let t: TestSystem;
  let client: Client;
  let pusher: string;
  let exporter: string;
  let writer: string;
  let clearing: string;
  const marker = `Zq${randomBytes(6).toString('hex')}`;
  const delivered: { id: string; type: string }[] = [];

  beforeAll(async () => {
    const endpoint = await receiver.start();
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'svc-traced-jobs' });
    const gpid = await registerPartner(t, 'Traced Jobs Clinic');
    pusher = await apiToken(t, gpid, ['cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.fhir.r4.read']);
    // Clearinghouse scopes need an operator's grant first.
    const grant = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: ['velocity.clearinghouse.*', 'cms.fhir.bundle.push', 'cms.fhir.rest.write', 'cms.fhir.r4.read', 'cms.tokens.manage'] } });
    expect(grant.statusCode, grant.body).toBe(200);
    clearing = await apiToken(t, gpid, ['velocity.clearinghouse.*']);
    exporter = await apiToken(t, null, ['system/*.read']);
    writer = await apiToken(t, null, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    client = createClient({ url: `${address.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${t.operatorToken}` }, lazy: false });
    await new Promise<void>((resolve, reject) => {
      client.subscribe<{ events: { id: string; type: string } }>(
        { query: 'subscription { events(types: ["pipeline.sync.completed"]) { id type } }' },
        { next: (value) => void (value.data ? delivered.push(value.data.events) : undefined), error: reject, complete: () => undefined },
      );
      // graphql-ws acknowledges the connection before subscribing; a short settle lets the subscribe land.
      client.on('connected', () => setTimeout(resolve, 200));
    });
  });
  afterAll(async () => {
    await client?.dispose();
    await t?.close();
    await receiver.close();
  });

  const traced = () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    return { traceId, traceparent: `00-${traceId}-${callerSpanId}-01` };
  };
  const inTrace = (spans: readonly ExportedSpan[]) => ({
    one(predicate: (s: ExportedSpan) => boolean, what: string): ExportedSpan {
      const found = spans.filter(predicate);
      expect(found.length, `${what} in ${spans.map((s) => s.name).join(', ')}`).toBeGreaterThan(0);
      return found[0]!;
    },
    under(child: ExportedSpan, parent: ExportedSpan) {
      expect(descendsFrom(spans, child, parent), `${child.name} under ${parent.name}`).toBe(true);
    },
  });
  const isSql = (s: ExportedSpan) => s.kind === CLIENT && s.attributes['db.system.name'] !== undefined;

  it('runs an asynchronous Bundle as a span of the submitting request’s trace, with its SQL as children, and the subscription execution of its event in that trace', async () => {
    const { traceId, traceparent } = traced();
    const bundle = {
      resourceType: 'Bundle',
      type: 'transaction',
      entry: [{ resource: { resourceType: 'Patient', name: [{ family: `${marker}family` }], birthDate: '1971-03-09' }, request: { method: 'POST', url: 'Patient' } }],
    };
    const accepted = await fhir(t, pusher, 'POST', '', bundle, { prefer: 'respond-async', traceparent });
    expect(accepted.statusCode, accepted.body).toBe(202);
    const jobId = String(accepted.headers['content-location']).split('/').at(-1)!;

    const spans = await eventually(async () => {
      const found = receiver.trace(traceId);
      // The job thread exports on its own: wait for the main thread's spans of the chain too.
      const server = found.find((s) => s.name.startsWith('POST /fhir/R4'));
      const run = found.find((s) => s.name === 'job fhir-sync transaction');
      expect(server !== undefined && run !== undefined && descendsFrom(found, run, server)).toBe(true);
      expect(found.some((s) => s.name === 'subscription pipeline.sync.completed')).toBe(true);
      expect(found.some((s) => s.name === 'gateway.request' && s.attributes['graphql.operation.type'] === 'query' && found.some((p) => p.name === 'subscription pipeline.sync.completed' && descendsFrom(found, s, p)))).toBe(true);
      return found;
    });
    const { one, under } = inTrace(spans);
    const server = one((s) => s.name.startsWith('POST /fhir/R4'), 'the submission’s server span');
    const run = one((s) => s.name === 'job fhir-sync transaction', 'the job’s run');
    under(run, server);
    expect(run.attributes).toEqual({ 'svc.job.name': 'fhir-sync', 'svc.job.kind': 'transaction', 'svc.job.attempt': 1 });
    // The job's statements, on the job thread, are children of its run.
    // (PostgreSQL's insert is a `with … insert` statement.)
    under(one((s) => isSql(s) && ['insert', 'with'].includes(String(s.attributes['db.operation.name'])) && s.attributes['db.collection.name'] === 'fhir_resources', 'the Bundle’s insert'), run);
    under(one((s) => isSql(s) && s.attributes['db.operation.name'] === 'update' && s.attributes['db.collection.name'] === 'fhir_sync_jobs', 'the job’s final state'), run);

    // Its pipeline.sync.completed event reached the live subscriber; the execution for it is in the trace.
    await eventually(async () => expect(delivered.map((d) => d.type)).toContain('pipeline.sync.completed'));
    const subscription = one((s) => s.name === 'subscription pipeline.sync.completed', 'the subscription execution');
    expect(subscription.kind).toBe(CONSUMER);
    under(subscription, run);
    expect(subscription.attributes).toEqual({ 'graphql.operation.type': 'subscription', 'svc.event_type': 'pipeline.sync.completed', 'svc.subscription.subscribers': 1 });
    one((s) => s.name === 'gateway.request' && descendsFrom(spans, s, subscription), 'the gateway’s execution of the selection under it');
    expect(jobId).toMatch(/^job_/);
  });

  it('nests the job thread’s statements of a call it answers under the call’s span (an eligibility check)', async () => {
    const { traceId, traceparent } = traced();
    const body = { payer: { id: '12345', name: 'ACME HEALTH PLAN' }, provider: { npi: '1234567893', name: 'RIVERSIDE CLINIC' }, subscriber: { member_id: 'W123456789', first_name: 'JANE', last_name: 'DOE', birth_date: '1980-01-01', gender: 'F' }, service_type_codes: ['30'], service_date: '2026-11-23' };
    const answered = await t.request({ method: 'POST', url: '/velocity/v1/clearinghouse/eligibility', token: clearing, body, headers: { traceparent } });
    expect(answered.statusCode, answered.body).toBe(200);
    const spans = await eventually(async () => {
      const found = receiver.trace(traceId);
      const call = found.find((s) => s.name === 'job fhir-jobs eligibility');
      expect(call).toBeDefined();
      expect(found.some((s) => isSql(s) && descendsFrom(found, s, call!))).toBe(true);
      return found;
    });
    const { one } = inTrace(spans);
    const call = one((s) => s.name === 'job fhir-jobs eligibility', 'the call’s span');
    one((s) => isSql(s) && descendsFrom(spans, s, call), 'a statement of the job thread under it');
  });

  it('runs a $export as a span of the kick-off’s trace, with its page reads and chunk writes as children', async () => {
    const written = await fhir(t, writer, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: `${marker}exported` }], birthDate: '1980-01-01' }, { 'x-svc-source': 'provider' });
    expect(written.statusCode, written.body).toBe(201);
    const { traceId, traceparent } = traced();
    const kickoff = await fhir(t, exporter, 'GET', '/$export', undefined, { prefer: 'respond-async', traceparent });
    expect(kickoff.statusCode, kickoff.body).toBe(202);

    const spans = await eventually(async () => {
      const found = receiver.trace(traceId);
      const run = found.find((s) => s.name === 'job fhir-export system');
      expect(run).toBeDefined();
      // The job thread exports on its own: wait for the kick-off's spans of the main thread too.
      const server = found.find((s) => s.name.startsWith('GET /fhir/R4'));
      expect(server !== undefined && descendsFrom(found, run!, server)).toBe(true);
      expect(found.some((s) => isSql(s) && s.attributes['db.collection.name'] === 'fhir_export_chunks' && descendsFrom(found, s, run!))).toBe(true);
      return found;
    });
    const { one, under } = inTrace(spans);
    const run = one((s) => s.name === 'job fhir-export system', 'the export’s run');
    under(run, one((s) => s.name.startsWith('GET /fhir/R4'), 'the kick-off’s server span'));
    expect(run.attributes).toEqual({ 'svc.job.name': 'fhir-export', 'svc.job.kind': 'system' });
    // The Patient is exported: a page read and a chunk write.
    under(one((s) => isSql(s) && s.attributes['db.operation.name'] === 'select' && s.attributes['db.collection.name'] === 'fhir_resources' && descendsFrom(spans, s, run), 'a page read'), run);
    under(one((s) => isSql(s) && s.attributes['db.collection.name'] === 'fhir_export_chunks', 'a chunk write'), run);

    // Nothing that was sent, nor any credential, in any export.
    await client.dispose();
    await t.system.stop().catch(() => undefined);
    for (const body of receiver.bodies) {
      expect(body).not.toContain(marker);
      expect(body).not.toContain(pusher);
      expect(body).not.toContain(exporter);
      expect(body).not.toContain(writer);
      expect(body).not.toContain(clearing);
      expect(body).not.toContain(t.operatorToken);
    }
  });
});

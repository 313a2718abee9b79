import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventually } from './support/patience.js';
import { descendsFrom, OtlpReceiver, type ExportedSpan } from './support/otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/** Attributes that would carry a statement's text, a document, a URL or a body: none is ever set. */
const FORBIDDEN_ATTRIBUTES = ['graphql.document', 'db.statement', 'db.query.text', 'url.full', 'url.query', 'http.url', 'http.target', 'http.request.body'];

/**
 * One REST call, traced end to end with the OpenTelemetry SDK exporting OTLP/HTTP JSON to a
 * receiver the test runs: a FHIR Patient create with the caller's `traceparent`, which crosses the
 * facade, the gateway (query plan, fetch), the partner subgraph (the new token's lookup), the FHIR
 * subgraph and its SQL, and the event stream twice (the Patient's identity request is consumed by
 * the identity subgraph, whose link event is consumed by the FHIR subgraph). On SQLite, and on
 * PostgreSQL + Redis in the PostgreSQL pass.
 */
describe('OpenTelemetry: one REST call as one trace, exported over OTLP/HTTP', () => {
  const receiver = new OtlpReceiver();
  /** The partner's webhook receiver: the headers of every delivery attempt. */
  const attempts: IncomingHttpHeaders[] = [];
  const hooks = createServer((req, res) => {
    attempts.push(req.headers);
    req.resume();
    res.writeHead(204).end();
  });
  let t: TestSystem;
  let token: string;
  const marker = `Zq${randomBytes(6).toString('hex')}`;
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');

  beforeAll(async () => {
    const endpoint = await receiver.start();
    await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_WEBHOOK_ALLOW_PRIVATE: 'true', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: 'svc-traced' });
    const gpid = await registerPartner(t, 'Traced Clinic');
    const manager = await apiToken(t, gpid, ['cms.webhooks.manage']);
    const hook = await t.request({ method: 'POST', url: '/api/partner/webhooks', token: manager, body: { url: `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`, event_types: ['fhir.resource.created'] } });
    expect(hook.statusCode, hook.body).toBe(201);
    // Used first by the traced call: its lookup in the partner subgraph is part of that trace.
    token = await apiToken(t, gpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
    hooks.close();
  });

  it('answers a request with a malformed, all-zero or oversized traceparent as any other, as the root of a trace of its own', async () => {
    // A token of its own: the traced call below is the first use of `token`.
    const reader = await apiToken(t, null, ['cms.fhir.r4.read']);
    const before = new Set(receiver.spans.map((s) => s.spanId));
    for (const traceparent of ['garbage', `00-${'0'.repeat(32)}-${'0'.repeat(16)}-01`, `00-${'f'.repeat(16_000)}`]) {
      const read = await fhir(t, reader, 'GET', '/Patient?_count=1', undefined, { traceparent });
      expect(read.statusCode, read.body).toBe(200);
    }
    const roots = await eventually(async () => {
      const found = receiver.spans.filter((s) => !before.has(s.spanId) && s.kind === SERVER && s.name.startsWith('GET /fhir/R4/'));
      expect(found).toHaveLength(3);
      return found;
    });
    for (const span of roots) {
      expect(span.parentSpanId ?? '').toBe('');
      expect(span.traceId).toMatch(/^(?!0{32})[0-9a-f]{32}$/);
    }
  });

  it('keeps the caller’s trace id and nests facade → gateway → planning → subgraph fetches → SQL → event stream, with no value sent in any attribute', async () => {
    const patient = {
      resourceType: 'Patient',
      name: [{ family: `${marker}family`, given: [`${marker}given`] }],
      birthDate: '1971-03-09',
      telecom: [{ system: 'email', value: `${marker}@example.org` }],
    };
    const created = await fhir(t, token, 'POST', '/Patient', patient, { 'x-svc-source': 'provider', traceparent: `00-${traceId}-${callerSpanId}-01` });
    expect(created.statusCode, created.body).toBe(201);

    // The identity subgraph's link event is consumed by the FHIR subgraph last.
    const spans = await eventually(async () => {
      const found = receiver.trace(traceId);
      expect(found.some((s) => s.name === 'process fhir-identity-link')).toBe(true);
      expect(found.some((s) => s.name === 'webhook attempt')).toBe(true);
      return found;
    });
    const one = (predicate: (s: ExportedSpan) => boolean, what: string) => {
      const found = spans.filter(predicate);
      expect(found.length, `${what} in ${spans.map((s) => s.name).join(', ')}`).toBeGreaterThan(0);
      return found[0]!;
    };
    const under = (child: ExportedSpan, parent: ExportedSpan) => expect(descendsFrom(spans, child, parent), `${child.name} under ${parent.name}`).toBe(true);

    // The facade's server span continues the caller's trace, as the child of the caller's span.
    const server = one((s) => s.kind === SERVER && s.parentSpanId === callerSpanId, 'the server span');
    expect(server.service).toBe('svc-traced');
    expect(server.name).toMatch(/^POST \/fhir\/R4\//);
    expect(server.attributes['http.response.status_code']).toBe(201);
    expect(typeof server.attributes['svc.route_id']).toBe('string');

    const request = one((s) => s.name === 'gateway.request', 'the gateway operation');
    under(request, server);
    under(one((s) => s.name === 'gateway.plan', 'query planning'), request);
    const fhirFetch = one((s) => s.name === 'subgraph fhir' && s.kind === CLIENT, 'the FHIR subgraph fetch');
    under(fhirFetch, one((s) => s.name === 'gateway.fetch' && s.attributes['service'] === 'fhir', "Apollo's fetch span"));
    expect(fhirFetch.attributes['svc.subgraph']).toBe('fhir');
    // The new token's first use is looked up in the partner subgraph, in the same request.
    const partnerFetch = one((s) => s.name === 'subgraph partner', 'the partner subgraph fetch');
    under(partnerFetch, server);

    // A span per SQL statement, with the operation and table only.
    const sql = spans.filter((s) => s.kind === CLIENT && s.attributes['db.system.name'] !== undefined);
    const fhirInsert = one((s) => sql.includes(s) && s.attributes['db.operation.name'] === 'insert' && String(s.attributes['db.collection.name']).startsWith('fhir_'), 'a FHIR insert');
    under(fhirInsert, fhirFetch);
    under(one((s) => sql.includes(s) && String(s.attributes['db.collection.name']).startsWith('partner_'), 'a partner statement'), partnerFetch);
    for (const s of sql) {
      expect(['sqlite', 'postgresql']).toContain(s.attributes['db.system.name']);
      expect(Object.keys(s.attributes).sort()).toEqual(expect.arrayContaining(['db.operation.name', 'db.system.name']));
    }

    // The event stream: the relay's publish and the consumers continue the trace.
    under(one((s) => s.kind === PRODUCER && s.name === 'publish fhir.internal.patient_identity_requested', 'the publish of the identity request'), server);
    const identityConsumer = one((s) => s.kind === CONSUMER && s.name === 'process identity-fhir-link', 'the identity subgraph consuming it');
    under(identityConsumer, server);
    one((s) => sql.includes(s) && String(s.attributes['db.collection.name']).startsWith('identity_') && descendsFrom(spans, s, identityConsumer), 'identity SQL under its consumer');
    under(one((s) => s.kind === CONSUMER && s.name === 'process fhir-identity-link', 'the FHIR subgraph consuming the link'), identityConsumer);

    // The webhook delivery: its attempt is a span of the trace, and the receiver got its traceparent.
    const attempt = one((s) => s.kind === CLIENT && s.name === 'webhook attempt', 'the webhook attempt');
    under(attempt, server);
    expect(attempt.attributes).toMatchObject({ 'svc.event_type': 'fhir.resource.created', 'svc.webhook.attempt': 1, 'http.response.status_code': 204 });
    expect(attempts.map((h) => h['traceparent'])).toContain(`00-${traceId}-${attempt.spanId}-01`);

    // Nothing of what was sent, nor the credential, in any export; no attribute that could hold it.
    await t.system.stop().catch(() => undefined);
    for (const body of receiver.bodies) {
      expect(body).not.toContain(marker);
      expect(body).not.toContain(token);
      expect(body).not.toContain(t.operatorToken);
    }
    for (const s of receiver.spans) for (const key of FORBIDDEN_ATTRIBUTES) expect(s.attributes[key], `${s.name} ${key}`).toBeUndefined();
  });
});

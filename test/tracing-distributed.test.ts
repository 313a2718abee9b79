import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';
import { startProcess, waitUntilReady, type ServiceProcess } from './support/processes.js';
import { eventually } from './support/patience.js';
import { descendsFrom, OtlpReceiver, type ExportedSpan } from './support/otlp-receiver.js';

const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/**
 * The same traced REST call as tracing.test.ts in the distributed mode: the facade, the gateway
 * and each subgraph in its own process, every one exporting to the test's OTLP/HTTP receiver. The
 * trace crosses the processes through the `traceparent` header (facade → gateway → subgraphs) and
 * through the Redis stream (the envelope carries it to the consumers of other processes).
 */
describe.runIf(USE_POSTGRES)('OpenTelemetry across the processes of the distributed mode', () => {
  const receiver = new OtlpReceiver();
  let storage: TestStorage;
  const services: ServiceProcess[] = [];
  let gateway: ServiceProcess;
  let facade: ServiceProcess;
  const operator = `dist_${randomBytes(18).toString('base64url')}`;
  let token: string;
  const marker = `Zq${randomBytes(6).toString('hex')}`;
  const gql = async <T>(query: string, variables: Record<string, unknown> = {}) => {
    const res = await fetch(`${gateway.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${operator}` }, body: JSON.stringify({ query, variables }) });
    return (await res.json()) as { data?: T; errors?: unknown[] };
  };

  beforeAll(async () => {
    const endpoint = await receiver.start();
    storage = await freshStorage();
    const shared = { ...storage.env, SVC_INTERNAL_SECRET: randomBytes(32).toString('base64url'), SVC_OUTBOX_POLL_MS: '100', SVC_RATE_LIMITS: 'off', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' };
    const subgraphs = await Promise.all(['partner', 'identity', 'fhir', 'pipeline'].map((name) => startProcess(`subgraph:${name}`, name === 'partner' ? { ...shared, SVC_BOOTSTRAP_TOKEN: operator } : shared)));
    services.push(...subgraphs);
    await Promise.all(subgraphs.map((s) => waitUntilReady(s)));
    const urls = Object.fromEntries(subgraphs.map((s) => [`SVC_SUBGRAPH_${s.role.split(':')[1]!.toUpperCase()}_URL`, `${s.url}/graphql`]));
    gateway = await startProcess('gateway', { ...shared, ...urls });
    services.push(gateway);
    await waitUntilReady(gateway);
    facade = await startProcess('facade', { ...shared, SVC_GATEWAY_URL: gateway.internalUrl });
    services.push(facade);
    await waitUntilReady(facade);
    const partner = await gql<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Traced Remote", organizationType: "LABORATORY" }) { gpid } }');
    const created = await gql<{ createApiToken: { secret: string } }>('mutation T($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret } }', {
      i: { partnerGpid: partner.data!.registerPartner.gpid, name: 'traced', scopes: ['cms.fhir.r4.read', 'cms.fhir.rest.write'] },
    });
    token = created.data!.createApiToken.secret;
  }, 600_000);

  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await storage?.dispose();
    await receiver.close();
  });

  it('one trace through facade, gateway and subgraph processes and the Redis stream, without the values sent', async () => {
    const traceId = randomBytes(16).toString('hex');
    const callerSpanId = randomBytes(8).toString('hex');
    const res = await fetch(`${facade.url}/fhir/R4/Patient`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/fhir+json', 'x-svc-source': 'provider', traceparent: `00-${traceId}-${callerSpanId}-01` },
      body: JSON.stringify({ resourceType: 'Patient', name: [{ family: `${marker}family`, given: [`${marker}given`] }], birthDate: '1971-03-09' }),
    });
    expect(res.status).toBe(201);

    // Each process exports on its own: the whole chain is checked again until every part has arrived.
    await eventually(async () => {
      const spans = receiver.trace(traceId);
      const one = (predicate: (s: ExportedSpan) => boolean, what: string) => {
        const found = spans.filter(predicate);
        expect(found.length, `${what} in ${spans.map((s) => `${s.service}:${s.name}`).join(', ')}`).toBeGreaterThan(0);
        return found[0]!;
      };
      const under = (child: ExportedSpan, parent: ExportedSpan) => expect(descendsFrom(spans, child, parent), `${child.name} under ${parent.name}`).toBe(true);

      const facadeServer = one((s) => s.service === 'health-partner-facade' && s.kind === SERVER && s.parentSpanId === callerSpanId, "the facade's server span");
      const gatewayServer = one((s) => s.service === 'health-partner-gateway' && s.kind === SERVER && s.name === 'POST /graphql', "the gateway's server span");
      under(gatewayServer, facadeServer);
      const request = one((s) => s.service === 'health-partner-gateway' && s.name === 'gateway.request', 'the gateway operation');
      under(request, gatewayServer);
      under(one((s) => s.name === 'gateway.plan', 'query planning'), request);
      const fhirFetch = one((s) => s.name === 'subgraph fhir' && s.kind === CLIENT, 'the FHIR subgraph fetch');
      under(fhirFetch, request);
      const fhirServer = one((s) => s.service === 'health-partner-subgraph-fhir' && s.kind === SERVER && s.parentSpanId === fhirFetch.spanId, "the FHIR subgraph's server span, the child of the gateway's fetch");
      under(one((s) => s.service === 'health-partner-subgraph-fhir' && s.attributes['db.system.name'] === 'postgresql' && s.attributes['db.operation.name'] === 'insert', 'a FHIR insert'), fhirServer);
      // The token's lookup: facade → gateway's internal listener → partner subgraph process.
      const partnerServer = one((s) => s.service === 'health-partner-subgraph-partner' && s.kind === SERVER, "the partner subgraph's server span");
      under(partnerServer, facadeServer);
      under(one((s) => s.service === 'health-partner-subgraph-partner' && String(s.attributes['db.collection.name']).startsWith('partner_'), 'a partner statement'), partnerServer);

      under(one((s) => s.kind === PRODUCER && s.name === 'publish fhir.internal.patient_identity_requested', 'the publish'), fhirServer);
      const identityConsumer = one((s) => s.service === 'health-partner-subgraph-identity' && s.kind === CONSUMER && s.name === 'process identity-fhir-link', 'the identity process consuming it');
      under(identityConsumer, facadeServer);
      under(one((s) => s.service === 'health-partner-subgraph-fhir' && s.kind === CONSUMER && s.name === 'process fhir-identity-link', 'the FHIR process consuming the link'), identityConsumer);

    });

    for (const body of receiver.bodies) {
      expect(body).not.toContain(marker);
      expect(body).not.toContain(token);
      expect(body).not.toContain(operator);
    }
  });
});

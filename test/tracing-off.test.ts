import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, propagation, trace } from '@opentelemetry/api';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventually } from './support/patience.js';
import { OtlpReceiver } from './support/otlp-receiver.js';

/**
 * Tracing off (the default, and whenever OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none): no
 * SDK is registered, so the OpenTelemetry API stays its no-op self (no span records, no header is
 * written), and a collector named by the OTLP variables receives nothing, even after the stop that
 * would flush an SDK's buffer.
 */
describe('OpenTelemetry off: nothing recorded, nothing exported', () => {
  const receiver = new OtlpReceiver();
  let t: TestSystem;
  let token: string;

  beforeAll(async () => {
    const endpoint = await receiver.start();
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', OTEL_SDK_DISABLED: 'true', OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_BSP_SCHEDULE_DELAY: '100' });
    token = await apiToken(t, await registerPartner(t, 'Untraced Clinic'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  });
  afterAll(async () => {
    await t?.close();
    await receiver.close();
  });

  it('serves the same call with a caller traceparent, exports no span and registers no SDK', async () => {
    expect(t.config.tracing).toBeNull();
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const created = await fhir(t, token, 'POST', '/Patient', { resourceType: 'Patient', name: [{ family: 'Untraced' }], birthDate: '1970-01-01' }, { 'x-svc-source': 'provider', traceparent });
    expect(created.statusCode, created.body).toBe(201);
    // The event stream carried the Patient's identity request through (the link arrives).
    await eventually(async () => {
      const p = (await fhir(t, token, 'GET', `/Patient/${created.json().id}`)).json() as { identifier?: { system: string }[] };
      expect(p.identifier?.some((i) => i.system === 'urn:svc:gpid')).toBe(true);
    });
    // The API is the no-op one: spans do not record and the propagator writes nothing.
    expect(trace.getTracer('probe').startSpan('probe').isRecording()).toBe(false);
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpanContext(context.active(), { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331', traceFlags: 1 }), carrier);
    expect(carrier).toEqual({});
    await t.system.stop();
    expect(receiver.bodies).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';

const tracing = (env: Record<string, string>) => loadConfig(env, '/tmp').tracing;

describe('tracing settings (OTEL_*)', () => {
  it('is off by default, with OTEL_SDK_DISABLED=true and with OTEL_TRACES_EXPORTER=none', () => {
    expect(tracing({})).toBeNull();
    expect(tracing({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeNull();
    expect(tracing({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBeNull();
    // Sampling alone switches nothing on.
    expect(tracing({ OTEL_TRACES_SAMPLER: 'always_on' })).toBeNull();
  });

  it('is on with OTEL_TRACES_EXPORTER=otlp or an OTLP endpoint, and finds the traces URL as the specification says', () => {
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })?.endpoint).toBe('http://localhost:4318/v1/traces');
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })?.endpoint).toBe('http://collector:4318/v1/traces');
    expect(tracing({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/custom' })?.endpoint).toBe('https://traces.example/custom');
  });

  it('reads the sampler, the service, resource attributes, collector headers and the batch settings', () => {
    const settings = tracing({
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment.name=staging,team=data%20platform',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      SVC_ROLE: 'gateway',
      SVC_SUBGRAPH_PARTNER_URL: 'http://p/graphql',
      SVC_SUBGRAPH_IDENTITY_URL: 'http://i/graphql',
      SVC_SUBGRAPH_FHIR_URL: 'http://f/graphql',
      SVC_SUBGRAPH_PIPELINE_URL: 'http://q/graphql',
      SVC_INTERNAL_SECRET: 'x'.repeat(32),
    });
    expect(settings).toMatchObject({
      sampler: 'parentbased_traceidratio',
      samplerRatio: 0.25,
      serviceName: 'health-partner-gateway',
      resourceAttributes: { 'deployment.environment.name': 'staging', team: 'data platform' },
      headers: { 'x-api-key': 'abc' },
      scheduleDelayMs: 200,
    });
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ sampler: 'parentbased_always_on', serviceName: 'health-partner-all' });
    expect(tracing({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SERVICE_NAME: 'edge' })?.serviceName).toBe('edge');
  });

  it('refuses what it cannot honour, naming the variable', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env, '/tmp');
        return [];
      } catch (err) {
        return (err as ConfigError).problems;
      }
    };
    expect(problems({ OTEL_TRACES_EXPORTER: 'zipkin' })).toEqual([expect.stringContaining('OTEL_TRACES_EXPORTER')]);
    expect(problems({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toEqual([expect.stringContaining('OTEL_EXPORTER_OTLP_PROTOCOL')]);
    expect(problems({ OTEL_TRACES_SAMPLER: 'sometimes' })).toEqual([expect.stringContaining('OTEL_TRACES_SAMPLER')]);
    expect(problems({ OTEL_TRACES_SAMPLER_ARG: '2' })).toEqual([expect.stringContaining('OTEL_TRACES_SAMPLER_ARG')]);
    expect(problems({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' })).toEqual([expect.stringContaining('OTEL_EXPORTER_OTLP_ENDPOINT')]);
    expect(problems({ OTEL_SDK_DISABLED: 'maybe' })).toEqual([expect.stringContaining('OTEL_SDK_DISABLED')]);
  });
});

import { context, propagation, trace } from '@opentelemetry/api';
import type { TracingSettings } from './settings.js';
import { setTracingActive, tracingActive } from './spans.js';

/** A started tracing SDK: `shutdown` exports what is buffered and stops; `forceFlush` only exports. */
export interface Tracing {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

let started: { tracing: Tracing; users: number } | null = null;

/**
 * Start the OpenTelemetry SDK when `settings` asks for tracing (null: off, and nothing of the SDK
 * is even loaded: its modules are imported here, on demand). Spans go through a batch processor
 * to an OTLP/HTTP JSON exporter; the W3C Trace Context propagator reads and writes `traceparent`;
 * AsyncLocalStorage carries the active span through a request's async work. A process that starts
 * several systems (tests) shares one SDK; it stops with the last of them.
 */
export async function startTracing(settings: TracingSettings | null): Promise<Tracing | null> {
  if (!settings) return null;
  if (started) {
    started.users += 1;
    return userOf(started);
  }
  const [{ NodeTracerProvider, BatchSpanProcessor, AlwaysOnSampler, AlwaysOffSampler, TraceIdRatioBasedSampler, ParentBasedSampler }, { OTLPTraceExporter }, { W3CTraceContextPropagator }, { defaultResource, resourceFromAttributes }, { ATTR_SERVICE_NAME }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
  ]);
  const root = {
    always_on: () => new AlwaysOnSampler(),
    always_off: () => new AlwaysOffSampler(),
    traceidratio: () => new TraceIdRatioBasedSampler(settings.samplerRatio),
  };
  const sampler = settings.sampler.startsWith('parentbased_')
    ? new ParentBasedSampler({ root: root[settings.sampler.slice('parentbased_'.length) as keyof typeof root]() })
    : root[settings.sampler as keyof typeof root]();
  const exporter = new OTLPTraceExporter({ url: settings.endpoint, headers: { ...settings.headers }, timeoutMillis: settings.exportTimeoutMs });
  const provider = new NodeTracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ ...settings.resourceAttributes, [ATTR_SERVICE_NAME]: settings.serviceName })),
    sampler,
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        scheduledDelayMillis: settings.scheduleDelayMs,
        maxQueueSize: settings.maxQueueSize,
        maxExportBatchSize: settings.maxExportBatchSize,
        exportTimeoutMillis: settings.exportTimeoutMs,
      }),
    ],
  });
  provider.register({ propagator: new W3CTraceContextPropagator() });
  setTracingActive(true);
  const tracing: Tracing = {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      setTracingActive(false);
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
  started = { tracing, users: 1 };
  return userOf(started);
}

function userOf(entry: { tracing: Tracing; users: number }): Tracing {
  let stopped = false;
  return {
    forceFlush: () => entry.tracing.forceFlush(),
    async shutdown() {
      if (stopped) return;
      stopped = true;
      entry.users -= 1;
      if (entry.users > 0) return entry.tracing.forceFlush();
      started = null;
      return entry.tracing.shutdown();
    },
  };
}

export { tracingActive };

import { context, propagation, ProxyTracerProvider, trace, type Tracer, type TracerOptions, type TracerProvider } from '@opentelemetry/api';
import type { TracingSettings } from './settings.js';
import { setTracingActive, tracingActive } from './spans.js';

/** A started tracing SDK: `shutdown` exports what is buffered and stops; `forceFlush` only exports. */
export interface Tracing {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

let started: { tracing: Tracing; users: number } | null = null;

/**
 * The process's global tracer provider, registered once and never replaced: libraries keep the
 * tracer they got at load (`@apollo/gateway` does, at import), and the API's own proxy would keep
 * pointing them at the first SDK even after it stopped. Each tracer here asks for the current
 * SDK's tracer at every span, so an SDK started later in the same process (tests boot several
 * systems) gets every library's spans; with none started, spans are the API's no-op ones.
 */
class SwitchableTracerProvider implements TracerProvider {
  current: TracerProvider | null = null;
  private readonly idle = new ProxyTracerProvider();

  getTracer(name: string, version?: string, options?: TracerOptions): Tracer {
    const now = (): Tracer => (this.current ?? this.idle).getTracer(name, version, options);
    const startActiveSpan = (...args: unknown[]): unknown => {
      const tracer = now();
      return (tracer.startActiveSpan as (...a: unknown[]) => unknown).apply(tracer, args);
    };
    return {
      startSpan: (spanName, spanOptions, ctx) => now().startSpan(spanName, spanOptions, ctx),
      startActiveSpan: startActiveSpan as Tracer['startActiveSpan'],
    };
  }
}

let processProvider: SwitchableTracerProvider | null = null;

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
  const [{ NodeTracerProvider, BatchSpanProcessor, AlwaysOnSampler, AlwaysOffSampler, TraceIdRatioBasedSampler, ParentBasedSampler }, { OTLPTraceExporter }, { W3CTraceContextPropagator }, { defaultResource, resourceFromAttributes }, { ATTR_SERVICE_NAME }, { AsyncLocalStorageContextManager }] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/core'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
    import('@opentelemetry/context-async-hooks'),
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
  if (!processProvider) {
    processProvider = new SwitchableTracerProvider();
    trace.setGlobalTracerProvider(processProvider);
  }
  processProvider.current = provider;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  setTracingActive(true);
  const tracing: Tracing = {
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      setTracingActive(false);
      if (processProvider) processProvider.current = null;
      await provider.shutdown();
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

import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';

/**
 * The few calls every traced seam makes, on the OpenTelemetry API only. While tracing is off (no
 * SDK started, see sdk.ts) each one returns at its first line: no span object, no context switch,
 * no header written.
 *
 * Attributes policy: operation names, route templates and ids, subgraph names, event types, the
 * database system, a statement's operation and table, HTTP methods and status codes. Never
 * variables, parameter values, bodies, query strings, tokens or health data, and never an error's
 * message (a driver's message quotes the values of the statement): a failed span carries the
 * error's class name only.
 */
let active = false;

/** Whether spans are being made (the SDK of sdk.ts is started in this process). */
export function tracingActive(): boolean {
  return active;
}

/** Only sdk.ts switches it. */
export function setTracingActive(on: boolean): void {
  active = on;
}

export { SpanKind, SpanStatusCode };
export type { Attributes, Context, Span };

const tracer = () => trace.getTracer('health-partner-platform');

/** Mark a span failed with the error's class name, nothing of its message. */
export function failSpan(span: Span, err: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', err instanceof Error ? err.name : typeof err);
}

/**
 * Run `work` inside a new span (a child of `parent`, by default of the active span), ended when
 * the work settles. With tracing off, just `work()`.
 */
export async function inSpan<T>(name: string, options: { kind?: SpanKind; attributes?: Attributes; parent?: Context; links?: Link[] }, work: (span?: Span) => Promise<T> | T): Promise<T> {
  if (!active) return work();
  const parent = options.parent ?? context.active();
  const span = tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}), ...(options.links ? { links: options.links } : {}) }, parent);
  try {
    return await context.with(trace.setSpan(parent, span), () => work(span));
  } catch (err) {
    failSpan(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Run `work` inside a new span that continues a stored `traceparent` (a durable job's, an event's):
 * the span is a child of the span it names, or a root span when there is none. With tracing off,
 * just `work()` (the traceparent is not even read).
 */
export async function inStoredTrace<T>(traceparent: string | null | undefined, name: string, options: { kind?: SpanKind; attributes?: Attributes }, work: (span?: Span) => Promise<T> | T): Promise<T> {
  if (!active) return work();
  return inSpan(name, { ...options, parent: contextFromTraceparent(traceparent) }, work);
}

/** Start a span that the caller ends (for work whose end is seen by a callback or a hook). */
export function startSpan(name: string, options: { kind?: SpanKind; attributes?: Attributes; parent?: Context }): Span | undefined {
  if (!active) return undefined;
  return tracer().startSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) }, options.parent ?? context.active());
}

/** The active context with `span` as its current span. */
export function contextWithSpan(parent: Context, span: Span): Context {
  return trace.setSpan(parent, span);
}

/** Run `work` with `ctx` active. */
export function withContext<T>(ctx: Context, work: () => T): T {
  return context.with(ctx, work);
}

/**
 * Run `work` outside any trace: for background loops that a request only wakes (the outbox relay,
 * the stream's consumers), so that their later sweeps are not counted in that request's trace.
 */
export function detached<T>(work: () => T): T {
  return active ? context.with(ROOT_CONTEXT, work) : work();
}

/** Write the active trace context into outgoing headers (`traceparent`, W3C Trace Context). */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (active) propagation.inject(context.active(), headers);
}

/** The trace context a caller sent in its headers (`traceparent`, `tracestate`), or the root context. */
export function contextFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>>): Context {
  return propagation.extract(ROOT_CONTEXT, headers);
}

/** The active span's `traceparent`, to store beside work that continues elsewhere (an event, a delivery). */
export function currentTraceparent(): string | undefined {
  if (!active) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier['traceparent'];
}

/** The context a stored `traceparent` names (the root context when there is none). */
export function contextFromTraceparent(traceparent: string | null | undefined): Context {
  return traceparent ? propagation.extract(ROOT_CONTEXT, { traceparent }) : ROOT_CONTEXT;
}

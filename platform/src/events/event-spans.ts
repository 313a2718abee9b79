import { trace, type Link } from '@opentelemetry/api';
import type { EventEnvelope } from './envelope.js';
import { contextFromTraceparent, inSpan, SpanKind, tracingActive } from '../tracing/spans.js';

/**
 * Spans of the event stream, in the trace of the work that made each event (its envelope's
 * `traceparent`): the relay's append of an event (`publish <type>`, producer) and a consumer's
 * handling (`process <consumer>`, consumer; a batch handler's span is the child of its first
 * event's trace and links the others). Attributes: the event type, the outbox owner or consumer
 * name; never the event's data or partner.
 */
export async function publishSpan<T>(events: readonly EventEnvelope[], owner: string, append: () => Promise<T>): Promise<T> {
  if (!tracingActive()) return append();
  const spans = events
    .filter((e) => e.traceparent)
    .map((e) =>
      trace.getTracer('health-partner-platform').startSpan(
        `publish ${e.type}`,
        { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'svc-events', 'messaging.operation.name': 'publish', 'messaging.destination.name': owner, 'svc.event_type': e.type } },
        contextFromTraceparent(e.traceparent),
      ),
    );
  try {
    return await append();
  } finally {
    for (const span of spans) span.end();
  }
}

export function consumeSpan<T>(consumer: string, events: readonly EventEnvelope[], handle: () => Promise<T> | T): Promise<T> {
  if (!tracingActive()) return Promise.resolve(handle());
  const [first, ...rest] = events;
  const links: Link[] = rest.flatMap((e) => {
    const context = e.traceparent ? trace.getSpanContext(contextFromTraceparent(e.traceparent)) : undefined;
    return context ? [{ context }] : [];
  });
  return inSpan(
    `process ${consumer}`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextFromTraceparent(first?.traceparent),
      links,
      attributes: { 'messaging.system': 'svc-events', 'messaging.operation.name': 'process', 'messaging.consumer.group.name': consumer, 'messaging.batch.message_count': events.length, ...(events.length === 1 && first ? { 'svc.event_type': first.type } : {}) },
    },
    handle,
  );
}

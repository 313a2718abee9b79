import { newId } from '../ids.js';
import { currentTraceparent } from '../tracing/spans.js';

/** One envelope for every event the platform emits, on the bus, in the outbox and in webhooks. */
export interface EventEnvelope<D extends Record<string, unknown> = Record<string, unknown>> {
  /** evt_… — consumers deduplicate by it. */
  id: string;
  /** Dotted name, versioned where stated (identity.merged.v1). */
  type: string;
  /** ISO 8601 UTC. */
  occurred_at: string;
  partner_gpid: string | null;
  data: D;
  /**
   * The W3C `traceparent` of the work that made the event, when tracing is on: its consumers'
   * spans continue that trace. Internal: webhooks, the event log and subscriptions name the
   * fields they show and never this one.
   */
  traceparent?: string;
}

export function makeEvent<D extends Record<string, unknown>>(type: string, partnerGpid: string | null, data: D, at: Date = new Date()): EventEnvelope<D> {
  const traceparent = currentTraceparent();
  return { id: newId('evt'), type, occurred_at: at.toISOString(), partner_gpid: partnerGpid, data, ...(traceparent ? { traceparent } : {}) };
}

export function isEventEnvelope(value: unknown): value is EventEnvelope {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v['id'] === 'string' &&
    typeof v['type'] === 'string' &&
    typeof v['occurred_at'] === 'string' &&
    (v['partner_gpid'] === null || typeof v['partner_gpid'] === 'string') &&
    typeof v['data'] === 'object' &&
    v['data'] !== null
  );
}

/**
 * Internal events carry work from one subgraph to another (for example a FHIR Patient's
 * demographics to the identity registry) and are no one's business outside the platform. Their
 * type has `internal` as its second segment (`fhir.internal.patient_identity_requested`,
 * `identity.internal.fhir_patient_linked`). They travel through the outbox and the bus like every
 * event, but are **never stored in the event log, never delivered to webhooks and never sent to
 * GraphQL subscriptions**: every consumer that faces partners skips them with this predicate.
 */
export function isInternalEventType(type: string): boolean {
  return /^[a-z][a-z0-9_]*\.internal\./.test(type);
}

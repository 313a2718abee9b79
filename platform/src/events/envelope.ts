import { newId } from '../ids.js';

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
}

export function makeEvent<D extends Record<string, unknown>>(type: string, partnerGpid: string | null, data: D, at: Date = new Date()): EventEnvelope<D> {
  return { id: newId('evt'), type, occurred_at: at.toISOString(), partner_gpid: partnerGpid, data };
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

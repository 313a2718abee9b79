/**
 * The platform's event types that partners can subscribe webhooks to (and that subscriptions and
 * the event log carry). Producers name new types here; the webhook endpoint API validates event
 * filters against this list, and the portal's /webhooks page reads it through GraphQL.
 *
 * Payloads carry the event's name in `data.event`. `status: 'planned'` marks names fixed before
 * their producer exists (the TEFCA exchange events), so partners can subscribe ahead of go-live.
 */
export interface EventTypeInfo {
  type: string;
  category: 'pipeline' | 'partner' | 'identity' | 'fhir' | 'tefca' | 'webhook';
  description: string;
  status: 'emitted' | 'planned';
}

const e = (type: string, category: EventTypeInfo['category'], description: string, status: EventTypeInfo['status'] = 'emitted'): EventTypeInfo =>
  Object.freeze({ type, category, description, status });

export const WEBHOOK_EVENT_TYPES: readonly EventTypeInfo[] = Object.freeze([
  e('pipeline.sync.completed', 'pipeline', 'A FHIR or batch sync job finished successfully.'),
  e('pipeline.sync.failed', 'pipeline', 'A sync job failed after its retries.'),
  e('partner.token.revoked', 'partner', 'An API token or OAuth client was revoked; rotate credentials.'),
  e('partner.scopes.updated', 'partner', "An operator changed the partner's granted scopes."),
  e('partner.baa.signed', 'partner', 'A BAA was e-signed.'),
  e('partner.certification.submitted', 'partner', 'A certification checklist was submitted.'),
  e('identity.matched', 'identity', 'A GPID match completed for a subject.'),
  e('identity.resolved', 'identity', 'An identity was resolved to a GPID.'),
  e('identity.merged.v1', 'identity', 'Two GPID records were merged into a golden record (audit event).'),
  e('identity.split.v1', 'identity', 'A GPID record was split (audit event).'),
  e('identity.status.changed', 'identity', 'A GPID record changed state.'),
  e('fhir.resource.created', 'fhir', 'A FHIR resource was created.'),
  e('fhir.resource.updated', 'fhir', 'A FHIR resource was updated.'),
  e('fhir.bundle.processed', 'fhir', 'A FHIR batch or transaction bundle was processed.'),
  e('tefca.xcpd.query.completed', 'tefca', 'An outbound TEFCA patient discovery (XCPD, ITI-55) completed.', 'planned'),
  e('tefca.xcpd.query.failed', 'tefca', 'An outbound TEFCA patient discovery failed or was refused.', 'planned'),
  e('tefca.xcpd.discovery.received', 'tefca', 'An inbound TEFCA patient discovery request was answered.', 'planned'),
  e('tefca.xca.query.completed', 'tefca', 'An outbound TEFCA document query (XCA, ITI-38) completed.', 'planned'),
  e('tefca.xca.query.failed', 'tefca', 'An outbound TEFCA document query failed or was refused.', 'planned'),
  e('tefca.xca.query.received', 'tefca', 'An inbound TEFCA document query was answered.', 'planned'),
  e('tefca.xca.retrieve.completed', 'tefca', 'A TEFCA document retrieve (ITI-39) completed.', 'planned'),
  e('tefca.xca.retrieve.failed', 'tefca', 'A TEFCA document retrieve failed or was refused.', 'planned'),
  e('tefca.exchange.refused', 'tefca', 'A TEFCA exchange was refused (purpose of use, scope or policy).', 'planned'),
  e('webhook.endpoint.disabled', 'webhook', 'A webhook endpoint was disabled (persistent failure, or 410 Gone from the receiver).'),
  e('webhook.test_ping.verified', 'webhook', 'A receiver accepted a signed test.ping and refused an unsigned probe.'),
]);

const KNOWN = new Set(WEBHOOK_EVENT_TYPES.map((t) => t.type));

/** True for a known type name. */
export function isWebhookEventType(type: string): boolean {
  return KNOWN.has(type);
}

/**
 * Whether an event type matches a filter entry: an exact name, `*` (everything), or a prefix
 * wildcard ending in `.*` (`tefca.*`, `tefca.xcpd.*`).
 */
export function eventTypeMatches(filter: string, type: string): boolean {
  if (filter === '*') return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return filter === type;
}

/** Why a filter entry is refused, or null when it names at least one known type. */
export function eventFilterProblem(filter: string): string | null {
  if (!/^(\*|[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\.\*)?)$/.test(filter)) return 'must be an event type (pipeline.sync.completed), a prefix wildcard (tefca.*) or *';
  if (!WEBHOOK_EVENT_TYPES.some((t) => eventTypeMatches(filter, t.type))) return 'names no known event type';
  return null;
}

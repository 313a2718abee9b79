/**
 * The one catalog of the platform's public event types: what GraphQL subscriptions, webhooks and
 * the portal's /webhooks page offer. The gateway generates one subscription root field per entry
 * (`pipeline.sync.completed` → `pipelineSyncCompleted`); webhook filters are validated against it.
 *
 * - `scope`: what a subscriber needs to receive the type (null: every credential of the partner).
 * - `status: 'planned'` marks names fixed before their producer exists, so partners can subscribe ahead
 *   of go-live (none today). The `tefca.*` events carry the exchange record of
 *   platform/src/tefca/exchange.ts (ids, codes, counts, timings; never health data).
 * - Each event is listed once, under the spec's name where the spec names it (`identity.match`,
 *   `identity.merge`). `identity.matched`, which the catalog once listed beside `identity.match` although
 *   nothing ever emitted it, is kept only as a filter alias (see `EVENT_TYPE_ALIASES`).
 *
 * Payloads carry the event's name in `data.event`. Internal hand-offs between subgraphs
 * (`<area>.internal.*`, see envelope.ts) are never in this catalog.
 */
export interface EventTypeInfo {
  type: string;
  category: 'pipeline' | 'partner' | 'identity' | 'fhir' | 'tefca' | 'webhook';
  description: string;
  status: 'emitted' | 'planned';
  scope: string | null;
}

const e = (type: string, category: EventTypeInfo['category'], scope: string | null, description: string, status: EventTypeInfo['status'] = 'emitted'): EventTypeInfo =>
  Object.freeze({ type, category, description, status, scope });

export const EVENT_TYPES: readonly EventTypeInfo[] = Object.freeze([
  e('pipeline.sync.completed', 'pipeline', 'cms.pipeline.read', 'A FHIR or batch sync job finished successfully.'),
  e('pipeline.sync.failed', 'pipeline', 'cms.pipeline.read', 'A sync job failed after its retries.'),
  // Every credential of the partner may learn that one of its credentials was revoked: the
  // integrations that must rotate are exactly the ones holding credentials, whatever their scopes.
  e('partner.token.revoked', 'partner', null, 'An API token or OAuth client was revoked; rotate credentials.'),
  e('partner.scopes.updated', 'partner', null, "An operator changed the partner's granted scopes."),
  e('partner.baa.signed', 'partner', null, 'A BAA was e-signed.'),
  e('partner.certification.submitted', 'partner', null, 'A certification checklist was submitted.'),
  e('identity.match', 'identity', 'identity.read', 'A GPID match or merge completed for a subject.'),
  e('identity.merge', 'identity', 'identity.read', 'Two GPID records were merged into a golden record (once the merge is approved; identity.merged.v1 is its immutable audit record).'),
  e('identity.resolved', 'identity', 'identity.read', 'An identity was resolved to a GPID.'),
  e('identity.merged.v1', 'identity', 'identity.read', 'Two GPID records were merged into a golden record (audit event, immutable).'),
  e('identity.split.v1', 'identity', 'identity.read', 'A GPID record was split (audit event, immutable).'),
  e('identity.status.changed', 'identity', 'identity.read', 'A GPID record changed state.'),
  e('fhir.resource.created', 'fhir', 'cms.fhir.r4.read', 'A FHIR resource was created.'),
  e('fhir.resource.updated', 'fhir', 'cms.fhir.r4.read', 'A FHIR resource was updated.'),
  e('fhir.resource.deleted', 'fhir', 'cms.fhir.r4.read', 'A FHIR resource was deleted.'),
  e('tefca.xcpd.query.completed', 'tefca', null, 'An outbound TEFCA patient discovery (XCPD, ITI-55) completed.'),
  e('tefca.xcpd.query.failed', 'tefca', null, 'An outbound TEFCA patient discovery got no answer from any peer community (each named in data.communities).'),
  e('tefca.xcpd.discovery.received', 'tefca', null, 'An inbound TEFCA patient discovery request was answered.'),
  e('tefca.xca.query.completed', 'tefca', null, 'An outbound TEFCA document query (XCA, ITI-38) completed.'),
  e('tefca.xca.query.failed', 'tefca', null, 'An outbound TEFCA document query got no answer from any peer community.'),
  e('tefca.xca.query.received', 'tefca', null, 'An inbound TEFCA document query was answered.'),
  e('tefca.xca.retrieve.completed', 'tefca', null, 'A TEFCA document retrieve (ITI-39), inbound or outbound (data.direction), completed.'),
  e('tefca.xca.retrieve.failed', 'tefca', null, 'A TEFCA document retrieve failed: unknown document, or the peer community did not answer.'),
  e('tefca.exchange.refused', 'tefca', null, 'A TEFCA exchange was refused: missing or unknown purpose of use, or an invalid request.'),
  e('webhook.endpoint.disabled', 'webhook', null, 'A webhook endpoint was disabled (persistent failure, 410 Gone from the receiver, or by its partner).'),
  e('webhook.test_ping.verified', 'webhook', null, 'A receiver accepted a signed test.ping (2xx) and refused the same body signed with a wrong key (4xx): it verifies signatures.'),
]);

/**
 * Old names a webhook filter may still hold, and the catalog name each stands for. `identity.matched`
 * was listed by the catalog (webhookEventTypes, the portal) next to the spec's `identity.match`, which
 * is the name the identity subgraph has always emitted; a filter saved with it is read as
 * `identity.match`, and a new or edited filter is stored under the spec's name.
 */
export const EVENT_TYPE_ALIASES: Readonly<Record<string, string>> = Object.freeze({ 'identity.matched': 'identity.match' });

/** A filter entry under its catalog name (an alias is replaced; everything else is unchanged). */
export function canonicalEventFilter(filter: string): string {
  return EVENT_TYPE_ALIASES[filter] ?? filter;
}

/** Webhooks offer the whole catalog. */
export const WEBHOOK_EVENT_TYPES = EVENT_TYPES;

const KNOWN = new Set(EVENT_TYPES.map((t) => t.type));

/** True for a known type name. */
export function isWebhookEventType(type: string): boolean {
  return KNOWN.has(type);
}

/** `pipeline.sync.completed` → `pipelineSyncCompleted`; `identity.merged.v1` → `identityMergedV1`. */
export function subscriptionFieldName(type: string): string {
  return type
    .split(/[._]/)
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

/** The scope that receiving events of `type` needs, or null when none (outside the catalog, or open to every credential of the partner). */
export function eventTypeScope(type: string): string | null {
  return EVENT_TYPES.find((t) => t.type === type)?.scope ?? null;
}

/**
 * Whether an event type matches a filter entry: an exact name, `*` (everything), or a prefix
 * wildcard ending in `.*` (`tefca.*`, `tefca.xcpd.*`).
 */
export function eventTypeMatches(entry: string, type: string): boolean {
  const filter = canonicalEventFilter(entry);
  if (filter === '*') return true;
  if (filter.endsWith('.*')) return type.startsWith(filter.slice(0, -1));
  return filter === type;
}

/** Why a filter entry is refused, or null when it names at least one known type. */
export function eventFilterProblem(entry: string): string | null {
  const filter = canonicalEventFilter(entry);
  if (!/^(\*|[a-z][a-z0-9_]*(\.[a-z0-9_]+)*(\.\*)?)$/.test(filter)) return 'must be an event type (pipeline.sync.completed), a prefix wildcard (tefca.*) or *';
  if (!EVENT_TYPES.some((t) => eventTypeMatches(filter, t.type))) return 'names no known event type';
  return null;
}

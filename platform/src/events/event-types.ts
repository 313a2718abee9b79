/**
 * The event types of the spec's event table (plus the identity audit events), with the scope a
 * subscriber needs to receive each. The gateway generates one subscription root field per entry
 * (`pipeline.sync.completed` → `pipelineSyncCompleted`); webhooks filter on the same names.
 */
export const EVENT_TYPES = [
  { type: 'pipeline.sync.completed', scope: 'cms.pipeline.read', description: 'A FHIR or batch sync job finished successfully.' },
  { type: 'pipeline.sync.failed', scope: 'cms.pipeline.read', description: 'A sync job failed after retries.' },
  // Every credential of the partner may learn that one of its credentials was revoked: the
  // integrations that must rotate are exactly the ones holding credentials, whatever their scopes.
  { type: 'partner.token.revoked', scope: null, description: 'An API key or OAuth client was revoked; rotate credentials.' },
  { type: 'identity.match', scope: 'identity.read', description: 'A GPID match or merge completed for a subject.' },
  { type: 'identity.merge', scope: 'identity.read', description: 'Two GPID records were merged into a golden record.' },
  { type: 'identity.merged.v1', scope: 'identity.read', description: 'Audit: GPIDs were merged (immutable).' },
  { type: 'identity.split.v1', scope: 'identity.read', description: 'Audit: a GPID was split (immutable).' },
] as const satisfies readonly { type: string; scope: string | null; description: string }[];

export type EventTypeName = (typeof EVENT_TYPES)[number]['type'];

/** `pipeline.sync.completed` → `pipelineSyncCompleted`; `identity.merged.v1` → `identityMergedV1`. */
export function subscriptionFieldName(type: string): string {
  return type
    .split(/[._]/)
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');
}

/** The scope that receiving events of `type` needs, or null when none (outside the catalog, or open to every credential of the partner). */
export function eventTypeScope(type: string): string | null {
  return EVENT_TYPES.find((e) => e.type === type)?.scope ?? null;
}

import { isSourceOrigin, type EventEnvelope } from '@svc/platform';

/**
 * Which bus events are evidence for which certification items. Producers in other subgraphs emit
 * these events; the partner subgraph records the evidence idempotently by event id. The table is
 * documented in this folder's README so producers know the names and fields to send.
 */

/** Write events that must carry the GPID boundary headers; `data.source` is the X-Svc-Source sent. */
export const BOUNDARY_WRITE_EVENTS = [
  'identity.boundary_headers.observed',
  'identity.resolved',
  'identity.merged.v1',
  'identity.split.v1',
  'fhir.resource.created',
  'fhir.resource.updated',
  'fhir.bundle.processed',
] as const;

/**
 * The FHIR subgraph's exact count of a partner's successful reads (per credential) over about a
 * second, whatever `SVC_FHIR_READ_EVENTS` does with the `fhir.resource.read` audit events: the read
 * evidence counts these, not the audit events (which may be batched, sampled or off).
 */
export const READS_COUNTED = 'fhir.internal.reads_counted';

/** One evidence record an event yields. */
export interface EvidenceObservation {
  item_id: string;
  detail: string;
  /** Observations it stands for, added to the partner's one row of the item (reads); absent: evidence kept once. */
  count?: number;
}

/** Every event type the rules read, for documentation and for a cheap pre-filter. */
export const EVIDENCE_EVENT_TYPES: readonly string[] = [
  'partner.credential.used',
  READS_COUNTED,
  'identity.match',
  'webhook.test_ping.verified',
  ...BOUNDARY_WRITE_EVENTS,
];

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() !== '' ? value.trim().slice(0, 120) : null);

function isSuccessStatus(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'number' && value >= 200 && value < 300);
}

/**
 * The certification evidence an event carries (often none). Events without a partner are never
 * evidence. Status fields, when present, must be 2xx: a refused request proves nothing.
 */
export function evidenceFromEvent(event: EventEnvelope): EvidenceObservation[] {
  if (event.partner_gpid === null) return [];
  const data = event.data;
  const requestRef = text(data['request_id']) ?? event.id;
  switch (event.type) {
    case 'partner.credential.used':
      return isSuccessStatus(data['status'])
        ? [{ item_id: 'sandbox_first_authenticated_call', detail: `Authenticated request ${requestRef} with ${text(data['token_id']) ?? text(data['client_id']) ?? 'a partner credential'}.` }]
        : [];
    case READS_COUNTED: {
      const count = data['count'];
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1) return [];
      const last = text(data['last_request_id']) ?? requestRef;
      const first = text(data['first_request_id']) ?? requestRef;
      const read = { item_id: 'fhir_r4_sandbox_read', count, detail: `FHIR R4 reads, latest ${last}.` };
      // Reads made with a partner credential (the FHIR subgraph names it) are also authenticated calls.
      const credential = text(data['credential_id']);
      return credential ? [read, { item_id: 'sandbox_first_authenticated_call', detail: `Authenticated request ${first} with ${credential}.` }] : [read];
    }
    case 'identity.match':
      return [{ item_id: 'identity_sandbox_match', detail: `Identity match ${requestRef}.` }];
    case 'webhook.test_ping.verified':
      return isSuccessStatus(data['status'])
        ? [{ item_id: 'webhook_signature_verification', detail: `test.ping ${text(data['delivery_id']) ?? requestRef} to ${text(data['webhook_id']) ?? 'an endpoint'} accepted signed (${String(data['status'])}), the same body under a wrong signature refused (${String(data['probe_status'] ?? '4xx')}).` }]
        : [];
    default: {
      if (!(BOUNDARY_WRITE_EVENTS as readonly string[]).includes(event.type)) return [];
      const source = data['source'];
      if (!isSourceOrigin(source)) return [];
      return [{ item_id: 'gpid_boundary_headers', detail: `${event.type} with X-Svc-Source: ${source} (${requestRef}).` }];
    }
  }
}

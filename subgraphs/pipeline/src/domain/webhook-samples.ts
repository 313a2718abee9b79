import { EVENT_TYPES } from '@svc/platform';

/**
 * Sample `data` for every event type of the catalog, for "send a sample" on the portal's webhook
 * page and `POST /api/partner/webhooks/{webhook_id}/samples`. A sample has the shape of the real
 * payload (the spec's fields for the spec's five events) with made-up identifiers and no health data:
 * events carry ids, codes, counts and times only, never demographics or resource content.
 */
const at = (now: Date) => now.toISOString();
const SAMPLE_GPID = 'SVC-0A1B2C3D';
const SAMPLE_GPID_2 = 'SVC-4E5F6A7B';

type Sample = (partnerGpid: string, now: Date) => Record<string, unknown>;

const tefca = (kind: string): Sample => (partnerGpid, now) => ({
  exchange_id: 'xch_sample00000000000000000000',
  kind,
  direction: kind.includes('received') ? 'inbound' : 'outbound',
  partner_gpid: partnerGpid,
  purpose_of_use: 'T-TRTMNT',
  responding_community_ids: ['urn:oid:2.999.1'],
  result_count: 1,
  occurred_at: at(now),
});

const SAMPLES: Record<string, Sample> = {
  'pipeline.sync.completed': (partnerGpid, now) => ({ job_id: 'job_sample00000000000000000000', partner_gpid: partnerGpid, resource_types: ['Patient', 'Observation'], records_processed: 42, completed_at: at(now) }),
  'pipeline.sync.failed': (_p, now) => ({ job_id: 'job_sample00000000000000000000', error_code: 'VALIDATION_ERROR', message: 'Entry 3: Observation.status is required.', failed_at: at(now) }),
  'partner.token.revoked': (partnerGpid, now) => ({ token_id: 'tok_sample00000000000000000000', partner_gpid: partnerGpid, revoked_at: at(now), reason: 'rotated' }),
  'partner.scopes.updated': (partnerGpid, now) => ({ partner_gpid: partnerGpid, scopes: ['cms.fhir.r4.read', 'cms.webhooks.manage'], updated_at: at(now) }),
  'partner.baa.signed': (partnerGpid, now) => ({ partner_gpid: partnerGpid, version: 'v2026-03', sha256: '0'.repeat(64), signed_at: at(now) }),
  'partner.certification.submitted': (partnerGpid, now) => ({ partner_gpid: partnerGpid, checklist_id: 'partner_ecosystem', submitted_at: at(now) }),
  'identity.match': () => ({ gpid: SAMPLE_GPID, match_type: 'PARTIAL', identity_status: 'ACTIVE', subject_gpid: SAMPLE_GPID_2 }),
  'identity.merge': (_p, now) => ({ survivor_gpid: SAMPLE_GPID, merged_gpids: [SAMPLE_GPID_2], merged_at: at(now) }),
  'identity.resolved': () => ({ gpid: SAMPLE_GPID, match_type: 'DETERMINISTIC', identity_status: 'ACTIVE', created: false }),
  'identity.merged.v1': (_p, now) => ({ survivor_gpid: SAMPLE_GPID, merged_gpids: [SAMPLE_GPID_2], merged_at: at(now) }),
  'identity.split.v1': (_p, now) => ({ source_gpid: SAMPLE_GPID, new_gpids: [SAMPLE_GPID_2], split_at: at(now) }),
  'identity.status.changed': (_p, now) => ({ gpid: SAMPLE_GPID, from: 'PROVISIONAL', to: 'ACTIVE', changed_at: at(now) }),
  'fhir.resource.created': (partnerGpid) => ({ resource_type: 'Observation', resource_id: 'sample-observation-1', version_id: '1', partner_gpid: partnerGpid, source: 'provider', request_id: 'req_sample' }),
  'fhir.resource.updated': (partnerGpid) => ({ resource_type: 'Observation', resource_id: 'sample-observation-1', version_id: '2', partner_gpid: partnerGpid, source: 'provider', request_id: 'req_sample' }),
  'fhir.resource.deleted': (partnerGpid) => ({ resource_type: 'Observation', resource_id: 'sample-observation-1', version_id: '3', partner_gpid: partnerGpid, source: 'provider', request_id: 'req_sample' }),
  'tefca.xcpd.query.completed': tefca('xcpd.query.completed'),
  'tefca.xcpd.query.failed': tefca('xcpd.query.failed'),
  'tefca.xcpd.discovery.received': tefca('xcpd.discovery.received'),
  'tefca.xca.query.completed': tefca('xca.query.completed'),
  'tefca.xca.query.failed': tefca('xca.query.failed'),
  'tefca.xca.query.received': tefca('xca.query.received'),
  'tefca.xca.retrieve.completed': tefca('xca.retrieve.completed'),
  'tefca.xca.retrieve.failed': tefca('xca.retrieve.failed'),
  'tefca.exchange.refused': tefca('exchange.refused'),
  'webhook.endpoint.disabled': (partnerGpid, now) => ({ webhook_id: 'whk_sample00000000000000000000', partner_gpid: partnerGpid, url: 'https://example.org/hooks', reason: 'persistent_failure', delivery_id: null, disabled_at: at(now) }),
  'webhook.test_ping.verified': (partnerGpid, now) => ({ webhook_id: 'whk_sample00000000000000000000', delivery_id: 'dlv_sample00000000000000000000', partner_gpid: partnerGpid, status: 200, probe_status: 401, verified_at: at(now) }),
};

/** Event types that have a sample: the whole catalog (a test keeps them in step). */
export const SAMPLE_EVENT_TYPES: readonly string[] = EVENT_TYPES.map((t) => t.type).filter((t) => t in SAMPLES);

/** The sample `data` of a catalog event type (its `event` field names the type), or null for a type outside the catalog. */
export function sampleEventData(type: string, partnerGpid: string, now: Date): Record<string, unknown> | null {
  const sample = SAMPLES[type];
  if (!sample || !EVENT_TYPES.some((t) => t.type === type)) return null;
  return { event: type, ...sample(partnerGpid, now) };
}

/**
 * The partner certification checklists. Every required item must be complete before production
 * go-live. An item's `evidence` says how it is completed:
 * - `observed`: the platform sees it happen (a request, a delivery, a signature) and records evidence
 *   for the item; a partner's checkbox never completes it.
 * - `attested`: only the partner can know (how its own code behaves), so the partner checks it off.
 *
 * Item ids are stable API values. An id that appears in both checklists names the same fact, so one
 * piece of evidence or one checkbox serves both.
 */

/** How an item is shown to be complete. */
export type EvidenceKind = 'observed' | 'attested';

/** One certification item. */
export interface CertificationItem {
  id: string;
  title: string;
  description: string;
  evidence: EvidenceKind;
  required: boolean;
  /** For observed items: what the platform records as evidence. */
  observation?: string;
}

/** Stable id of a checklist. */
export type CertificationChecklistId = 'partner_ecosystem' | 'identity';

/** A certification checklist. */
export interface CertificationChecklist {
  id: CertificationChecklistId;
  title: string;
  description: string;
  items: readonly CertificationItem[];
}

const SANDBOX_FIRST_CALL: CertificationItem = {
  id: 'sandbox_first_authenticated_call',
  title: 'First authenticated call in sandbox',
  description: 'Make a successful API call to the sandbox with a partner API token or an OAuth access token.',
  evidence: 'observed',
  required: true,
  observation:
    'A sandbox request authenticated with one of the partner\'s API tokens or OAuth access tokens (not a portal session) and answered with a 2xx status: a call to a partner API, or a FHIR read or search.',
};

const LEAST_PRIVILEGE: CertificationItem = {
  id: 'least_privilege_scopes',
  title: 'OAuth client or API key with least-privilege scopes',
  description:
    'Use credentials that carry only the scopes the integration needs; no wildcard scope and no scope that the integration never exercises.',
  evidence: 'observed',
  required: true,
  observation: 'Every scope of the credentials used in sandbox during the last 30 days was exercised by at least one request, and none is a bare wildcard.',
};

const GPID_BOUNDARY_HEADERS: CertificationItem = {
  id: 'gpid_boundary_headers',
  title: 'GPID boundary headers on write paths',
  description: 'Send the GPID boundary headers on every write, with X-Svc-Source set to one of the eight source origins.',
  evidence: 'observed',
  required: true,
  observation: 'Sandbox write requests (FHIR create, update, bundle, identity resolve) carried a valid X-Svc-Source header, and none was refused for lacking it in the last 7 days.',
};

const WEBHOOK_IDEMPOTENCY: CertificationItem = {
  id: 'webhook_idempotency',
  title: 'Webhook idempotency by delivery ID',
  description:
    'Deduplicate webhook deliveries by their delivery ID (the webhook-id header), which stays the same across retries, so a retried delivery is processed once.',
  evidence: 'attested',
  required: true,
};

const BAA_SIGNED: CertificationItem = {
  id: 'baa_signed',
  title: 'Business Associate Agreement signed',
  description: 'An authorized signatory e-signs the HIPAA Business Associate Agreement, version v2026-03, on the portal /legal page.',
  evidence: 'observed',
  required: true,
  observation: 'A BAA e-signature record of version v2026-03 with the SHA-256 of the signed text.',
};

/** The partner ecosystem checklist: 11 required items. */
export const PARTNER_ECOSYSTEM_CHECKLIST: CertificationChecklist = {
  id: 'partner_ecosystem',
  title: 'Partner ecosystem certification',
  description: 'Readiness of an integration with the partner APIs, FHIR R4 and webhooks for production go-live.',
  items: [
    SANDBOX_FIRST_CALL,
    LEAST_PRIVILEGE,
    {
      id: 'fhir_r4_sandbox_read',
      title: 'FHIR R4 read against the sandbox data lake',
      description: 'Search or read FHIR R4 resources from the sandbox data lake with the cms.fhir.r4.read scope.',
      evidence: 'observed',
      required: true,
      observation: 'A sandbox FHIR search or read answered with a 200 status.',
    },
    GPID_BOUNDARY_HEADERS,
    {
      id: 'webhook_signature_verification',
      title: 'Webhook HMAC-SHA256 verification',
      description:
        'Verify the HMAC-SHA256 signature of every webhook delivery over its id, timestamp and raw body before acting on it: accept a valid signature with 2xx, refuse a wrong one with 4xx, and refuse stale timestamps. Check it with "Send test.ping" on the portal\'s Webhooks page.',
      evidence: 'observed',
      required: true,
      observation:
        'A test.ping to a registered endpoint was accepted with 2xx when correctly signed, and the same body sent right after under a wrong signature was refused with 4xx. A 2xx to the ping alone proves the endpoint is reachable, not that it verifies.',
    },
    WEBHOOK_IDEMPOTENCY,
    {
      id: 'credential_rotation',
      title: 'Credential rotation',
      description:
        'Keep tokens and client secrets in a secret store, rotate them without downtime, and replace credentials on a partner.token.revoked event.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'rate_limit_backoff',
      title: 'Rate limit handling',
      description: 'On 429 Too Many Requests, wait for the Retry-After delay and retry with exponential backoff and jitter; never retry in a tight loop.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'deprecation_header_handling',
      title: 'Deprecation header handling',
      description:
        'Log the Deprecation, Sunset and Link rel="successor-version" headers, alert on them, and migrate before the sunset date.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'problem_json_errors',
      title: 'Error handling',
      description:
        'Handle application/problem+json errors by their stable code, show field errors to users, and retry only transient failures (429, 503).',
      evidence: 'attested',
      required: true,
    },
    BAA_SIGNED,
  ],
};

/** The identity checklist: 12 required items. */
export const IDENTITY_CHECKLIST: CertificationChecklist = {
  id: 'identity',
  title: 'Identity resolution certification',
  description: 'Readiness of an integration with GPID match, resolve, merge and split for production go-live.',
  items: [
    {
      id: 'identity_sandbox_match',
      title: 'Identity match in sandbox',
      description: 'Call identity match in the sandbox with demographics (name, date of birth, email, phone) and read the candidates and match type.',
      evidence: 'observed',
      required: true,
      observation: 'A sandbox POST /api/identity/match answered with a 200 status.',
    },
    GPID_BOUNDARY_HEADERS,
    LEAST_PRIVILEGE,
    {
      id: 'match_before_resolve',
      title: 'Match before resolve',
      description: 'Query with match, which creates nothing, and call resolve only when a GPID must be assigned, so test lookups never create records.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'demographics_normalization',
      title: 'Demographics normalization',
      description:
        'Send names as recorded, dates of birth as ISO 8601 dates, lower-case email addresses and E.164 phone numbers, so deterministic matching is reproducible.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'confidence_threshold',
      title: 'Confidence threshold',
      description: 'Link records automatically only above a documented confidence score (0 to 1); send lower-scoring candidates to review.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'partial_and_conflict_handling',
      title: 'PARTIAL and CONFLICT handling',
      description:
        'Treat a PARTIAL match type and PROVISIONAL or CONFLICT identity status as unconfirmed: do not merge local records on them, and queue them for review.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'merged_and_split_records',
      title: 'Merged and split records',
      description:
        'Follow a MERGED record to its survivor GPID, re-link records after a SPLIT, and consume the identity.merged.v1 and identity.split.v1 events.',
      evidence: 'attested',
      required: true,
    },
    {
      id: 'merge_split_approval',
      title: 'Merge and split approvals',
      description:
        'Request merges and splits with a documented reason code, wait for approval before relying on the outcome, and never resubmit them automatically.',
      evidence: 'attested',
      required: true,
    },
    WEBHOOK_IDEMPOTENCY,
    {
      id: 'identity_audit_retention',
      title: 'Audit retention',
      description: 'Keep the partner\'s own log of identity requests and decisions (who, when, which GPIDs, reason) for 7 years, matching the identity audit retention.',
      evidence: 'attested',
      required: true,
    },
    BAA_SIGNED,
  ],
};

/** Both checklists. */
export const CERTIFICATION_CHECKLISTS: readonly CertificationChecklist[] = [PARTNER_ECOSYSTEM_CHECKLIST, IDENTITY_CHECKLIST];

/** The checklist with this id, or `undefined`. */
export function findCertificationChecklist(id: string): CertificationChecklist | undefined {
  return CERTIFICATION_CHECKLISTS.find((checklist) => checklist.id === id);
}

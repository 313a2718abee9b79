/**
 * The documented choices of onboarding step 2 (Integration). Codes are stable API values; labels and
 * descriptions are what the portal and the API reference show.
 */

/** Why the partner wants to exchange data (`use_case`). */
export const USE_CASES = [
  { code: 'care_coordination', label: 'Care coordination', description: 'Sharing clinical data between treating providers, referrals and transitions of care.' },
  { code: 'claims_payment', label: 'Claims and payment', description: 'Eligibility, claim status, claim submission and payment operations.' },
  { code: 'population_health', label: 'Population health', description: 'Panel management, quality measures and care-gap analytics for an attributed population.' },
  { code: 'research', label: 'Research', description: 'IRB-approved research on consented or de-identified data.' },
  { code: 'public_health_reporting', label: 'Public health reporting', description: 'Case reports, immunization and syndromic surveillance to public health authorities.' },
  { code: 'lab_results_delivery', label: 'Laboratory results delivery', description: 'Sending orders and delivering laboratory results to ordering providers.' },
  { code: 'pharmacy_services', label: 'Pharmacy services', description: 'Prescriptions, medication history and dispensing information.' },
  { code: 'patient_access', label: 'Patient access', description: 'Applications that let patients retrieve and share their own records.' },
  { code: 'other', label: 'Other', description: 'Any other purpose; describe it in use_case_description.' },
] as const;

/** Stable code of a use case. */
export type UseCaseCode = (typeof USE_CASES)[number]['code'];

/** What the partner's integration will do with the platform (`capabilities`). */
export const CAPABILITIES = [
  { code: 'fhir_read', label: 'FHIR read and search', description: 'Read and search FHIR R4 resources.' },
  { code: 'fhir_write', label: 'FHIR write', description: 'Create and update individual FHIR R4 resources.' },
  { code: 'bundle_push', label: 'Bundle push', description: 'Submit FHIR transaction and batch bundles.' },
  { code: 'bulk_export', label: 'Bulk export', description: 'Asynchronous FHIR Bulk Data $export (NDJSON).' },
  { code: 'identity_match', label: 'Identity match', description: 'Match demographics against the GPID registry without creating records.' },
  { code: 'identity_resolve', label: 'Identity resolve', description: 'Resolve demographics to an existing GPID or create one.' },
  { code: 'webhooks', label: 'Webhooks', description: 'Receive signed event deliveries (pipeline, token and identity events).' },
  { code: 'tefca_exchange', label: 'TEFCA exchange', description: 'Patient discovery, document query and retrieve through the TEFCA gateway.' },
  { code: 'clearinghouse', label: 'Clearinghouse', description: 'Eligibility (270/271), claim status (276/277) and claim submission (837P).' },
] as const;

/** Stable code of a capability. */
export type CapabilityCode = (typeof CAPABILITIES)[number]['code'];

/**
 * Direction of the data flow, seen from the platform: `inbound` means the partner sends data to the
 * platform, `outbound` that it receives data from it, `bidirectional` both.
 */
export const DATA_DIRECTIONS = [
  { code: 'inbound', label: 'Inbound', description: 'The partner sends data to the platform.' },
  { code: 'outbound', label: 'Outbound', description: 'The partner receives data from the platform.' },
  { code: 'bidirectional', label: 'Bidirectional', description: 'The partner both sends and receives data.' },
] as const;

/** Stable code of a data direction. */
export type DataDirection = (typeof DATA_DIRECTIONS)[number]['code'];

function codeGuard<T extends string>(list: readonly { code: T }[]): (value: unknown) => value is T {
  const codes = new Set<string>(list.map((entry) => entry.code));
  return (value: unknown): value is T => typeof value === 'string' && codes.has(value);
}

/** True when `value` is one of the {@link USE_CASES} codes. */
export const isUseCaseCode: (value: unknown) => value is UseCaseCode = codeGuard(USE_CASES);
/** True when `value` is one of the {@link CAPABILITIES} codes. */
export const isCapabilityCode: (value: unknown) => value is CapabilityCode = codeGuard(CAPABILITIES);
/** True when `value` is one of the {@link DATA_DIRECTIONS} codes. */
export const isDataDirection: (value: unknown) => value is DataDirection = codeGuard(DATA_DIRECTIONS);

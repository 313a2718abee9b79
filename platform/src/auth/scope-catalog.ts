/**
 * Every scope a credential can carry, with what it allows. The spec's OAuth scopes come first; the
 * rest are ours, documented here and in the OpenAPI documents. Dot-notation wildcards (`tefca.*`)
 * and SMART scopes (`system/*.read`) are matched by `scopeSatisfies` in scopes.ts.
 */
export const SCOPE_CATALOG = [
  { scope: 'cms.fhir.r4.read', description: 'Read FHIR R4 resources' },
  { scope: 'cms.fhir.r5.read', description: 'Read FHIR R5 resources' },
  {
    scope: 'cms.fhir.bundle.push',
    description:
      'Push FHIR transaction and batch bundles (POST /fhir/R4, sync jobs). Each entry also needs its own interaction scope: cms.fhir.rest.write to create, update or delete, cms.fhir.r4.read to read or search (system/*.write covers the bundle and its write entries)',
  },
  { scope: 'cms.fhir.rest.write', description: 'Write individual FHIR resources' },
  { scope: 'cms.sdk.read', description: 'Read SDK catalog' },
  { scope: 'cms.partner.read', description: 'Read partner information' },
  { scope: 'cms.partner.write', description: 'Submit partner applications' },
  { scope: 'cms.pipeline.read', description: 'Read pipeline health metrics' },
  { scope: 'cms.tokens.manage', description: "Create, list and revoke the partner's own API tokens and OAuth clients" },
  { scope: 'cms.webhooks.manage', description: "Register, list and remove the partner's webhooks" },
  { scope: 'cms.admin', description: 'Operate the platform: review applications, read and manage every partner' },
  { scope: 'identity.match', description: 'Match demographics against the GPID registry (query only)' },
  { scope: 'identity.resolve', description: 'Resolve demographics to a GPID, creating one when needed' },
  { scope: 'identity.read', description: 'Read identity records' },
  { scope: 'identity.merge', description: 'Request merges of duplicate GPIDs' },
  { scope: 'identity.split', description: 'Request splits of falsely merged GPIDs' },
  { scope: 'identity.approve', description: 'Approve merges and splits requested by another principal' },
  { scope: 'tefca.xcpd.*', description: 'TEFCA patient discovery (XCPD)' },
  { scope: 'tefca.xca.*', description: 'TEFCA document query and retrieve (XCA)' },
  { scope: 'velocity.clearinghouse.*', description: 'Clearinghouse eligibility, claim status and claim submission' },
  { scope: 'pulse.wearables.*', description: 'Pulse wearable ingest: pulse.wearables.ingest sends device readings to POST /pulse/v1/wearables/events' },
  { scope: 'beacon.wearables.*', description: 'Beacon wearable ingest: beacon.wearables.ingest sends device readings to POST /beacon/v1/wearables/events' },
  { scope: 'velocity.clearinghouse.eligibility', description: 'Clearinghouse eligibility and benefit inquiries (X12 270/271)' },
  { scope: 'velocity.clearinghouse.claim-status', description: 'Clearinghouse claim status inquiries (X12 276/277) and reading submitted claims' },
  { scope: 'velocity.clearinghouse.claims', description: 'Clearinghouse professional claim submission (X12 837P) and reading submitted claims' },
  { scope: 'analytics.query', description: "Ask aggregate questions (counts, averages, trends) of the partner's readable FHIR data: read a question into a structured query, then execute it" },
  { scope: 'analytics.score', description: 'Compute clinical risk scores (Charlson Comorbidity Index) of patients the partner may read' },
  { scope: 'patient/Patient.read', description: 'SMART: read Patient resources in a patient context' },
  { scope: 'patient/*.read', description: "SMART: read and search every resource of the patient's compartment (needs a patient context)" },
  { scope: 'patient/*.write', description: "SMART: create, update and delete resources in the patient's compartment (needs a patient context)" },
  { scope: 'system/*.read', description: 'SMART backend services: read every resource type (bulk export)' },
  { scope: 'system/*.write', description: 'SMART backend services: write every resource type (bundle ingest)' },
  { scope: 'system/Patient.read', description: 'SMART backend services: read Patient resources (bulk export)' },
] as const;

/** Granted to the bootstrap operator credential: every scope there is. */
export const ALL_SCOPES = '*';

/** Carried only by the gateway's own calls to subgraphs (credential lookup); never granted to a credential. */
export const INTERNAL_SCOPE = 'svc.internal';

/**
 * The 22 entity types of the identity registry, from `patient` to `service`. Each has a short
 * uppercase code used as TYPE in system GPIDs `{PRD}-{TYPE}-{N}` (for example `LAKE-ORG-42`).
 * Patients additionally have their own GPID form `SVC-XXXXXXXX` (see the platform id helpers).
 *
 * The order is part of the contract (GraphQL enum order, documentation); append new types only
 * after a schema-governance notice.
 */

export interface EntityTypeDefinition {
  /** Stable identifier, snake_case. */
  readonly id: string;
  /** Three-letter code used as TYPE in system GPIDs. Never reuse a retired code. */
  readonly code: string;
  readonly label: string;
  /** The FHIR R4 resource type that usually carries this entity, when there is one. */
  readonly fhirResourceType: string | null;
  readonly description: string;
}

export const ENTITY_TYPES = [
  { id: 'patient', code: 'PAT', label: 'Patient', fhirResourceType: 'Patient', description: 'A person receiving care; golden-record identity.' },
  { id: 'practitioner', code: 'PRA', label: 'Practitioner', fhirResourceType: 'Practitioner', description: 'A clinician or other individual providing care.' },
  { id: 'practitioner_role', code: 'PRR', label: 'Practitioner role', fhirResourceType: 'PractitionerRole', description: 'A practitioner acting for an organization at a location.' },
  { id: 'organization', code: 'ORG', label: 'Organization', fhirResourceType: 'Organization', description: 'A health system, hospital, vendor or other organization.' },
  { id: 'location', code: 'LOC', label: 'Location', fhirResourceType: 'Location', description: 'A physical place where care is delivered.' },
  { id: 'healthcare_service', code: 'HCS', label: 'Healthcare service', fhirResourceType: 'HealthcareService', description: 'A service offered at a location by an organization.' },
  { id: 'endpoint', code: 'END', label: 'Endpoint', fhirResourceType: 'Endpoint', description: 'A technical endpoint for data exchange (FHIR base, XCA gateway, Direct address).' },
  { id: 'device', code: 'DEV', label: 'Device', fhirResourceType: 'Device', description: 'A medical or wearable device.' },
  { id: 'payer', code: 'PAY', label: 'Payer', fhirResourceType: 'Organization', description: 'An insurer or health plan sponsor.' },
  { id: 'plan', code: 'PLN', label: 'Plan', fhirResourceType: 'InsurancePlan', description: 'A benefit plan offered by a payer.' },
  { id: 'coverage', code: 'COV', label: 'Coverage', fhirResourceType: 'Coverage', description: 'A patient enrolment in a plan.' },
  { id: 'encounter', code: 'ENC', label: 'Encounter', fhirResourceType: 'Encounter', description: 'An interaction between a patient and providers.' },
  { id: 'episode_of_care', code: 'EOC', label: 'Episode of care', fhirResourceType: 'EpisodeOfCare', description: 'A period of care for a condition under one responsibility.' },
  { id: 'care_team', code: 'CTM', label: 'Care team', fhirResourceType: 'CareTeam', description: 'The practitioners and organizations caring for a patient.' },
  { id: 'lab', code: 'LAB', label: 'Laboratory', fhirResourceType: 'Organization', description: 'A clinical laboratory.' },
  { id: 'pharmacy', code: 'PHA', label: 'Pharmacy', fhirResourceType: 'Organization', description: 'A dispensing pharmacy.' },
  { id: 'medication', code: 'MED', label: 'Medication', fhirResourceType: 'Medication', description: 'A medication product.' },
  { id: 'specimen', code: 'SPC', label: 'Specimen', fhirResourceType: 'Specimen', description: 'A sample taken for analysis.' },
  { id: 'document', code: 'DOC', label: 'Document', fhirResourceType: 'DocumentReference', description: 'A clinical document (C-CDA, PDF, note).' },
  { id: 'consent', code: 'CNS', label: 'Consent', fhirResourceType: 'Consent', description: 'A patient consent or authorization.' },
  { id: 'program', code: 'PRG', label: 'Program', fhirResourceType: null, description: 'A care-management, research or public-health program.' },
  { id: 'service', code: 'SRV', label: 'Service', fhirResourceType: null, description: 'A platform service or partner integration acting as a system actor.' },
] as const satisfies readonly EntityTypeDefinition[];

export type EntityTypeId = (typeof ENTITY_TYPES)[number]['id'];
export type EntityTypeCode = (typeof ENTITY_TYPES)[number]['code'];

const BY_ID = new Map<string, EntityTypeDefinition>(ENTITY_TYPES.map((t) => [t.id, t]));
const BY_CODE = new Map<string, EntityTypeDefinition>(ENTITY_TYPES.map((t) => [t.code, t]));

export function isEntityTypeId(value: unknown): value is EntityTypeId {
  return typeof value === 'string' && BY_ID.has(value);
}

export function entityTypeById(id: string): EntityTypeDefinition | undefined {
  return BY_ID.get(id);
}

export function entityTypeByCode(code: string): EntityTypeDefinition | undefined {
  return BY_CODE.get(code);
}

/** Product part of a system GPID: 2 to 8 uppercase letters or digits, starting with a letter. */
const PRODUCT_RE = /^[A-Z][A-Z0-9]{1,7}$/;
/** `{PRD}-{TYPE}-{N}`; N is a positive integer without leading zeros. */
const SYSTEM_GPID_RE = /^([A-Z][A-Z0-9]{1,7})-([A-Z]{3})-([1-9][0-9]{0,17})$/;

export interface SystemGpid {
  product: string;
  entityType: EntityTypeId;
  sequence: bigint;
}

/** Formats a system GPID. Throws on an unknown type, a malformed product or a non-positive sequence. */
export function formatSystemGpid(product: string, entityType: EntityTypeId, sequence: number | bigint): string {
  if (!PRODUCT_RE.test(product)) throw new RangeError(`Invalid product code: ${product}`);
  const definition = BY_ID.get(entityType);
  if (!definition) throw new RangeError(`Unknown entity type: ${entityType}`);
  const n = BigInt(sequence);
  if (n < 1n) throw new RangeError('The sequence of a system GPID starts at 1.');
  return `${product}-${definition.code}-${n.toString()}`;
}

/** Parses a system GPID, or returns undefined when the text is not one. */
export function parseSystemGpid(text: string): SystemGpid | undefined {
  const m = SYSTEM_GPID_RE.exec(text);
  if (!m) return undefined;
  const definition = BY_CODE.get(m[2]!);
  if (!definition) return undefined;
  return { product: m[1]!, entityType: definition.id as EntityTypeId, sequence: BigInt(m[3]!) };
}

import { normalizeSpaces } from './input-readers.js';

/**
 * The eight kinds of partner organization (the allowed values of `organization_type`). The code is
 * the stable value stored and exchanged over the API; the label is what the portal shows. Never
 * rename a code: clients switch on it. Labels may be reworded.
 */
export const ORGANIZATION_TYPES = [
  { code: 'HEALTH_SYSTEM', label: 'Health System / Hospital' },
  { code: 'PAYER', label: 'Payer / Health Plan' },
  { code: 'HEALTH_IT_VENDOR', label: 'EHR / Health IT Vendor' },
  { code: 'LABORATORY', label: 'Laboratory' },
  { code: 'PHARMACY', label: 'Pharmacy' },
  { code: 'RESEARCH', label: 'Research / Academic' },
  { code: 'PUBLIC_HEALTH', label: 'Public Health Agency' },
  { code: 'OTHER', label: 'Other Healthcare Organization' },
] as const;

/** One entry of {@link ORGANIZATION_TYPES}. */
export type OrganizationType = (typeof ORGANIZATION_TYPES)[number];

/** Stable code of an organization type, such as `HEALTH_SYSTEM`. */
export type OrganizationTypeCode = OrganizationType['code'];

/** Every organization type code, in display order. */
export const ORGANIZATION_TYPE_CODES: readonly OrganizationTypeCode[] = ORGANIZATION_TYPES.map((type) => type.code);

function comparable(value: string): string {
  // Case, spacing and spacing around the slash do not matter: "health system/hospital" matches.
  return normalizeSpaces(value).replace(/\s*\/\s*/gu, ' / ').toLowerCase();
}

const BY_COMPARABLE = new Map<string, OrganizationType>(
  ORGANIZATION_TYPES.flatMap((type) => [
    [comparable(type.code), type],
    [comparable(type.label), type],
  ]),
);

/**
 * Read an organization type from its code or its label, ignoring case and extra spaces
 * (`HEALTH_SYSTEM`, `health_system` and `Health System / Hospital` are the same type).
 * Returns `undefined` for anything else.
 */
export function parseOrganizationType(value: unknown): OrganizationType | undefined {
  if (typeof value !== 'string') return undefined;
  return BY_COMPARABLE.get(comparable(value));
}

/** True when `value` is exactly one of the stable codes. */
export function isOrganizationTypeCode(value: unknown): value is OrganizationTypeCode {
  return typeof value === 'string' && (ORGANIZATION_TYPE_CODES as readonly string[]).includes(value);
}

/** The display label of a code. */
export function organizationTypeLabel(code: OrganizationTypeCode): string {
  const type = ORGANIZATION_TYPES.find((candidate) => candidate.code === code);
  // The lookup cannot miss for a value of the code type; the fallback keeps the type checker honest.
  return type?.label ?? code;
}

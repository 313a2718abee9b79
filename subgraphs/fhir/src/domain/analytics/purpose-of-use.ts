import { validationError } from '@svc/platform';

/**
 * Purposes of use an analytics query may state, from the HL7 v3 PurposeOfUse value set
 * (code system `http://terminology.hl7.org/CodeSystem/v3-ActReason`,
 * https://terminology.hl7.org/ValueSet-v3-PurposeOfUse.html). The list is the subset that covers
 * aggregate analysis of clinical data: care and its coordination, payment and operations (HIPAA
 * "TPO"), quality, population and public health, and research. Marketing (HMARKT), legal
 * (HLEGAL), patient requests (PATRQT) and the like are refused: an aggregate query is not how those
 * are served.
 */
export const ANALYTICS_PURPOSES_OF_USE = {
  TREAT: 'treatment',
  ETREAT: 'emergency treatment',
  CAREMGT: 'care management',
  COC: 'coordination of care',
  HPAYMT: 'healthcare payment',
  HOPERAT: 'healthcare operations',
  HQUALIMP: 'healthcare quality improvement',
  POPHLTH: 'population health',
  PUBHLTH: 'public health',
  HRESCH: 'healthcare research',
  CLINTRCH: 'clinical trial research',
} as const;

export type PurposeOfUse = keyof typeof ANALYTICS_PURPOSES_OF_USE;

export const PURPOSE_OF_USE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v3-ActReason';

/** The code of a stated purpose of use (case-insensitive), or a 422 naming `field`. */
export function readPurposeOfUse(value: unknown, field = 'purpose_of_use'): PurposeOfUse {
  const allowed = Object.keys(ANALYTICS_PURPOSES_OF_USE).join(', ');
  if (typeof value !== 'string' || value.trim() === '') {
    throw validationError([{ field, message: `is required: one of ${allowed} (HL7 v3 PurposeOfUse)` }], `${field} is required.`);
  }
  const code = value.trim().toUpperCase();
  if (!(code in ANALYTICS_PURPOSES_OF_USE)) {
    throw validationError([{ field, message: `"${value}" is not a purpose of use allowed for analytics; use one of ${allowed} (HL7 v3 PurposeOfUse)` }], `${field} is not allowed.`);
  }
  return code as PurposeOfUse;
}

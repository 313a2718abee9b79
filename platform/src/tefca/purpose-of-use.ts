import { validationError } from '../errors.js';

/**
 * TEFCA exchange purposes ("XP codes"), the purpose of use every TEFCA exchange request carries.
 *
 * Source: Sequoia Project / ONC, TEFCA "Exchange Purposes (XPs) Implementation SOP" and its
 * "Exchange Purpose Codes" value set (urn:oid:2.16.840.1.113883.3.7204.1.5.2.1, code system
 * http://terminology.hl7.org/CodeSystem/… is not used: TEFCA publishes its own codes), together with
 * the Health Care Operations and Government Benefits Determination implementation SOPs that define
 * the sub-codes. `T-TREAT` is the treatment code of the first SOP version, `T-TRTMNT` the later
 * spelling: both are accepted. When the RCE publishes new sub-codes, add them here: this list is
 * the only place the platform knows them.
 */
export const TEFCA_PURPOSES_OF_USE = Object.freeze({
  'T-TREAT': 'Treatment',
  'T-TRTMNT': 'Treatment',
  'T-PYMNT': 'Payment',
  'T-HCO': 'Health care operations',
  'T-HCO-CC': 'Health care operations: care coordination and case management',
  'T-HCO-HED': 'Health care operations: HEDIS reporting',
  'T-HCO-QM': 'Health care operations: quality measurement',
  'T-PH': 'Public health',
  'T-IAS': 'Individual access services',
  'T-GOVDTRM': 'Government benefits determination',
  'T-GOVDTRM-DISABILITY': 'Government benefits determination: disability',
} as const);

export type TefcaPurposeOfUse = keyof typeof TEFCA_PURPOSES_OF_USE;

export const TEFCA_PURPOSE_CODES = Object.freeze(Object.keys(TEFCA_PURPOSES_OF_USE)) as readonly TefcaPurposeOfUse[];

export function isTefcaPurposeOfUse(value: unknown): value is TefcaPurposeOfUse {
  return typeof value === 'string' && Object.hasOwn(TEFCA_PURPOSES_OF_USE, value);
}

/**
 * The purpose of use of an exchange request, or a 422 naming the field: missing, not a string, or not
 * one of the TEFCA exchange purpose codes (exact spelling, upper case).
 */
export function readPurposeOfUse(value: unknown, field = 'purpose_of_use'): TefcaPurposeOfUse {
  if (value === undefined || value === null || value === '') {
    throw validationError([{ field, message: `is required: one of ${TEFCA_PURPOSE_CODES.join(', ')}` }], `${field} is required on every TEFCA exchange.`);
  }
  if (!isTefcaPurposeOfUse(value)) {
    throw validationError([{ field, message: `must be a TEFCA exchange purpose: one of ${TEFCA_PURPOSE_CODES.join(', ')}` }], `${field} is not a TEFCA exchange purpose code.`);
  }
  return value;
}

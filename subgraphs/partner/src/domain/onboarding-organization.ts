import type { FieldError } from '@svc/platform';
import { normalizeEmail } from './email-address.js';
import { asRecord, isBlank } from './input-readers.js';
import { npiProblem, npiProblemMessage } from './npi.js';
import { ORGANIZATION_TYPE_CODES, parseOrganizationType, type OrganizationTypeCode } from './organization-types.js';
import { normalizePhone } from './phone-number.js';
import { readOptionalText, readRequiredText } from './text-fields.js';
import { invalid, valid, type ValidationResult } from './validation-result.js';

/** The person the platform contacts about the application. */
export interface ContactDetails {
  name: string;
  /** Canonical (lower-case) address. */
  email: string;
  /** E.164 form, such as `+12025550143`. */
  phone: string | null;
  title: string | null;
}

/** Onboarding step 1 (Organization), validated and normalized. */
export interface OrganizationStep {
  legal_name: string;
  organization_type: OrganizationTypeCode;
  contact: ContactDetails;
  /** National Provider Identifier, checked with its check digit. */
  npi: string | null;
}

/** Field limits of step 1. */
export const ORGANIZATION_STEP_LIMITS = {
  legalName: { label: 'Legal name', min: 2, max: 200, singleLine: true },
  contactName: { label: 'Contact name', min: 2, max: 200, singleLine: true },
  contactTitle: { label: 'Contact title', min: 1, max: 120, singleLine: true },
} as const;

function readContact(value: unknown, errors: FieldError[]): ContactDetails | undefined {
  const contact = asRecord(value);
  if (!contact) {
    errors.push({ field: 'contact', message: 'Contact is required: name and email.' });
    return undefined;
  }
  const name = readRequiredText(contact.name, 'contact.name', ORGANIZATION_STEP_LIMITS.contactName, errors);
  const title = readOptionalText(contact.title, 'contact.title', ORGANIZATION_STEP_LIMITS.contactTitle, errors);

  let email: string | undefined;
  if (isBlank(contact.email)) errors.push({ field: 'contact.email', message: 'Contact email is required.' });
  else {
    email = normalizeEmail(contact.email);
    if (!email) errors.push({ field: 'contact.email', message: 'Contact email is not a valid e-mail address.' });
  }

  let phone: string | null | undefined = null;
  if (!isBlank(contact.phone)) {
    phone = normalizePhone(contact.phone);
    if (!phone) {
      errors.push({
        field: 'contact.phone',
        message: 'Contact phone must be an international number starting with + and the country code, or a 10-digit North American number.',
      });
    }
  }

  if (name === undefined || email === undefined || phone === undefined || title === undefined) return undefined;
  return { name, email, phone, title };
}

function readNpi(value: unknown, errors: FieldError[]): string | null | undefined {
  if (isBlank(value)) return null;
  const problem = npiProblem(value);
  if (problem) {
    errors.push({ field: 'npi', message: npiProblemMessage(problem) });
    return undefined;
  }
  return String(value).trim();
}

/**
 * Validate onboarding step 1 (Organization): `legal_name` (2–200 characters), `organization_type`
 * (a code or label of the eight organization types), `contact` `{ name, email, phone?, title? }` and
 * an optional `npi`. Field paths are relative to the step (`contact.email`).
 */
export function validateOrganizationStep(input: unknown): ValidationResult<OrganizationStep> {
  const step = asRecord(input);
  if (!step) return invalid([{ field: '', message: 'The organization step must be an object.' }]);
  const errors: FieldError[] = [];

  const legalName = readRequiredText(step.legal_name, 'legal_name', ORGANIZATION_STEP_LIMITS.legalName, errors);

  let organizationType: OrganizationTypeCode | undefined;
  if (isBlank(step.organization_type)) errors.push({ field: 'organization_type', message: 'Organization type is required.' });
  else {
    organizationType = parseOrganizationType(step.organization_type)?.code;
    if (!organizationType) {
      errors.push({ field: 'organization_type', message: `Organization type must be one of ${ORGANIZATION_TYPE_CODES.join(', ')}.` });
    }
  }

  const contact = readContact(step.contact, errors);
  const npi = readNpi(step.npi, errors);

  if (errors.length > 0 || legalName === undefined || organizationType === undefined || contact === undefined || npi === undefined) {
    return invalid(errors);
  }
  return valid({ legal_name: legalName, organization_type: organizationType, contact, npi });
}

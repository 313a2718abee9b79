import type { FieldError } from '@svc/platform';
import { asRecord, isBlank } from './input-readers.js';
import { LEGAL_TEMPLATE_VERSION, currentLegalDocument } from './legal-documents.js';
import { checkPasswordStrength, type PasswordContext } from './password-policy.js';
import { invalid, valid, type ValidationResult } from './validation-result.js';

/** The agreements an applicant accepts in step 3. */
export const REQUIRED_AGREEMENTS = ['mnda', 'baa'] as const;

/** Key of a required agreement in the `agreements` object. */
export type RequiredAgreement = (typeof REQUIRED_AGREEMENTS)[number];

/** Acceptance of one legal document, as recorded with the application. */
export interface AgreementAcceptance {
  accepted: true;
  version: string;
  /** Catalog id of the accepted text (see `legal-documents.ts`). */
  document_id: string;
}

/**
 * Onboarding step 3 (Account), validated. `portal_password` is the plaintext the applicant chose:
 * hash it (argon2id) at once and never store or log it; drafts keep only the agreements.
 */
export interface AccountStep {
  portal_password: string;
  agreements: Record<RequiredAgreement, AgreementAcceptance>;
}

const AGREEMENT_TITLES: Record<RequiredAgreement, string> = {
  mnda: 'Mutual Non-Disclosure Agreement',
  baa: 'HIPAA Business Associate Agreement',
};

function readAgreement(value: unknown, key: RequiredAgreement, errors: FieldError[]): AgreementAcceptance | undefined {
  const field = `agreements.${key}`;
  const title = AGREEMENT_TITLES[key];
  const agreement = asRecord(value);
  if (!agreement) {
    errors.push({ field, message: `Accept the ${title} (${LEGAL_TEMPLATE_VERSION}).` });
    return undefined;
  }
  let ok = true;
  if (agreement.accepted !== true) {
    ok = false;
    errors.push({ field: `${field}.accepted`, message: `The ${title} must be accepted.` });
  }
  if (isBlank(agreement.version)) {
    ok = false;
    errors.push({ field: `${field}.version`, message: `State the version of the ${title} you accept; the current version is ${LEGAL_TEMPLATE_VERSION}.` });
  } else if (agreement.version !== LEGAL_TEMPLATE_VERSION) {
    ok = false;
    errors.push({
      field: `${field}.version`,
      message: `Version ${String(agreement.version)} of the ${title} cannot be accepted; the current version is ${LEGAL_TEMPLATE_VERSION}.`,
    });
  }
  return ok ? { accepted: true, version: LEGAL_TEMPLATE_VERSION, document_id: currentLegalDocument(key).id } : undefined;
}

/**
 * Validate the `agreements` object alone: both the MNDA and the BAA accepted in the current
 * template version, as `{ mnda: { accepted: true, version: 'v2026-03' }, baa: { … } }`.
 * Field paths start with `agreements.`.
 */
export function validateAgreements(input: unknown): ValidationResult<Record<RequiredAgreement, AgreementAcceptance>> {
  const agreements = asRecord(input);
  if (!agreements) return invalid([{ field: 'agreements', message: `Accept the MNDA and the BAA (${LEGAL_TEMPLATE_VERSION}).` }]);
  const errors: FieldError[] = [];
  const mnda = readAgreement(agreements.mnda, 'mnda', errors);
  const baa = readAgreement(agreements.baa, 'baa', errors);
  if (!mnda || !baa) return invalid(errors);
  return valid({ mnda, baa });
}

/**
 * Validate onboarding step 3 (Account): `portal_password` against the password policy, compared with
 * the contact e-mail and organization name from step 1 (`context`), and `agreements` (see
 * {@link validateAgreements}). Field paths are relative to the step.
 */
export function validateAccountStep(input: unknown, context: PasswordContext = {}): ValidationResult<AccountStep> {
  const step = asRecord(input);
  if (!step) return invalid([{ field: '', message: 'The account step must be an object.' }]);
  const passwordErrors = checkPasswordStrength(step.portal_password, context, 'portal_password');
  const agreements = validateAgreements(step.agreements);
  const errors = [...passwordErrors, ...(agreements.ok ? [] : agreements.errors)];
  if (errors.length > 0 || !agreements.ok || typeof step.portal_password !== 'string') return invalid(errors);
  return valid({ portal_password: step.portal_password, agreements: agreements.value });
}

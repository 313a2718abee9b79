import { DomainError, type FieldError } from '@svc/platform';
import { asRecord } from './input-readers.js';
import {
  ONBOARDING_STEPS,
  summarizeOnboardingProgress,
  validateAgreements,
  validateIntegrationStep,
  validateOrganizationStep,
  type AgreementAcceptance,
  type IntegrationStep,
  type OnboardingProgress,
  type OnboardingStepKey,
  type OrganizationStep,
  type RequiredAgreement,
  type StepStatus,
} from './onboarding.js';
import { checkPasswordStrength, type PasswordContext } from './password-policy.js';
import { invalid, prefixFieldErrors, valid, type ValidationResult } from './validation-result.js';

/**
 * A saved application draft. Steps 1 and 2 are stored as last saved (normalized when valid, as
 * entered otherwise, so the applicant can resume and fix them). Step 3 is stored without the
 * password: only whether an acceptable password was set (its argon2id hash exists elsewhere).
 */
export interface ApplicationDraft {
  organization: Record<string, unknown> | null;
  integration: Record<string, unknown> | null;
  /** `{ agreements }` as last saved. */
  account: Record<string, unknown> | null;
  passwordSet: boolean;
}

/** What saving one step produces: the data to store and the step's problems (step-prefixed paths). */
export interface PreparedStep {
  step: OnboardingStepKey;
  /** Data to store for the step; never contains a password. */
  stored: Record<string, unknown>;
  errors: FieldError[];
  /** Account step only: an acceptable new password, to be hashed at once and then forgotten. */
  passwordToHash: string | null;
  /** Account step only: the applicant offered a password the policy refused, so none is set. */
  clearPassword: boolean;
}

/** A draft that passed every check: ready to move from `draft` to `submitted`. */
export interface CompleteApplication {
  organization: OrganizationStep;
  integration: IntegrationStep;
  agreements: Record<RequiredAgreement, AgreementAcceptance>;
}

/** Largest serialized step input accepted, in characters; bounds what an anonymous caller may store. */
export const MAX_STEP_INPUT_LENGTH = 20_000;

const PASSWORD_MISSING: FieldError = { field: 'portal_password', message: 'Choose a portal password.' };

function passwordContext(organization: Record<string, unknown> | null): PasswordContext {
  const contact = asRecord(organization?.['contact']);
  const email = contact?.['email'];
  const name = organization?.['legal_name'];
  return { email: typeof email === 'string' ? email : undefined, organization_name: typeof name === 'string' ? name : undefined };
}

function accountErrors(account: Record<string, unknown> | null, passwordSet: boolean): FieldError[] {
  const agreements = validateAgreements(account?.['agreements']);
  return [...(passwordSet ? [] : [PASSWORD_MISSING]), ...(agreements.ok ? [] : agreements.errors)];
}

function checkSize(step: OnboardingStepKey, input: Record<string, unknown>): void {
  if (JSON.stringify(input).length > MAX_STEP_INPUT_LENGTH) {
    throw new DomainError('VALIDATION_ERROR', `The ${step} step is too large.`, {
      fieldErrors: [{ field: step, message: `Step data must be at most ${MAX_STEP_INPUT_LENGTH} characters of JSON.` }],
    });
  }
}

/**
 * Validate the input of one step against the draft it is saved into. The result is stored whether
 * or not it is valid (a draft may hold problems); the errors tell the applicant what to fix. For
 * step 3 the password is checked against the saved organization's name and contact e-mail; only an
 * acceptable password is handed back for hashing, and the stored data never contains it.
 * @throws DomainError `VALIDATION_ERROR` when the input is oversized.
 */
export function prepareStep(step: OnboardingStepKey, input: Record<string, unknown>, draft: ApplicationDraft): PreparedStep {
  checkSize(step, input);
  if (step === 'organization' || step === 'integration') {
    const result = step === 'organization' ? validateOrganizationStep(input) : validateIntegrationStep(input);
    return {
      step,
      stored: result.ok ? { ...result.value } : input,
      errors: result.ok ? [] : prefixFieldErrors(step, result.errors),
      passwordToHash: null,
      clearPassword: false,
    };
  }
  const password = input['portal_password'];
  const agreements = validateAgreements(input['agreements']);
  const errors: FieldError[] = [];
  let passwordToHash: string | null = null;
  let clearPassword = false;
  if (password === undefined || password === null) {
    if (!draft.passwordSet) errors.push(PASSWORD_MISSING);
  } else {
    const problems = checkPasswordStrength(password, passwordContext(draft.organization), 'portal_password');
    if (problems.length === 0 && typeof password === 'string') passwordToHash = password;
    else {
      errors.push(...problems);
      clearPassword = true;
    }
  }
  if (!agreements.ok) errors.push(...agreements.errors);
  const storedAgreements = agreements.ok ? agreements.value : (input['agreements'] ?? null);
  return { step, stored: { agreements: storedAgreements }, errors: prefixFieldErrors(step, errors), passwordToHash, clearPassword };
}

/**
 * Where a saved draft stands: steps 1 and 2 as {@link summarizeOnboardingProgress} sees them, step 3
 * from the saved agreements and whether a password is set (drafts never hold the password itself).
 */
export function summarizeApplicationDraft(draft: ApplicationDraft): OnboardingProgress {
  const base = summarizeOnboardingProgress({ organization: draft.organization ?? undefined, integration: draft.integration ?? undefined });
  const problems = accountErrors(draft.account, draft.passwordSet);
  const account: StepStatus = draft.account === null && !draft.passwordSet ? 'not_started' : problems.length === 0 ? 'complete' : 'incomplete';
  const steps = { ...base.steps, account };
  const errors = [...base.errors, ...(account === 'not_started' ? [] : prefixFieldErrors('account', problems))];
  const next = ONBOARDING_STEPS.find((step) => steps[step.key] !== 'complete');
  return { steps, next_step: next ? next.key : null, errors };
}

/**
 * Check that a draft can be submitted: every step present and valid, a password set, both
 * agreements accepted in the current version. Field paths carry the step as prefix; a step never
 * started is reported on the step key itself.
 */
export function validateDraftForSubmission(draft: ApplicationDraft): ValidationResult<CompleteApplication> {
  const progress = summarizeApplicationDraft(draft);
  const missing = ONBOARDING_STEPS.filter((step) => progress.steps[step.key] === 'not_started').map((step) => ({
    field: step.key,
    message: `Complete step ${step.number} (${step.title}) before submitting.`,
  }));
  const errors = [...missing, ...progress.errors];
  const organization = validateOrganizationStep(draft.organization);
  const integration = validateIntegrationStep(draft.integration);
  const agreements = validateAgreements(draft.account?.['agreements']);
  if (errors.length > 0 || !organization.ok || !integration.ok || !agreements.ok) return invalid(errors);
  return valid({ organization: organization.value, integration: integration.value, agreements: agreements.value });
}

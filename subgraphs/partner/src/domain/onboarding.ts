import type { FieldError } from '@svc/platform';
import { asRecord } from './input-readers.js';
import { validateAccountStep, type AccountStep } from './onboarding-account.js';
import { validateIntegrationStep, type IntegrationStep } from './onboarding-integration.js';
import { validateOrganizationStep, type OrganizationStep } from './onboarding-organization.js';
import type { PasswordContext } from './password-policy.js';
import { invalid, prefixFieldErrors, valid, type ValidationResult } from './validation-result.js';

export { validateOrganizationStep, ORGANIZATION_STEP_LIMITS, type OrganizationStep, type ContactDetails } from './onboarding-organization.js';
export { validateIntegrationStep, INTEGRATION_STEP_LIMITS, type IntegrationStep } from './onboarding-integration.js';
export {
  validateAccountStep,
  validateAgreements,
  REQUIRED_AGREEMENTS,
  type AccountStep,
  type AgreementAcceptance,
  type RequiredAgreement,
} from './onboarding-account.js';

/** The three onboarding steps, in order, with the key of each in a whole-application payload. */
export const ONBOARDING_STEPS = [
  { key: 'organization', number: 1, title: 'Organization' },
  { key: 'integration', number: 2, title: 'Integration' },
  { key: 'account', number: 3, title: 'Account' },
] as const;

/** Key of an onboarding step. */
export type OnboardingStepKey = (typeof ONBOARDING_STEPS)[number]['key'];

/** A whole application as submitted: each step's raw input under its key. */
export interface ApplicationInput {
  organization?: unknown;
  integration?: unknown;
  account?: unknown;
}

/** A complete, valid application, ready to move from `draft` to `submitted`. */
export interface ApplicationSubmission {
  organization: OrganizationStep;
  integration: IntegrationStep;
  account: AccountStep;
}

/** How far an applicant got with one step. */
export type StepStatus = 'not_started' | 'incomplete' | 'complete';

/** Where a saved draft stands, so the portal can resume at the right step. */
export interface OnboardingProgress {
  steps: Record<OnboardingStepKey, StepStatus>;
  /** The first step that is not complete, or `null` when all are. */
  next_step: OnboardingStepKey | null;
  /** Problems of the started steps, with step-prefixed field paths. */
  errors: FieldError[];
}

function passwordContextFrom(organization: unknown, validated: OrganizationStep | undefined): PasswordContext {
  if (validated) return { email: validated.contact.email, organization_name: validated.legal_name };
  // Step 1 has problems of its own; still compare the password with whatever was entered there.
  const raw = asRecord(organization);
  const contact = asRecord(raw?.contact);
  return {
    email: typeof contact?.email === 'string' ? contact.email : undefined,
    organization_name: typeof raw?.legal_name === 'string' ? raw.legal_name : undefined,
  };
}

function stepResults(input: ApplicationInput): {
  organization: ValidationResult<OrganizationStep>;
  integration: ValidationResult<IntegrationStep>;
  account: ValidationResult<AccountStep>;
} {
  const organization = validateOrganizationStep(input.organization);
  const context = passwordContextFrom(input.organization, organization.ok ? organization.value : undefined);
  return {
    organization,
    integration: validateIntegrationStep(input.integration),
    account: validateAccountStep(input.account, context),
  };
}

const isMissing = (value: unknown): boolean => value === undefined || value === null;

/**
 * Validate a whole application for submission: all three steps must be present and valid. Field
 * paths carry the step as prefix (`organization.contact.email`, `account.agreements.baa.version`);
 * a missing step is reported on the step key itself.
 */
export function validateApplicationSubmission(input: ApplicationInput): ValidationResult<ApplicationSubmission> {
  const results = stepResults(input);
  const errors: FieldError[] = [];
  for (const step of ONBOARDING_STEPS) {
    const result = results[step.key];
    if (isMissing(input[step.key])) {
      errors.push({ field: step.key, message: `Complete step ${step.number} (${step.title}) before submitting.` });
    } else if (!result.ok) {
      errors.push(...prefixFieldErrors(step.key, result.errors));
    }
  }
  const { organization, integration, account } = results;
  if (errors.length > 0 || !organization.ok || !integration.ok || !account.ok) return invalid(errors);
  return valid({ organization: organization.value, integration: integration.value, account: account.value });
}

/**
 * Summarize a saved draft: which steps are complete, which step to resume at, and the problems of
 * the steps already started. Never fails; a draft may hold anything.
 */
export function summarizeOnboardingProgress(draft: ApplicationInput): OnboardingProgress {
  const results = stepResults(draft);
  const errors: FieldError[] = [];
  const steps = {} as Record<OnboardingStepKey, StepStatus>;
  for (const step of ONBOARDING_STEPS) {
    const result = results[step.key];
    if (isMissing(draft[step.key])) steps[step.key] = 'not_started';
    else if (result.ok) steps[step.key] = 'complete';
    else {
      steps[step.key] = 'incomplete';
      errors.push(...prefixFieldErrors(step.key, result.errors));
    }
  }
  const next = ONBOARDING_STEPS.find((step) => steps[step.key] !== 'complete');
  return { steps, next_step: next ? next.key : null, errors };
}

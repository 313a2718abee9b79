import type { FieldError } from '@svc/platform';
import { asRecord, isBlank } from './input-readers.js';
import {
  CAPABILITIES,
  DATA_DIRECTIONS,
  USE_CASES,
  isCapabilityCode,
  isDataDirection,
  isUseCaseCode,
  type CapabilityCode,
  type DataDirection,
  type UseCaseCode,
} from './integration-options.js';
import { readOptionalText } from './text-fields.js';
import { invalid, valid, type ValidationResult } from './validation-result.js';

/** Onboarding step 2 (Integration), validated and normalized. */
export interface IntegrationStep {
  use_case: UseCaseCode;
  /** Free text; required when `use_case` is `other`. */
  use_case_description: string | null;
  /** Distinct capabilities, in the order first given. */
  capabilities: CapabilityCode[];
  data_direction: DataDirection;
}

/** Field limits of step 2. */
export const INTEGRATION_STEP_LIMITS = {
  useCaseDescription: { label: 'Use case description', min: 1, max: 2000, singleLine: false },
} as const;

const codes = (list: readonly { code: string }[]): string => list.map((entry) => entry.code).join(', ');

function readCapabilities(value: unknown, errors: FieldError[]): CapabilityCode[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    errors.push({ field: 'capabilities', message: 'Select at least one capability.' });
    return undefined;
  }
  const capabilities: CapabilityCode[] = [];
  let ok = true;
  value.forEach((entry: unknown, index) => {
    if (isCapabilityCode(entry)) {
      if (!capabilities.includes(entry)) capabilities.push(entry);
    } else {
      ok = false;
      errors.push({ field: `capabilities.${index}`, message: `Capability must be one of ${codes(CAPABILITIES)}.` });
    }
  });
  return ok ? capabilities : undefined;
}

/**
 * Validate onboarding step 2 (Integration): `use_case` (a {@link USE_CASES} code), an optional
 * `use_case_description` of up to 2,000 characters (required for `other`), `capabilities` (a
 * non-empty array of {@link CAPABILITIES} codes; duplicates are dropped) and `data_direction`
 * (`inbound`, `outbound` or `bidirectional`).
 */
export function validateIntegrationStep(input: unknown): ValidationResult<IntegrationStep> {
  const step = asRecord(input);
  if (!step) return invalid([{ field: '', message: 'The integration step must be an object.' }]);
  const errors: FieldError[] = [];

  let useCase: UseCaseCode | undefined;
  if (isBlank(step.use_case)) errors.push({ field: 'use_case', message: 'Use case is required.' });
  else if (isUseCaseCode(step.use_case)) useCase = step.use_case;
  else errors.push({ field: 'use_case', message: `Use case must be one of ${codes(USE_CASES)}.` });

  const description = readOptionalText(step.use_case_description, 'use_case_description', INTEGRATION_STEP_LIMITS.useCaseDescription, errors);
  if (useCase === 'other' && description === null) {
    errors.push({ field: 'use_case_description', message: 'Describe the use case when it is "other".' });
  }

  const capabilities = readCapabilities(step.capabilities, errors);

  let direction: DataDirection | undefined;
  if (isBlank(step.data_direction)) errors.push({ field: 'data_direction', message: 'Data direction is required.' });
  else if (isDataDirection(step.data_direction)) direction = step.data_direction;
  else errors.push({ field: 'data_direction', message: `Data direction must be one of ${codes(DATA_DIRECTIONS)}.` });

  if (errors.length > 0 || useCase === undefined || description === undefined || capabilities === undefined || direction === undefined) {
    return invalid(errors);
  }
  return valid({ use_case: useCase, use_case_description: description, capabilities, data_direction: direction });
}

import { validationError, type FieldError } from '@svc/platform';

/**
 * Outcome of validating one input. Validators return this instead of throwing so that a caller can
 * save a draft with its problems, show them field by field, and let the applicant resume later.
 */
export type ValidationResult<T> = { ok: true; value: T } | { ok: false; errors: FieldError[] };

/** A successful result. */
export function valid<T>(value: T): ValidationResult<T> {
  return { ok: true, value };
}

/** A failed result; `errors` must not be empty. */
export function invalid<T>(errors: FieldError[]): ValidationResult<T> {
  return { ok: false, errors };
}

/** Prefix every field path with `prefix` (`contact.email` → `organization.contact.email`). */
export function prefixFieldErrors(prefix: string, errors: readonly FieldError[]): FieldError[] {
  return errors.map((error) => ({ field: joinFieldPath(prefix, error.field), message: error.message }));
}

/** Join two segments of a dotted field path, tolerating an empty segment on either side. */
export function joinFieldPath(parent: string, child: string): string {
  if (parent === '') return child;
  if (child === '') return parent;
  return `${parent}.${child}`;
}

/** The value of a successful result; a failed one becomes a `VALIDATION_ERROR` DomainError. */
export function unwrapValidation<T>(result: ValidationResult<T>, message?: string): T {
  if (result.ok) return result.value;
  throw validationError(result.errors, message);
}

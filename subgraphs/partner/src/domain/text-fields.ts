import type { FieldError } from '@svc/platform';
import { codePointLength, isBlank, normalizeSpaces } from './input-readers.js';

/** Bounds and wording for one free-text field. */
export interface TextFieldRule {
  /** Name used in messages, such as "Legal name". */
  label: string;
  min: number;
  max: number;
  /** Collapse runs of whitespace (single-line fields) instead of only trimming (multi-line text). */
  singleLine: boolean;
}

// C0/C1 control characters other than tab, line feed and carriage return have no place in a form field.
const CONTROL_CHARACTERS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;

/**
 * Read a required text field: the cleaned string, or a field error pushed to `errors`
 * (and `undefined` returned).
 */
export function readRequiredText(value: unknown, field: string, rule: TextFieldRule, errors: FieldError[]): string | undefined {
  if (isBlank(value)) {
    errors.push({ field, message: `${rule.label} is required.` });
    return undefined;
  }
  return readText(value, field, rule, errors);
}

/**
 * Read an optional text field: `null` when absent or blank, the cleaned string when valid, or
 * `undefined` with a field error pushed to `errors`.
 */
export function readOptionalText(value: unknown, field: string, rule: TextFieldRule, errors: FieldError[]): string | null | undefined {
  if (isBlank(value)) return null;
  return readText(value, field, rule, errors);
}

function readText(value: unknown, field: string, rule: TextFieldRule, errors: FieldError[]): string | undefined {
  if (typeof value !== 'string') {
    errors.push({ field, message: `${rule.label} must be a string.` });
    return undefined;
  }
  const text = rule.singleLine ? normalizeSpaces(value) : value.trim();
  if (CONTROL_CHARACTERS.test(text)) {
    errors.push({ field, message: `${rule.label} contains control characters.` });
    return undefined;
  }
  const length = codePointLength(text);
  if (length < rule.min || length > rule.max) {
    errors.push({ field, message: `${rule.label} must be between ${rule.min} and ${rule.max} characters.` });
    return undefined;
  }
  return text;
}

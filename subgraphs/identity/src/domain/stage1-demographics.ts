/**
 * Stage 1 — demographics input. Validates the caller's demographics (name, DOB, email, phone) field
 * by field and parses each into a typed value: name parts, a calendar date, a syntactically valid
 * email, an E.164 phone. Every problem is reported at once as a field-level error.
 *
 * Lenient by default: an invalid value of an optional field (email, phone) is dropped with a
 * warning and the rest is used, as long as something identifying remains; `strict` refuses it as a
 * field error instead. Name and date of birth always refuse. A warning never carries the value.
 */
import { validationError, type FieldError } from '@svc/platform';
import { parseDob, type CalendarDate, type DayMonthOrder } from './normalize/dob.js';
import { parseEmail } from './normalize/email.js';
import { parseName, type NameParts, type ParsedName } from './normalize/names.js';
import { parsePhone, type CountryCode } from './normalize/phone.js';

/** What callers send. `name` is free text ("Smith, John" or "John Smith") or structured parts. */
export interface DemographicsInput {
  name?: string | NameParts | null;
  dob?: string | null;
  email?: string | null;
  phone?: string | null;
}

export interface ParsedPhone {
  e164: string;
  nationalNumber: string;
}

/** Validated demographics. Absent fields are null. Transient: never stored as such. */
export interface Demographics {
  name: ParsedName | null;
  dob: CalendarDate | null;
  email: string | null;
  phone: ParsedPhone | null;
}

export interface DemographicsOptions {
  /** Resolve also requires a name. */
  purpose: 'match' | 'resolve';
  /** Refuse an invalid optional field (email, phone) instead of dropping it with a warning. Default false. */
  strict?: boolean;
  /** Country for national phone numbers. Default US. */
  defaultCountry?: CountryCode;
  /** Reading of ambiguous numeric dates. Default MDY. */
  dobOrder?: DayMonthOrder;
  now?: Date;
}

/** An optional field that was dropped. `message` says why, never what the value was. */
export interface DemographicWarning {
  field: string;
  code: typeof DROPPED_INVALID_FIELD;
  message: string;
}
/** The code of every dropped-field warning. */
export const DROPPED_INVALID_FIELD = 'INVALID_FIELD_DROPPED';
/** The fields dropped (with a warning) rather than refused when invalid, unless strict. */
export const DROPPABLE_FIELDS: readonly string[] = Object.freeze(['email', 'phone']);

export type DemographicsResult = { ok: true; value: Demographics; warnings: DemographicWarning[] } | { ok: false; errors: FieldError[] };

export const MAX_NAME_LENGTH = 200;
export const MAX_NAME_PART_LENGTH = 100;
const MAX_DOB_LENGTH = 40;

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function validateName(raw: unknown, errors: FieldError[]): ParsedName | null {
  if (typeof raw === 'string') {
    if (raw.length > MAX_NAME_LENGTH) {
      errors.push({ field: 'name', message: `must be at most ${MAX_NAME_LENGTH} characters` });
      return null;
    }
    const parsed = parseName(raw);
    if (!parsed.given && !parsed.family) {
      errors.push({ field: 'name', message: 'must contain at least one letter' });
      return null;
    }
    return parsed;
  }
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const parts = raw as Record<string, unknown>;
    let ok = true;
    for (const key of Object.keys(parts)) {
      if (!['given', 'middle', 'family'].includes(key)) {
        errors.push({ field: `name.${key}`, message: 'is not a name part (use given, middle, family)' });
        ok = false;
      }
    }
    for (const key of ['given', 'middle', 'family'] as const) {
      const value = parts[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') {
        errors.push({ field: `name.${key}`, message: 'must be a string' });
        ok = false;
      } else if (value.length > MAX_NAME_PART_LENGTH) {
        errors.push({ field: `name.${key}`, message: `must be at most ${MAX_NAME_PART_LENGTH} characters` });
        ok = false;
      }
    }
    if (!ok) return null;
    const parsed = parseName(parts as NameParts);
    if (!parsed.given && !parsed.family) {
      errors.push({ field: 'name', message: 'must have a given or a family name with at least one letter' });
      return null;
    }
    return parsed;
  }
  errors.push({ field: 'name', message: 'must be a string or an object with given, middle and family' });
  return null;
}

/**
 * Validates and parses demographics. Returns every field error found; at least one identifying
 * field must be present, and a name is required for resolve.
 */
export function validateDemographics(input: unknown, options: DemographicsOptions): DemographicsResult {
  const errors: FieldError[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: 'demographics', message: 'must be an object with name, dob, email or phone' }] };
  }
  const raw = input as Record<string, unknown>;
  const value: Demographics = { name: null, dob: null, email: null, phone: null };

  if (['name', 'dob', 'email', 'phone'].every((f) => isBlank(raw[f]))) {
    errors.push({ field: 'demographics', message: 'at least one of name, dob, email or phone is required' });
  }

  if (!isBlank(raw.name)) value.name = validateName(raw.name, errors);
  else if (options.purpose === 'resolve') errors.push({ field: 'name', message: 'is required to resolve an identity' });

  if (!isBlank(raw.dob)) {
    if (typeof raw.dob !== 'string') errors.push({ field: 'dob', message: 'must be a string' });
    else if (raw.dob.length > MAX_DOB_LENGTH) errors.push({ field: 'dob', message: `must be at most ${MAX_DOB_LENGTH} characters` });
    else {
      const dob = parseDob(raw.dob, { order: options.dobOrder ?? 'MDY', now: options.now ?? new Date() });
      if (dob.ok) value.dob = dob.date;
      else errors.push({ field: 'dob', message: dob.message });
    }
  }

  // Problems of the optional fields: errors when strict, else dropped with a warning.
  const optional: FieldError[] = [];
  if (!isBlank(raw.email)) {
    if (typeof raw.email !== 'string') optional.push({ field: 'email', message: 'must be a string' });
    else {
      const email = parseEmail(raw.email);
      if (email.ok) value.email = email.address;
      else optional.push({ field: 'email', message: email.message });
    }
  }

  if (!isBlank(raw.phone)) {
    if (typeof raw.phone !== 'string') optional.push({ field: 'phone', message: 'must be a string' });
    else {
      const phone = parsePhone(raw.phone, options.defaultCountry ?? 'US');
      if (phone.ok) value.phone = { e164: phone.e164, nationalNumber: phone.nationalNumber };
      else optional.push({ field: 'phone', message: phone.message });
    }
  }

  if (options.strict) errors.push(...optional);
  if (errors.length > 0) return { ok: false, errors };
  // Nothing identifying left once the invalid fields are dropped: refuse them after all.
  if (optional.length > 0 && !value.name && !value.dob && !value.email && !value.phone) return { ok: false, errors: optional };
  const warnings = optional.map((e): DemographicWarning => ({ field: e.field, code: DROPPED_INVALID_FIELD, message: `${e.message}; the field was ignored` }));
  return { ok: true, value, warnings };
}

/** Stage 1 as a gate: the parsed demographics and the warnings of dropped fields, or a VALIDATION_ERROR DomainError with field errors. */
export function readDemographics(input: unknown, options: DemographicsOptions): { value: Demographics; warnings: DemographicWarning[] } {
  const result = validateDemographics(input, options);
  if (!result.ok) throw validationError(result.errors, 'The demographics have invalid fields.');
  return { value: result.value, warnings: result.warnings };
}

/** `readDemographics` without the warnings. */
export function acceptDemographics(input: unknown, options: DemographicsOptions): Demographics {
  return readDemographics(input, options).value;
}

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
import { parseAddress, type NormalizedAddress } from './normalize/address.js';
import { parseIdentifier, type NormalizedIdentifier } from './normalize/identifier.js';

/** What callers send. `name` is free text ("Smith, John" or "John Smith") or structured parts. */
export interface DemographicsInput {
  name?: string | NameParts | null;
  dob?: string | null;
  email?: string | null;
  phone?: string | null;
  /** More e-mail addresses and phones (with `email` / `phone`, at most 5 of each). */
  emails?: ReadonlyArray<string> | null;
  phones?: ReadonlyArray<string> | null;
  /** Administrative sex (FHIR AdministrativeGender): male, female, other, unknown. */
  sex?: string | null;
  /** Earlier names (maiden name, name before a change): free text or parts, at most 5. */
  previous_names?: ReadonlyArray<string | NameParts> | null;
  /** Postal address: `{ lines, city, state, postal_code, country }`; `addresses` for more (at most 5 in all). */
  address?: unknown;
  addresses?: ReadonlyArray<unknown> | null;
  /** `{ system, value, assigner }`, at most 10 (see normalize/identifier.ts). */
  identifiers?: ReadonlyArray<unknown> | null;
}

export interface ParsedPhone {
  e164: string;
  nationalNumber: string;
}

/** Validated demographics. Absent fields are null. Transient: never stored as such. */
export interface Demographics {
  name: ParsedName | null;
  dob: CalendarDate | null;
  /** The first e-mail and phone (of `emails` / `phones`). */
  email: string | null;
  phone: ParsedPhone | null;
  /** Every valid e-mail and phone, `email` / `phone` first, without repeats. */
  emails: string[];
  phones: ParsedPhone[];
  sex: AdministrativeSex | null;
  previousNames: ParsedName[];
  addresses: NormalizedAddress[];
  identifiers: NormalizedIdentifier[];
}

export const ADMINISTRATIVE_SEXES = ['male', 'female', 'other', 'unknown'] as const;
export type AdministrativeSex = (typeof ADMINISTRATIVE_SEXES)[number];
/** Most values of each list field. */
export const MAX_LIST_VALUES = { emails: 5, phones: 5, previous_names: 5, addresses: 5, identifiers: 10 } as const;

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
/** The fields dropped (with a warning) rather than refused when invalid, unless strict (list fields: one entry at a time). */
export const DROPPABLE_FIELDS: readonly string[] = Object.freeze(['email', 'phone', 'emails', 'phones', 'sex', 'address', 'addresses', 'identifiers']);

export type DemographicsResult = { ok: true; value: Demographics; warnings: DemographicWarning[] } | { ok: false; errors: FieldError[] };

export const MAX_NAME_LENGTH = 200;
export const MAX_NAME_PART_LENGTH = 100;
const MAX_DOB_LENGTH = 40;

function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

function validateName(raw: unknown, errors: FieldError[], field = 'name'): ParsedName | null {
  if (typeof raw === 'string') {
    if (raw.length > MAX_NAME_LENGTH) {
      errors.push({ field, message: `must be at most ${MAX_NAME_LENGTH} characters` });
      return null;
    }
    const parsed = parseName(raw);
    if (!parsed.given && !parsed.family) {
      errors.push({ field, message: 'must contain at least one letter' });
      return null;
    }
    return parsed;
  }
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const parts = raw as Record<string, unknown>;
    let ok = true;
    for (const key of Object.keys(parts)) {
      if (!['given', 'middle', 'family'].includes(key)) {
        errors.push({ field: `${field}.${key}`, message: 'is not a name part (use given, middle, family)' });
        ok = false;
      }
    }
    for (const key of ['given', 'middle', 'family'] as const) {
      const value = parts[key];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string') {
        errors.push({ field: `${field}.${key}`, message: 'must be a string' });
        ok = false;
      } else if (value.length > MAX_NAME_PART_LENGTH) {
        errors.push({ field: `${field}.${key}`, message: `must be at most ${MAX_NAME_PART_LENGTH} characters` });
        ok = false;
      }
    }
    if (!ok) return null;
    const parsed = parseName(parts as NameParts);
    if (!parsed.given && !parsed.family) {
      errors.push({ field, message: 'must have a given or a family name with at least one letter' });
      return null;
    }
    return parsed;
  }
  errors.push({ field, message: 'must be a string or an object with given, middle and family' });
  return null;
}

/** A list field: absent → [], else an array of at most `max` entries (a field error otherwise). */
function listOf(raw: unknown, field: keyof typeof MAX_LIST_VALUES, errors: FieldError[]): unknown[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) {
    errors.push({ field, message: 'must be a list' });
    return [];
  }
  if (raw.length > MAX_LIST_VALUES[field]) {
    errors.push({ field, message: `must have at most ${MAX_LIST_VALUES[field]} entries` });
    return [];
  }
  return raw;
}

const IDENTIFYING_FIELDS = ['name', 'dob', 'email', 'phone', 'emails', 'phones', 'previous_names', 'address', 'addresses', 'identifiers'] as const;

function isBlankList(value: unknown): boolean {
  return isBlank(value) || (Array.isArray(value) && value.length === 0);
}

/**
 * Whether demographics without a name still identify someone well enough to resolve: an
 * identifier of a known system, or the date of birth with a contact field (e-mail, phone or
 * postal address).
 */
export function identifiesWithoutName(d: Demographics): boolean {
  if (d.identifiers.length > 0) return true;
  return d.dob !== null && (d.emails.length > 0 || d.phones.length > 0 || d.addresses.length > 0);
}

/**
 * Validates and parses demographics. Returns every field error found; at least one identifying
 * field must be present. Resolve needs a name, or else an identifier, or the date of birth with an
 * e-mail, phone or address (`identifiesWithoutName`).
 */
export function validateDemographics(input: unknown, options: DemographicsOptions): DemographicsResult {
  const errors: FieldError[] = [];
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, errors: [{ field: 'demographics', message: 'must be an object with name, dob, email, phone, address or identifiers' }] };
  }
  const raw = input as Record<string, unknown>;
  const value: Demographics = {
    name: null, dob: null, email: null, phone: null,
    emails: [], phones: [], sex: null, previousNames: [], addresses: [], identifiers: [],
  };

  if (IDENTIFYING_FIELDS.every((f) => isBlankList(raw[f]))) {
    errors.push({ field: 'demographics', message: 'at least one of name, dob, email, phone, address or identifiers is required' });
  }

  if (!isBlank(raw.name)) value.name = validateName(raw.name, errors);

  if (!isBlank(raw.dob)) {
    if (typeof raw.dob !== 'string') errors.push({ field: 'dob', message: 'must be a string' });
    else if (raw.dob.length > MAX_DOB_LENGTH) errors.push({ field: 'dob', message: `must be at most ${MAX_DOB_LENGTH} characters` });
    else {
      const dob = parseDob(raw.dob, { order: options.dobOrder ?? 'MDY', now: options.now ?? new Date() });
      if (dob.ok) value.dob = dob.date;
      else errors.push({ field: 'dob', message: dob.message });
    }
  }

  listOf(raw.previous_names, 'previous_names', errors).forEach((entry, i) => {
    const parsed = validateName(entry, errors, `previous_names.${i}`);
    if (parsed) value.previousNames.push(parsed);
  });

  // Problems of the optional fields: errors when strict, else dropped with a warning.
  const optional: FieldError[] = [];
  const emailInputs: Array<[string, unknown]> = [];
  if (!isBlank(raw.email)) emailInputs.push(['email', raw.email]);
  listOf(raw.emails, 'emails', errors).forEach((e, i) => emailInputs.push([`emails.${i}`, e]));
  if (emailInputs.length > MAX_LIST_VALUES.emails) errors.push({ field: 'emails', message: `email and emails together must have at most ${MAX_LIST_VALUES.emails} addresses` });
  for (const [field, entry] of emailInputs) {
    if (typeof entry !== 'string') optional.push({ field, message: 'must be a string' });
    else {
      const email = parseEmail(entry);
      if (email.ok) {
        if (!value.emails.includes(email.address)) value.emails.push(email.address);
      } else optional.push({ field, message: email.message });
    }
  }

  const phoneInputs: Array<[string, unknown]> = [];
  if (!isBlank(raw.phone)) phoneInputs.push(['phone', raw.phone]);
  listOf(raw.phones, 'phones', errors).forEach((p, i) => phoneInputs.push([`phones.${i}`, p]));
  if (phoneInputs.length > MAX_LIST_VALUES.phones) errors.push({ field: 'phones', message: `phone and phones together must have at most ${MAX_LIST_VALUES.phones} numbers` });
  for (const [field, entry] of phoneInputs) {
    if (typeof entry !== 'string') optional.push({ field, message: 'must be a string' });
    else {
      const phone = parsePhone(entry, options.defaultCountry ?? 'US');
      if (phone.ok) {
        if (!value.phones.some((p) => p.e164 === phone.e164)) value.phones.push({ e164: phone.e164, nationalNumber: phone.nationalNumber });
      } else optional.push({ field, message: phone.message });
    }
  }
  value.email = value.emails[0] ?? null;
  value.phone = value.phones[0] ?? null;

  if (!isBlank(raw.sex)) {
    if (typeof raw.sex !== 'string' || !(ADMINISTRATIVE_SEXES as readonly string[]).includes(raw.sex.trim().toLowerCase())) {
      optional.push({ field: 'sex', message: `must be one of ${ADMINISTRATIVE_SEXES.join(', ')}` });
    } else value.sex = raw.sex.trim().toLowerCase() as AdministrativeSex;
  }

  const addressInputs: Array<[string, unknown]> = [];
  if (!isBlank(raw.address)) addressInputs.push(['address', raw.address]);
  listOf(raw.addresses, 'addresses', errors).forEach((a, i) => addressInputs.push([`addresses.${i}`, a]));
  if (addressInputs.length > MAX_LIST_VALUES.addresses) errors.push({ field: 'addresses', message: `address and addresses together must have at most ${MAX_LIST_VALUES.addresses} addresses` });
  for (const [field, entry] of addressInputs) {
    const parsed = parseAddress(entry, field);
    if (parsed.ok) value.addresses.push(parsed.address);
    else optional.push(...parsed.problems);
  }

  listOf(raw.identifiers, 'identifiers', errors).forEach((entry, i) => {
    const parsed = parseIdentifier(entry, `identifiers.${i}`);
    if (parsed.ok) value.identifiers.push(parsed.identifier);
    else optional.push(...parsed.problems);
  });

  if (options.strict) errors.push(...optional);
  if (options.purpose === 'resolve' && isBlank(raw.name) && !identifiesWithoutName(value)) {
    // A dropped field may be what would have identified the record: name it too.
    if (!options.strict) errors.push(...optional);
    errors.push({ field: 'name', message: 'is required to resolve an identity unless an identifier, or the date of birth with an email, phone or address, is given' });
  }
  if (errors.length > 0) return { ok: false, errors };
  // Nothing identifying left once the invalid fields are dropped: refuse them after all.
  if (optional.length > 0 && !hasIdentifyingValue(value)) return { ok: false, errors: optional };
  const warnings = optional.map((e): DemographicWarning => ({ field: e.field, code: DROPPED_INVALID_FIELD, message: `${e.message}; the field was ignored` }));
  return { ok: true, value, warnings };
}

function hasIdentifyingValue(d: Demographics): boolean {
  return d.name !== null || d.dob !== null || d.emails.length > 0 || d.phones.length > 0 || d.previousNames.length > 0 || d.addresses.length > 0 || d.identifiers.length > 0;
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

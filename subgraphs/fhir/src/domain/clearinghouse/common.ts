import { CLEARINGHOUSE_JSON_LIMITS, validationError, type FieldError } from '@svc/platform';
import { el, type Segment, type SegmentChecks } from './x12.js';

/**
 * Shapes shared by the clearinghouse transactions, in the JSON form partners send and receive
 * (snake_case), and their conversions to and from X12 elements.
 */

/** A payer (NM1*PR): its name and its payer id (NM108 PI). */
export interface Payer {
  id: string;
  name: string;
}

/** A provider (NM1*1P / *85 / *41): organisation name (or last name), optional first name, NPI. */
export interface Provider {
  npi: string;
  name: string;
  first_name?: string;
}

/** The subscriber (NM1*IL): the insured member. */
export interface Subscriber {
  member_id: string;
  last_name: string;
  first_name?: string;
  birth_date?: string;
  gender?: 'F' | 'M' | 'U';
}

/**
 * An NPI is 10 digits with a Luhn check digit computed over "80840" + the first 9 digits
 * (CMS, "Requirements for the NPI check digit").
 */
export function isValidNpi(npi: string): boolean {
  if (!/^\d{10}$/.test(npi)) return false;
  const digits = `80840${npi.slice(0, 9)}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 0) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return (10 - (sum % 10)) % 10 === Number(npi[9]);
}

/** CCYYMMDD → YYYY-MM-DD. */
export function isoDate(d8: string): string {
  return /^\d{8}$/.test(d8) ? `${d8.slice(0, 4)}-${d8.slice(4, 6)}-${d8.slice(6, 8)}` : d8;
}

/** YYYY-MM-DD → CCYYMMDD. */
export function d8(iso: string): string {
  return iso.replaceAll('-', '');
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

function realDate(value: string): boolean {
  return DATE_RE.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value);
}

/** Checks of an X12 date element (D8, CCYYMMDD) as an issue naming the element. */
export function checkD8(checks: SegmentChecks, segment: Segment, position: number, n: number, what: string): string | undefined {
  const value = el(segment, n);
  if (value === '') return undefined;
  if (!/^\d{8}$/.test(value) || !realDate(isoDate(value))) {
    checks.issues.push({ segment: segment.tag, element: `${segment.tag}${String(n).padStart(2, '0')}`, position, message: `${what} must be a date CCYYMMDD (found ${value})` });
    return undefined;
  }
  return isoDate(value);
}

/** A JSON body read field by field, its problems reported together as one 422 naming each field. */
export class JsonFields {
  readonly errors: FieldError[] = [];

  constructor(readonly body: Record<string, unknown>) {}

  static of(body: unknown): JsonFields {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError([{ field: '', message: 'must be a JSON object' }]);
    return new JsonFields(body as Record<string, unknown>);
  }

  private at(path: string): unknown {
    return path.split('.').reduce<unknown>((v, k) => (Array.isArray(v) ? (/^\d+$/.test(k) ? v[Number(k)] : undefined) : typeof v === 'object' && v !== null ? (v as Record<string, unknown>)[k] : undefined), this.body);
  }

  string(path: string, required: true, pattern?: RegExp, hint?: string): string;
  string(path: string, required?: false, pattern?: RegExp, hint?: string): string | undefined;
  string(path: string, required = false, pattern?: RegExp, hint?: string): string | undefined {
    const value = this.at(path);
    if (value === undefined || value === null || value === '') {
      if (required) this.errors.push({ field: path, message: 'is required' });
      return undefined;
    }
    if (typeof value !== 'string') {
      this.errors.push({ field: path, message: 'must be a string' });
      return undefined;
    }
    // Every text becomes one X12 element; none we write holds more.
    if (value.length > CLEARINGHOUSE_JSON_LIMITS.textLength) {
      this.errors.push({ field: path, message: `must be at most ${CLEARINGHOUSE_JSON_LIMITS.textLength} characters` });
      return undefined;
    }
    // The X12 delimiters may not appear in data.
    if (/[*~:^|\r\n]/.test(value)) {
      this.errors.push({ field: path, message: 'may not contain the X12 delimiters * ~ : ^ | or line breaks' });
      return undefined;
    }
    if (pattern && !pattern.test(value)) {
      this.errors.push({ field: path, message: hint ?? `must match ${pattern.source}` });
      return undefined;
    }
    return value;
  }

  date(path: string, required = false): string | undefined {
    const value = required ? this.string(path, true) : this.string(path);
    if (value === undefined) return undefined;
    if (!realDate(value)) {
      this.errors.push({ field: path, message: 'must be a date YYYY-MM-DD' });
      return undefined;
    }
    return value;
  }

  money(path: string, required = false): string | undefined {
    const value = this.at(path);
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field: path, message: 'is required' });
      return undefined;
    }
    const text = typeof value === 'number' ? String(value) : value;
    if (typeof text !== 'string' || !/^\d{1,8}(\.\d{1,2})?$/.test(text)) {
      this.errors.push({ field: path, message: 'must be an amount such as 125.00' });
      return undefined;
    }
    return Number(text).toFixed(2);
  }

  /**
   * An array of at most `max` items (the JSON form's limits mirror the X12 it becomes): a longer one
   * is reported and only its first `max` items are read, so its size never sets the work.
   */
  array(path: string, required: boolean, max: number): unknown[] | undefined {
    const value = this.at(path);
    if (value === undefined || value === null) {
      if (required) this.errors.push({ field: path, message: 'is required' });
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.errors.push({ field: path, message: 'must be an array' });
      return undefined;
    }
    if (value.length > max) {
      this.errors.push({ field: path, message: `must hold at most ${max} items (got ${value.length})` });
      return value.slice(0, max);
    }
    return value;
  }

  npi(path: string): string {
    const value = this.string(path, true, /^\d{10}$/, 'must be a 10-digit NPI');
    if (value !== undefined && !isValidNpi(value)) this.errors.push({ field: path, message: 'is not a valid NPI (check digit)' });
    return value ?? '';
  }

  payer(path: string): Payer {
    return { id: this.string(`${path}.id`, true, /^[A-Za-z0-9-]{2,80}$/, 'must be a payer id of 2-80 letters, digits or -'), name: this.string(`${path}.name`, true) };
  }

  provider(path: string): Provider {
    const first = this.string(`${path}.first_name`);
    return { npi: this.npi(`${path}.npi`), name: this.string(`${path}.name`, true), ...(first ? { first_name: first } : {}) };
  }

  subscriber(path: string): Subscriber {
    const first = this.string(`${path}.first_name`);
    const birth = this.date(`${path}.birth_date`);
    const gender = this.string(`${path}.gender`, false, /^[FMU]$/, 'must be F, M or U');
    return {
      member_id: this.string(`${path}.member_id`, true, /^[A-Za-z0-9-]{2,80}$/, 'must be a member id of 2-80 letters, digits or -'),
      last_name: this.string(`${path}.last_name`, true),
      ...(first ? { first_name: first } : {}),
      ...(birth ? { birth_date: birth } : {}),
      ...(gender ? { gender: gender as Subscriber['gender'] & string } : {}),
    };
  }

  done(): void {
    if (this.errors.length > 0) throw validationError(this.errors);
  }
}

/** NM1 of a person or organisation with an id: NM1*<entity>*<1|2>*<last>*<first>****<qualifier>*<id>. */
export function nm1(entity: string, name: { name: string; first_name?: string }, qualifier: string, id: string, person = false): Segment {
  const values = [entity, person || name.first_name ? '1' : '2', name.name, name.first_name ?? '', '', '', '', qualifier, id];
  return { tag: 'NM1', el: values };
}

/** NM1 of the subscriber. */
export function subscriberNm1(s: Subscriber): Segment {
  return { tag: 'NM1', el: ['IL', '1', s.last_name, s.first_name ?? '', '', '', '', 'MI', s.member_id] };
}

/** Read the subscriber from its NM1*IL and optional DMG. */
export function subscriberFrom(checks: SegmentChecks, nm: Segment, position: number, dmg: { segment: Segment; position: number } | undefined): Subscriber {
  const last = checks.element(nm, position, 3, 'subscriber last name (NM103)');
  const memberQualifier = el(nm, 8);
  checks.require(memberQualifier === 'MI' || memberQualifier === 'II', { segment: 'NM1', element: 'NM108', position, message: 'subscriber identification code qualifier must be MI (member id)' });
  const memberId = checks.element(nm, position, 9, 'subscriber member id (NM109)');
  const first = el(nm, 4);
  const out: Subscriber = { member_id: memberId, last_name: last, ...(first ? { first_name: first } : {}) };
  if (dmg) {
    checks.require(el(dmg.segment, 1) === 'D8', { segment: 'DMG', element: 'DMG01', position: dmg.position, message: 'date format qualifier must be D8' });
    const birth = checkD8(checks, dmg.segment, dmg.position, 2, 'birth date (DMG02)');
    if (birth) out.birth_date = birth;
    const gender = el(dmg.segment, 3);
    if (gender) {
      if (checks.require(['F', 'M', 'U'].includes(gender), { segment: 'DMG', element: 'DMG03', position: dmg.position, message: 'gender must be F, M or U' })) out.gender = gender as 'F' | 'M' | 'U';
    }
  }
  return out;
}

/** Read a provider from its NM1 (NM108 XX, NM109 a valid NPI). */
export function providerFrom(checks: SegmentChecks, nm: Segment, position: number, role: string): Provider {
  const name = checks.element(nm, position, 3, `${role} name (NM103)`);
  checks.require(el(nm, 8) === 'XX', { segment: 'NM1', element: 'NM108', position, message: `${role} identification code qualifier must be XX (NPI)` });
  const npi = checks.element(nm, position, 9, `${role} NPI (NM109)`);
  if (npi) checks.require(isValidNpi(npi), { segment: 'NM1', element: 'NM109', position, message: `${role} NPI ${npi} is not a valid NPI (check digit)` });
  const first = el(nm, 4);
  return { npi, name, ...(first ? { first_name: first } : {}) };
}

/** Read a payer from its NM1*PR (NM108 PI or XV). */
export function payerFrom(checks: SegmentChecks, nm: Segment, position: number): Payer {
  const name = checks.element(nm, position, 3, 'payer name (NM103)');
  checks.require(['PI', 'XV'].includes(el(nm, 8)), { segment: 'NM1', element: 'NM108', position, message: 'payer identification code qualifier must be PI or XV' });
  const id = checks.element(nm, position, 9, 'payer id (NM109)');
  return { id, name };
}

/** A small deterministic number from text (FNV-1a), for stub values that must not change between runs. */
export function stableNumber(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

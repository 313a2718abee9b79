import { validationError, type FieldError } from '../errors.js';

/**
 * The patient of an XCPD request (the ITI-55 query parameters, as JSON): the demographics a
 * community matches on. The same shape on the wire (snake_case), in GraphQL (camelCase input
 * `TefcaPatientInput`) and between the parts.
 */
export interface TefcaPatient {
  given: string[];
  family: string | null;
  birthDate: string | null;
  gender: 'male' | 'female' | 'other' | 'unknown' | null;
  email: string | null;
  phone: string | null;
}

const GENDERS = ['male', 'female', 'other', 'unknown'] as const;

/** The GraphQL input (or its wire twin after camel-casing) as a checked TefcaPatient; errors name `${prefix}.field`. */
export function readTefcaPatient(input: Record<string, unknown> | null | undefined, prefix = 'patient'): TefcaPatient {
  const errors: FieldError[] = [];
  if (!input) throw validationError([{ field: prefix, message: 'is required' }], `${prefix} is required: the demographics to match.`);
  const text = (key: string, wire: string, max = 200): string | null => {
    const v = input[key];
    if (v === undefined || v === null || v === '') return null;
    if (typeof v !== 'string') return void errors.push({ field: `${prefix}.${wire}`, message: 'must be a string' }), null;
    if (v.length > max) return void errors.push({ field: `${prefix}.${wire}`, message: `must be at most ${max} characters` }), null;
    return v.trim();
  };
  let given: string[] = [];
  const g = input['given'];
  if (typeof g === 'string') given = [g];
  else if (Array.isArray(g) && g.every((x) => typeof x === 'string')) given = g as string[];
  else if (g !== undefined && g !== null) errors.push({ field: `${prefix}.given`, message: 'must be a string or a list of strings' });
  given = given.map((x) => x.trim()).filter(Boolean).slice(0, 5);
  const family = text('family', 'family');
  const birthDate = text('birthDate', 'birth_date', 10);
  if (birthDate !== null && (!/^\d{4}-\d{2}-\d{2}$/.test(birthDate) || Number.isNaN(Date.parse(`${birthDate}T00:00:00Z`)))) {
    errors.push({ field: `${prefix}.birth_date`, message: 'must be a date YYYY-MM-DD' });
  }
  const gender = text('gender', 'gender', 10);
  if (gender !== null && !(GENDERS as readonly string[]).includes(gender)) errors.push({ field: `${prefix}.gender`, message: `must be one of ${GENDERS.join(', ')}` });
  const email = text('email', 'email', 320);
  const phone = text('phone', 'phone', 40);
  if (given.length === 0 && family === null) errors.push({ field: `${prefix}.family`, message: 'a name (family and/or given) is required to discover a patient' });
  if (errors.length > 0) throw validationError(errors, 'The patient demographics are invalid.');
  return { given, family, birthDate, gender: gender as TefcaPatient['gender'], email, phone };
}

/** The wire form (snake_case) of a patient, as peers receive it. */
export function tefcaPatientJson(p: TefcaPatient): Record<string, unknown> {
  return { given: p.given, family: p.family, birth_date: p.birthDate, gender: p.gender, email: p.email, phone: p.phone };
}

/** The wire form's fields in the camelCase the GraphQL input uses. */
export function tefcaPatientFromJson(body: Record<string, unknown>): Record<string, unknown> {
  return { given: body['given'], family: body['family'], birthDate: body['birth_date'], gender: body['gender'], email: body['email'], phone: body['phone'] };
}

/**
 * The identity-relevant demographics of a FHIR R4 Patient, in the identity registry's input shape
 * (name as parts, dob, e-mails, phones, sex, previous names, addresses, identifiers with their
 * system). Shared because two components read a Patient this way: the FHIR subgraph, when it asks
 * the registry for a stored Patient's GPID, and the identity subgraph, when it answers
 * `Patient/$match`. The registry validates every field again; a value it cannot use is dropped there.
 */

type NameParts = { given: string; middle?: string; family: string };

/** A postal address in the registry's shape. */
export interface PatientAddress {
  lines: string[];
  city: string | null;
  state: string | null;
  postal_code: string | null;
  country: string | null;
}

/** An identifier in the registry's shape: one of its systems, the value, and who assigned it. */
export interface PatientIdentifier {
  system: 'ssn' | 'mrn' | 'drivers_license' | 'insurance_member_id' | 'passport' | 'national_id';
  value: string;
  assigner: string | null;
}

/** What the registry resolves: every field optional, absent is null (or empty). */
export interface PatientDemographics {
  name: NameParts | string | null;
  dob: string | null;
  email: string | null;
  phone: string | null;
  /** The other current e-mails and phones, after `email` / `phone` (at most 5 of each in all). */
  emails: string[];
  phones: string[];
  sex: string | null;
  previous_names: (NameParts | string)[];
  addresses: PatientAddress[];
  identifiers: PatientIdentifier[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x.trim() !== '').map((x) => x.trim()) : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);

/** Names no longer (or never) in use: old, maiden, anonymous. */
const RETIRED_NAME_USES = new Set(['old', 'maiden', 'anonymous']);

/** The HumanName to match on: the official one, else the first one in use, else the first. */
function chosenName(resource: Json): Json | null {
  const names = Array.isArray(resource['name']) ? resource['name'].filter(isObject) : [];
  return names.find((n) => n['use'] === 'official') ?? names.find((n) => !RETIRED_NAME_USES.has(String(n['use']))) ?? names[0] ?? null;
}

const MAX_EACH = 5;

/** Every current telecom value of `system` (`email`, or `phone`/`sms`), without repeats. */
function telecoms(resource: Json, systems: readonly string[]): string[] {
  const entries = Array.isArray(resource['telecom']) ? resource['telecom'].filter(isObject) : [];
  const values = entries.filter((t) => systems.includes(String(t['system'])) && t['use'] !== 'old').map((t) => text(t['value']));
  return [...new Set(values.filter((v): v is string => v !== null))].slice(0, MAX_EACH);
}

/** A HumanName as parts when family and given exist, else its text. */
function nameOf(name: Json): NameParts | string | null {
  const given = strings(name['given']);
  const family = text(name['family']);
  if (family && given.length > 0) return { given: given[0]!, ...(given.length > 1 ? { middle: given.slice(1).join(' ') } : {}), family };
  return text(name['text']) ?? (family || given.length > 0 ? [...given, ...(family ? [family] : [])].join(' ') : null);
}

/** Names the person had before (use old or maiden), for matching records made under them. */
function previousNames(resource: Json, chosen: Json | null): (NameParts | string)[] {
  const names = Array.isArray(resource['name']) ? resource['name'].filter(isObject) : [];
  return names
    .filter((n) => n !== chosen && (n['use'] === 'old' || n['use'] === 'maiden'))
    .map(nameOf)
    .filter((n): n is NameParts | string => n !== null)
    .slice(0, MAX_EACH);
}

/** Current addresses (not `use: old`), home first. */
function addresses(resource: Json): PatientAddress[] {
  const all = Array.isArray(resource['address']) ? resource['address'].filter(isObject) : [];
  return all
    .filter((a) => a['use'] !== 'old')
    .sort((a, b) => Number(b['use'] === 'home') - Number(a['use'] === 'home'))
    .map((a) => ({ lines: strings(a['line']), city: text(a['city']), state: text(a['state']), postal_code: text(a['postalCode']), country: text(a['country']) }))
    .filter((a) => a.lines.length > 0 || a.postal_code !== null || a.city !== null)
    .slice(0, MAX_EACH);
}

/** The US SSN namespace of FHIR (hl7.org/fhir/sid), and the v2-0203 identifier type codes the registry knows. */
const US_SSN_SYSTEM = 'http://hl7.org/fhir/sid/us-ssn';
const TYPE_SYSTEMS: Readonly<Record<string, PatientIdentifier['system']>> = {
  SS: 'ssn',
  MR: 'mrn',
  DL: 'drivers_license',
  MB: 'insurance_member_id',
  SN: 'insurance_member_id',
  PPN: 'passport',
  NI: 'national_id',
};

/**
 * Patient.identifier in the registry's systems: the SSN by its FHIR system, the others by their
 * v2-0203 type code. The assigner is `assigner.display`, else (MRN, member id) the identifier's own
 * `system` URI, which in FHIR names the number space. Others (our own `urn:svc:gpid`, unknown types)
 * are left out; the registry refuses an identifier without the assigner its system needs.
 */
function identifiers(resource: Json): PatientIdentifier[] {
  const all = Array.isArray(resource['identifier']) ? resource['identifier'].filter(isObject) : [];
  const out: PatientIdentifier[] = [];
  for (const id of all) {
    const value = text(id['value']);
    if (value === null || id['use'] === 'old') continue;
    const type = isObject(id['type']) && Array.isArray(id['type']['coding']) ? id['type']['coding'].filter(isObject).map((c) => String(c['code'])) : [];
    const system = id['system'] === US_SSN_SYSTEM ? 'ssn' : type.map((c) => TYPE_SYSTEMS[c]).find((s) => s !== undefined);
    if (system === undefined) continue;
    const assignerDisplay = isObject(id['assigner']) ? text(id['assigner']['display']) : null;
    const assigner = system === 'ssn' ? null : (assignerDisplay ?? (system === 'mrn' || system === 'insurance_member_id' ? text(id['system']) : null));
    out.push({ system, value, assigner });
  }
  return out.slice(0, 10);
}

/** A Patient's demographics; `null` (or empty) fields when absent. */
export function patientDemographics(resource: Json): PatientDemographics {
  const chosen = chosenName(resource);
  const emails = telecoms(resource, ['email']);
  const phones = telecoms(resource, ['phone', 'sms']);
  return {
    name: chosen ? nameOf(chosen) : null,
    dob: text(resource['birthDate']),
    email: emails[0] ?? null,
    phone: phones[0] ?? null,
    emails: emails.slice(1),
    phones: phones.slice(1),
    sex: text(resource['gender']),
    previous_names: previousNames(resource, chosen),
    addresses: addresses(resource),
    identifiers: identifiers(resource),
  };
}

/** Whether a Patient has anything the registry can match on. */
export function hasMatchableDemographics(d: PatientDemographics): boolean {
  return d.name !== null || d.dob !== null || d.email !== null || d.phone !== null || d.addresses.length > 0 || d.identifiers.length > 0;
}

/** Whether two Patients differ in what identity resolution looks at. */
export function demographicsDiffer(a: PatientDemographics, b: PatientDemographics): boolean {
  return JSON.stringify(a) !== JSON.stringify(b);
}

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

/**
 * An identifier as the Patient carries it, for the registry to map (the identity domain's
 * `parseIdentifier`): its system URI, its v2-0203 type code, the value, `assigner.display`, and
 * whether the source verified it (the `urn:svc:extension:identifier-verified` extension).
 */
export interface PatientIdentifier {
  system: string | null;
  type: string | null;
  value: string;
  assigner: string | null;
  verified: boolean | null;
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

/** The v2-0203 code system of `Identifier.type`, and the extension by which a source says it verified an identifier. */
const V2_0203 = 'http://terminology.hl7.org/CodeSystem/v2-0203';
export const IDENTIFIER_VERIFIED_EXTENSION = 'urn:svc:extension:identifier-verified';
const GPID_SYSTEM = 'urn:svc:gpid';

/**
 * Patient.identifier as the registry reads it: every current identifier with a value and a system
 * or a v2-0203 type code, except our own GPID. The registry maps well-known system URIs (us-ssn,
 * us-npi, state driver's licence OIDs) and type codes to its systems and keeps any other system URI
 * as an opaque one. The verified flag is the extension `urn:svc:extension:identifier-verified`
 * (valueBoolean).
 */
function identifiers(resource: Json): PatientIdentifier[] {
  const all = Array.isArray(resource['identifier']) ? resource['identifier'].filter(isObject) : [];
  const out: PatientIdentifier[] = [];
  for (const id of all) {
    const value = text(id['value']);
    if (value === null || id['use'] === 'old') continue;
    const system = text(id['system']);
    if (system === GPID_SYSTEM) continue;
    const codings = isObject(id['type']) && Array.isArray(id['type']['coding']) ? id['type']['coding'].filter(isObject) : [];
    const type = codings.filter((c) => c['system'] === undefined || c['system'] === V2_0203).map((c) => text(c['code'])).find((c) => c !== null) ?? null;
    if (system === null && type === null) continue;
    const assigner = isObject(id['assigner']) ? text(id['assigner']['display']) : null;
    const extensions = Array.isArray(id['extension']) ? id['extension'].filter(isObject) : [];
    const flag = extensions.find((e) => e['url'] === IDENTIFIER_VERIFIED_EXTENSION);
    const verified = flag && typeof flag['valueBoolean'] === 'boolean' ? flag['valueBoolean'] : null;
    out.push({ system, type, value, assigner, verified });
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

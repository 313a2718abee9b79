/**
 * The identity-relevant demographics of a FHIR R4 Patient, in the identity registry's input shape
 * (`IdentityDemographicsInput`: name as parts, dob, email, phone). Shared because two components
 * read a Patient this way: the FHIR subgraph, when it asks the registry for a stored Patient's GPID,
 * and the identity subgraph, when it answers `Patient/$match`. Gender is not part of it: the
 * registry's pipeline does not compare it.
 */

/** What the registry resolves: every field optional, absent is null. */
export interface PatientDemographics {
  name: { given: string; middle?: string; family: string } | string | null;
  dob: string | null;
  email: string | null;
  phone: string | null;
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

/** The first current telecom value of `system` (`email`, or `phone`/`sms`). */
function telecom(resource: Json, systems: readonly string[]): string | null {
  const entries = Array.isArray(resource['telecom']) ? resource['telecom'].filter(isObject) : [];
  const current = entries.filter((t) => systems.includes(String(t['system'])) && t['use'] !== 'old' && text(t['value']) !== null);
  return current.length > 0 ? text(current[0]!['value']) : null;
}

/** A Patient's demographics; `null` fields when absent. The name is parts when family and given exist, else its text. */
export function patientDemographics(resource: Json): PatientDemographics {
  const name = chosenName(resource);
  let parsed: PatientDemographics['name'] = null;
  if (name) {
    const given = strings(name['given']);
    const family = text(name['family']);
    if (family && given.length > 0) parsed = { given: given[0]!, ...(given.length > 1 ? { middle: given.slice(1).join(' ') } : {}), family };
    else parsed = text(name['text']) ?? (family || given.length > 0 ? [...given, ...(family ? [family] : [])].join(' ') : null);
  }
  return { name: parsed, dob: text(resource['birthDate']), email: telecom(resource, ['email']), phone: telecom(resource, ['phone', 'sms']) };
}

/** Whether two Patients differ in what identity resolution looks at. */
export function demographicsDiffer(a: PatientDemographics, b: PatientDemographics): boolean {
  return JSON.stringify(a) !== JSON.stringify(b);
}

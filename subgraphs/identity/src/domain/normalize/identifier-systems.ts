/**
 * Identifier systems as other standards name them, mapped to the registry's systems:
 *
 *   http://hl7.org/fhir/sid/us-ssn, urn:oid:2.16.840.1.113883.4.1    ssn
 *   http://hl7.org/fhir/sid/us-npi, urn:oid:2.16.840.1.113883.4.6    npi
 *   urn:oid:2.16.840.1.113883.4.3.<state FIPS code>                  drivers_license, the state from its FIPS code
 *                                                                    (the HL7 OID registry's state driver's licence arcs: .4.3.25 = MA)
 *   http://hl7.org/fhir/sid/passport-<alpha-3>                       passport, the issuing country
 *   a v2-0203 type code (http://terminology.hl7.org/CodeSystem/v2-0203) on Identifier.type:
 *     SS ssn · NPI npi · DL drivers_license · MR mrn · MB, SN insurance_member_id · PPN passport · NI national_id
 *
 * A system URI that is none of these (and comes without a known type code) is kept as an
 * *opaque* system: its values are compared only for exact equality with values of the very same
 * system URI, never as a typo or a conflict.
 */
import type { IdentifierSystem } from './identifier.js';

export const V2_0203_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v2-0203';

const URI_SYSTEMS: Readonly<Record<string, IdentifierSystem>> = {
  'http://hl7.org/fhir/sid/us-ssn': 'ssn',
  'urn:oid:2.16.840.1.113883.4.1': 'ssn',
  'http://hl7.org/fhir/sid/us-npi': 'npi',
  'urn:oid:2.16.840.1.113883.4.6': 'npi',
};

/** v2-0203 identifier type codes the registry knows. */
export const TYPE_CODE_SYSTEMS: Readonly<Record<string, IdentifierSystem>> = {
  SS: 'ssn',
  NPI: 'npi',
  DL: 'drivers_license',
  MR: 'mrn',
  MB: 'insurance_member_id',
  SN: 'insurance_member_id',
  PPN: 'passport',
  NI: 'national_id',
};

/** State FIPS codes (FIPS 5-2) → USPS codes: the last arc of a driver's licence namespace OID. */
const FIPS_STATES: Readonly<Record<number, string>> = {
  1: 'al', 2: 'ak', 4: 'az', 5: 'ar', 6: 'ca', 8: 'co', 9: 'ct', 10: 'de', 11: 'dc', 12: 'fl', 13: 'ga',
  15: 'hi', 16: 'id', 17: 'il', 18: 'in', 19: 'ia', 20: 'ks', 21: 'ky', 22: 'la', 23: 'me', 24: 'md',
  25: 'ma', 26: 'mi', 27: 'mn', 28: 'ms', 29: 'mo', 30: 'mt', 31: 'ne', 32: 'nv', 33: 'nh', 34: 'nj',
  35: 'nm', 36: 'ny', 37: 'nc', 38: 'nd', 39: 'oh', 40: 'ok', 41: 'or', 42: 'pa', 44: 'ri', 45: 'sc',
  46: 'sd', 47: 'tn', 48: 'tx', 49: 'ut', 50: 'vt', 51: 'va', 53: 'wa', 54: 'wv', 55: 'wi', 56: 'wy',
  60: 'as', 66: 'gu', 69: 'mp', 72: 'pr', 78: 'vi',
};

const DL_OID = /^urn:oid:2\.16\.840\.1\.113883\.4\.3\.(\d{1,2})$/;
const PASSPORT_URI = /^http:\/\/hl7\.org\/fhir\/sid\/passport-([A-Za-z]{3})$/;

/** What a system URI names: a registry system (with the assigner it implies), or nothing known. */
export type UriSystem = { system: IdentifierSystem; assigner: string | null } | { unknownState: true } | null;

export function systemOfUri(uri: string): UriSystem {
  const known = URI_SYSTEMS[uri];
  if (known) return { system: known, assigner: null };
  const dl = DL_OID.exec(uri);
  if (dl) {
    const state = FIPS_STATES[Number(dl[1])];
    return state ? { system: 'drivers_license', assigner: state } : { unknownState: true };
  }
  const passport = PASSPORT_URI.exec(uri);
  if (passport) return { system: 'passport', assigner: passport[1]!.toUpperCase() };
  return null;
}

/** A system that is a URI or URN (FHIR's `Identifier.system`), not one of the registry's short names. */
export function looksLikeUri(system: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(system);
}

/** NPI check digit: Luhn over the number prefixed with 80840 (the US health industry number). */
export function npiCheckDigitValid(npi: string): boolean {
  const digits = `80840${npi}`;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

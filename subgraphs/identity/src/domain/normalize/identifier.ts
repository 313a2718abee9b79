/**
 * Person identifiers with their system. Each value is compared only with values of the same
 * *scope*: the system plus its assigner (an MRN of another hospital, a licence of another state is
 * another number space). Scopes:
 *
 *   ssn                   US Social Security number: 9 digits, not area 000/666/9xx, group 00 or serial 0000; no assigner
 *   mrn                   medical record number; assigner = the assigning authority (required)
 *   drivers_license       assigner = the issuing US state (USPS code or name, required)
 *   insurance_member_id   assigner = the payer (required)
 *   passport              assigner = the issuing country, ICAO / ISO 3166-1 alpha-3 (USA, DEU …, required)
 *   national_id           a national identification or social security number of another country than
 *                         the US (Canada's SIN, Australia's, France's NIR …); assigner = the issuing
 *                         country, alpha-3 (CAN, AUS, FRA …, required; a US number is an ssn)
 *   npi                   US National Provider Identifier: 10 digits with a Luhn check digit (prefix 80840); no assigner
 *   opaque                any other system URI (`urn:oid:…`, `https://…`): the URI is the assigner, values
 *                         compared for exact equality only
 *
 * `system` may also be a well-known URI, or come with a v2-0203 `type` code (identifier-systems.ts).
 * `verified: true` says the source checked the identifier against a document or an authority: a
 * different value of that scope then blocks an automatic link even when it looks like a keying error.
 * An NPI whose check digit fails is accepted and marked (`checkDigitFailed`): it is a keying error.
 *
 * Values are compared as uppercase letters and digits (spaces, dashes, dots and slashes dropped);
 * free-text assigners (authority, payer) folded like names.
 */
import { usStateCode } from './address.js';
import { looksLikeUri, npiCheckDigitValid, systemOfUri, TYPE_CODE_SYSTEMS } from './identifier-systems.js';
import { foldText } from './text.js';

export const IDENTIFIER_SYSTEMS = ['ssn', 'mrn', 'drivers_license', 'insurance_member_id', 'passport', 'national_id', 'npi'] as const;
export type IdentifierSystem = (typeof IDENTIFIER_SYSTEMS)[number];

/** Systems whose value identifies one person; an insurance member id may be shared by a family plan. */
export const PERSONAL_IDENTIFIER_SYSTEMS: ReadonlySet<IdentifierSystem> = new Set(['ssn', 'mrn', 'drivers_license', 'passport', 'national_id', 'npi']);

export interface NormalizedIdentifier {
  system: IdentifierSystem | 'opaque';
  /** Normalized assigner ('' for SSN and NPI; the system URI of an opaque system). */
  assigner: string;
  value: string;
  /** The source says it checked the value (a document, an authority). */
  verified: boolean;
  /** The value fails its system's check digit (NPI): a keying error by itself. */
  checkDigitFailed: boolean;
}

const IDENTIFIER_KEYS = ['system', 'value', 'assigner', 'type', 'verified'];

const MAX_VALUE_LENGTH = 64;
const MAX_ASSIGNER_LENGTH = 100;

function compactValue(value: string): string {
  return value.toUpperCase().replace(/[\s\-./]/g, '');
}

/** Validates one identifier object; `field` is its path (`identifiers.0`). */
export function parseIdentifier(raw: unknown, field: string): { ok: true; identifier: NormalizedIdentifier } | { ok: false; problems: Array<{ field: string; message: string }> } {
  const fail = (sub: string, message: string) => ({ ok: false as const, problems: [{ field: sub === '' ? field : `${field}.${sub}`, message }] });
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('', 'must be an object with system, value and assigner');
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!IDENTIFIER_KEYS.includes(key)) return fail(key, `is not an identifier field (use ${IDENTIFIER_KEYS.join(', ')})`);
  }
  const { system, value, assigner, type, verified } = input;
  const present = (x: unknown) => x !== undefined && x !== null;
  if (present(system) && (typeof system !== 'string' || system.trim() === '')) return fail('system', 'must be a string');
  if (present(type) && typeof type !== 'string') return fail('type', 'must be a string (a v2-0203 identifier type code: SS, NPI, DL, MR, MB, SN, PPN, NI …)');
  if (present(verified) && typeof verified !== 'boolean') return fail('verified', 'must be true or false');
  if (typeof value !== 'string' || value.trim() === '') return fail('value', 'is required (a string)');
  if (value.length > MAX_VALUE_LENGTH) return fail('value', `must be at most ${MAX_VALUE_LENGTH} characters`);
  if (present(assigner) && typeof assigner !== 'string') return fail('assigner', 'must be a string');
  if (typeof assigner === 'string' && assigner.length > MAX_ASSIGNER_LENGTH) return fail('assigner', `must be at most ${MAX_ASSIGNER_LENGTH} characters`);
  if (typeof system === 'string' && system.length > MAX_ASSIGNER_LENGTH) return fail('system', `must be at most ${MAX_ASSIGNER_LENGTH} characters`);
  let assignerText = typeof assigner === 'string' && assigner.trim() !== '' ? assigner : null;
  const isVerified = verified === true;
  const systemText = typeof system === 'string' ? system.trim() : null;
  const typeCode = typeof type === 'string' && type.trim() !== '' ? type.trim().toUpperCase() : null;

  // Which registry system: a short name, a well-known URI, a v2-0203 type code, else an opaque URI.
  let sys: IdentifierSystem | 'opaque';
  if (systemText !== null && (IDENTIFIER_SYSTEMS as readonly string[]).includes(systemText)) sys = systemText as IdentifierSystem;
  else {
    const fromUri = systemText !== null ? systemOfUri(systemText) : null;
    if (fromUri !== null && 'unknownState' in fromUri) return fail('system', 'names a driver\'s licence namespace of no US state (urn:oid:2.16.840.1.113883.4.3.<state FIPS code>)');
    if (fromUri !== null) {
      sys = fromUri.system;
      if (fromUri.assigner !== null) assignerText = fromUri.assigner;
    } else if (typeCode !== null && TYPE_CODE_SYSTEMS[typeCode]) {
      sys = TYPE_CODE_SYSTEMS[typeCode]!;
      // The system URI of an MRN or a member id names its number space: the assigner when none is given.
      if (assignerText === null && systemText !== null && (sys === 'mrn' || sys === 'insurance_member_id')) assignerText = systemText;
    } else if (systemText !== null && looksLikeUri(systemText)) sys = 'opaque';
    else if (systemText === null && typeCode !== null) return fail('type', `is not an identifier type the registry knows without a system (${Object.keys(TYPE_CODE_SYSTEMS).join(', ')})`);
    else return fail('system', `must be one of ${IDENTIFIER_SYSTEMS.join(', ')}, or a system URI (http://hl7.org/fhir/sid/us-ssn, urn:oid:…)`);
  }
  // A FHIR identifier of the SSN or NPI namespace may name its issuer (assigner.display): there is only one.
  if ((sys === 'ssn' || sys === 'npi') && systemText !== sys) assignerText = null;
  if (sys === 'npi' && assignerText !== null) return fail('assigner', 'is not used for npi');
  const flags = { verified: isVerified, checkDigitFailed: false };
  if (sys === 'opaque') {
    return { ok: true, identifier: { system: 'opaque', assigner: systemText!, value: value.trim(), ...flags } };
  }
  const compact = compactValue(value);
  if (!/^[A-Z0-9]+$/.test(compact)) return fail('value', 'must be letters and digits (spaces, dashes, dots and slashes are ignored)');

  switch (sys) {
    case 'npi': {
      if (!/^\d{10}$/.test(compact)) return fail('value', 'must be a 10-digit National Provider Identifier');
      return { ok: true, identifier: { system: sys, assigner: '', value: compact, ...flags, checkDigitFailed: !npiCheckDigitValid(compact) } };
    }
    case 'ssn': {
      if (assignerText !== null) return fail('assigner', 'is not used for ssn');
      if (!/^\d{9}$/.test(compact)) return fail('value', 'must be a 9-digit US Social Security number');
      const area = compact.slice(0, 3);
      if (area === '000' || area === '666' || area[0] === '9' || compact.slice(3, 5) === '00' || compact.slice(5) === '0000') {
        return fail('value', 'is not an issuable Social Security number');
      }
      return { ok: true, identifier: { system: sys, assigner: '', value: compact, ...flags } };
    }
    case 'drivers_license': {
      if (assignerText === null) return fail('assigner', 'is required for drivers_license: the issuing US state');
      const state = usStateCode(assignerText);
      if (state === null) return fail('assigner', 'must be a US state (its two-letter USPS code or its name)');
      return { ok: true, identifier: { system: sys, assigner: state, value: compact, ...flags } };
    }
    case 'passport': {
      if (assignerText === null) return fail('assigner', 'is required for passport: the issuing country (ICAO alpha-3, e.g. USA)');
      const country = assignerText.trim().toUpperCase();
      if (!/^[A-Z]{3}$/.test(country)) return fail('assigner', 'must be the issuing country as a three-letter ICAO / ISO 3166-1 alpha-3 code (USA, CAN, DEU …)');
      if (compact.length < 5 || compact.length > 20) return fail('value', 'must be 5 to 20 letters and digits');
      return { ok: true, identifier: { system: sys, assigner: country, value: compact, ...flags } };
    }
    case 'national_id': {
      if (assignerText === null) return fail('assigner', 'is required for national_id: the issuing country (alpha-3, e.g. CAN)');
      const country = assignerText.trim().toUpperCase();
      if (!/^[A-Z]{3}$/.test(country)) return fail('assigner', 'must be the issuing country as a three-letter ISO 3166-1 alpha-3 code (CAN, AUS, FRA …)');
      if (country === 'USA') return fail('system', 'is ssn for a US Social Security number');
      if (compact.length < 4 || compact.length > 20) return fail('value', 'must be 4 to 20 letters and digits');
      return { ok: true, identifier: { system: sys, assigner: country, value: compact, ...flags } };
    }
    case 'mrn':
    case 'insurance_member_id': {
      const what = sys === 'mrn' ? 'the assigning authority' : 'the payer';
      if (assignerText === null) return fail('assigner', `is required for ${sys}: ${what}`);
      const folded = foldText(assignerText);
      if (folded === '') return fail('assigner', 'must contain a letter or digit');
      return { ok: true, identifier: { system: sys, assigner: folded, value: compact, ...flags } };
    }
  }
}

/** The scope text (system and assigner) of an identifier. */
export function identifierScope(id: NormalizedIdentifier): string {
  return `${id.system}|${id.assigner}`;
}

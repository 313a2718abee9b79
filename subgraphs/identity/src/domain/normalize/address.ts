/**
 * Postal addresses: validation and the comparison form.
 *
 * Street lines are folded (`foldText`), then every word is put in its USPS standard form
 * (Publication 28, Appendix C1 "Street Suffix Abbreviations", C2 "Secondary Unit Designators", and
 * the directionals of section 233): "123 North Main Street, Apartment 4B" → street "123 n main st",
 * unit "4b". The unit keeps only its identifier (Apt 4B, Unit 4B, Suite 4B and # 4B are one unit),
 * since sources disagree on the designator far more often than two people share a building under
 * different designators. The tables below hold the common forms of each standard abbreviation, not
 * every variant of Appendix C1.
 *
 * US ZIP codes are compared on their five digits (ZIP+4 dropped); other postal codes as uppercase
 * letters and digits. Country: ISO 3166-1 alpha-2 (USA / "United States" read as US), default US.
 * US states: the two-letter USPS code, or the full name.
 */
import { foldText } from './text.js';

export interface AddressInput {
  lines?: unknown;
  city?: unknown;
  state?: unknown;
  postal_code?: unknown;
  country?: unknown;
}

/** A validated, normalized address (transient: only its fingerprints are kept). */
export interface NormalizedAddress {
  /** Street lines without the unit, USPS abbreviations: "123 n main st". */
  street: string;
  /** The unit identifier ("4b"), or '' when none. */
  unit: string;
  city: string;
  /** US: the USPS code (lowercase); elsewhere folded text. */
  state: string;
  /** US: 5 digits; elsewhere uppercase letters and digits; '' when absent. */
  postalCode: string;
  /** ISO 3166-1 alpha-2, uppercase. */
  country: string;
}

/** Appendix C1: common suffix spellings → the USPS standard abbreviation. */
const STREET_SUFFIXES: Readonly<Record<string, string>> = buildTable({
  aly: ['alley', 'allee', 'ally'],
  ave: ['avenue', 'av', 'aven', 'avenu', 'avn', 'avnue'],
  blvd: ['boulevard', 'boul', 'boulv'],
  br: ['branch', 'brnch'],
  byp: ['bypass', 'bypa', 'bypas', 'byps'],
  cir: ['circle', 'circ', 'circl', 'crcl', 'crcle'],
  ct: ['court', 'crt'],
  cv: ['cove'],
  crk: ['creek'],
  cres: ['crescent', 'crsent', 'crsnt'],
  xing: ['crossing', 'crssng'],
  dr: ['drive', 'driv', 'drv'],
  expy: ['expressway', 'exp', 'expr', 'express', 'expw'],
  ext: ['extension', 'extn', 'extnsn'],
  fwy: ['freeway', 'frway', 'frwy'],
  gdns: ['gardens', 'gardn', 'grden', 'grdn', 'grdns'],
  gtwy: ['gateway', 'gatewy', 'gatway', 'gtway'],
  hts: ['heights', 'ht'],
  hwy: ['highway', 'highwy', 'hiway', 'hiwy', 'hway'],
  holw: ['hollow', 'hllw', 'hollows', 'holws'],
  is: ['island', 'islnd'],
  jct: ['junction', 'jction', 'jctn', 'junctn', 'juncton'],
  ln: ['lane'],
  loop: ['loops'],
  mnr: ['manor'],
  mdws: ['meadows', 'mdw', 'medows'],
  mtwy: ['motorway'],
  mt: ['mount', 'mnt'],
  mtn: ['mountain', 'mntain', 'mntn', 'mountin', 'mtin'],
  pkwy: ['parkway', 'parkwy', 'pkway', 'pky', 'parkways', 'pkwys'],
  pass: [],
  path: ['paths'],
  pike: ['pikes'],
  pl: ['place'],
  plz: ['plaza', 'plza'],
  pt: ['point'],
  rdg: ['ridge', 'rdge'],
  rd: ['road'],
  rte: ['route'],
  row: [],
  run: [],
  sq: ['square', 'sqr', 'sqre', 'squ'],
  sta: ['station', 'statn', 'stn'],
  st: ['street', 'strt', 'str'],
  ter: ['terrace', 'terr'],
  trce: ['trace', 'traces'],
  trl: ['trail', 'trails', 'trls'],
  tpke: ['turnpike', 'trnpk', 'turnpk'],
  vly: ['valley', 'vally', 'vlly'],
  via: ['viaduct', 'vdct', 'viadct'],
  vw: ['view'],
  vlg: ['village', 'vill', 'villag', 'villg', 'villiage'],
  vis: ['vista', 'vist', 'vst', 'vsta'],
  walk: ['walks'],
  way: ['wy'],
});

/** Appendix C2: secondary unit designators (their identifier follows) and "#"; Key, Pier, Slip and Stop are left out, being street names too. */
const UNIT_DESIGNATORS = new Set([
  'apartment', 'apt', 'building', 'bldg', 'department', 'dept', 'floor', 'fl', 'hangar', 'hngr',
  'lot', 'room', 'rm', 'space', 'spc', 'suite', 'ste', 'trailer',
  'trlr', 'unit', 'no', 'number',
]);
/** Appendix C2 designators used without an identifier. */
const BARE_UNIT_DESIGNATORS = new Set(['basement', 'bsmt', 'front', 'frnt', 'lobby', 'lbby', 'lower', 'lowr', 'office', 'ofc', 'penthouse', 'ph', 'rear', 'side', 'upper', 'uppr']);

/** Section 233: directionals. */
const DIRECTIONALS: Readonly<Record<string, string>> = {
  north: 'n', south: 's', east: 'e', west: 'w',
  northeast: 'ne', northwest: 'nw', southeast: 'se', southwest: 'sw',
};

const US_STATES: Readonly<Record<string, string>> = {
  alabama: 'al', alaska: 'ak', arizona: 'az', arkansas: 'ar', california: 'ca', colorado: 'co',
  connecticut: 'ct', delaware: 'de', 'district of columbia': 'dc', florida: 'fl', georgia: 'ga',
  hawaii: 'hi', idaho: 'id', illinois: 'il', indiana: 'in', iowa: 'ia', kansas: 'ks', kentucky: 'ky',
  louisiana: 'la', maine: 'me', maryland: 'md', massachusetts: 'ma', michigan: 'mi', minnesota: 'mn',
  mississippi: 'ms', missouri: 'mo', montana: 'mt', nebraska: 'ne', nevada: 'nv',
  'new hampshire': 'nh', 'new jersey': 'nj', 'new mexico': 'nm', 'new york': 'ny',
  'north carolina': 'nc', 'north dakota': 'nd', ohio: 'oh', oklahoma: 'ok', oregon: 'or',
  pennsylvania: 'pa', 'rhode island': 'ri', 'south carolina': 'sc', 'south dakota': 'sd',
  tennessee: 'tn', texas: 'tx', utah: 'ut', vermont: 'vt', virginia: 'va', washington: 'wa',
  'west virginia': 'wv', wisconsin: 'wi', wyoming: 'wy', 'american samoa': 'as', guam: 'gu',
  'northern mariana islands': 'mp', 'puerto rico': 'pr', 'virgin islands': 'vi',
  'armed forces americas': 'aa', 'armed forces europe': 'ae', 'armed forces pacific': 'ap',
};
const US_STATE_CODES = new Set(Object.values(US_STATES));

function buildTable(groups: Record<string, string[]>): Record<string, string> {
  const table: Record<string, string> = {};
  for (const [standard, variants] of Object.entries(groups)) {
    table[standard] = standard;
    for (const v of variants) table[v] = standard;
  }
  return table;
}

/** The USPS code of a US state name or code (lowercase), or null. */
export function usStateCode(value: string): string | null {
  const folded = foldText(value);
  if (US_STATE_CODES.has(folded)) return folded;
  return US_STATES[folded] ?? null;
}

const MAX_LINES = 3;
const MAX_LINE_LENGTH = 100;
const MAX_PART_LENGTH = 100;

/**
 * Splits folded street lines into the street (standard abbreviations) and the unit identifier.
 * Directionals are abbreviated anywhere; the suffix only where Publication 28 puts it, as the last
 * word of a line or before a trailing directional ("500 Parkway Boulevard" → "500 parkway blvd").
 */
export function normalizeStreet(lines: readonly string[]): { street: string; unit: string } {
  const out: string[] = [];
  let unit = '';
  for (const line of lines) {
    // "#4B" and "# 4B" are unit markers; foldText would turn "#" into a space.
    const folded = foldText(line.replace(/#\s*/g, ' apt '));
    const tokens = folded.split(' ').filter((t) => t !== '');
    const words: string[] = [];
    for (let i = 0; i < tokens.length; i++) {
      const t = tokens[i]!;
      if (UNIT_DESIGNATORS.has(t) && i + 1 < tokens.length) {
        unit = unit === '' ? tokens[i + 1]! : `${unit} ${tokens[i + 1]!}`;
        i++;
        continue;
      }
      if (BARE_UNIT_DESIGNATORS.has(t) && i === tokens.length - 1 && words.length > 0) continue;
      words.push(DIRECTIONALS[t] ?? t);
    }
    let suffixAt = words.length - 1;
    if (suffixAt >= 2 && Object.values(DIRECTIONALS).includes(words[suffixAt]!)) suffixAt--;
    if (suffixAt >= 1 && STREET_SUFFIXES[words[suffixAt]!]) words[suffixAt] = STREET_SUFFIXES[words[suffixAt]!]!;
    out.push(...words);
  }
  return { street: out.join(' '), unit };
}

function optionalText(raw: unknown, field: string, problems: Array<{ field: string; message: string }>): string | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'string') {
    problems.push({ field, message: 'must be a string' });
    return null;
  }
  if (raw.length > MAX_PART_LENGTH) {
    problems.push({ field, message: `must be at most ${MAX_PART_LENGTH} characters` });
    return null;
  }
  return raw.trim() === '' ? null : raw;
}

/** ISO 3166-1 alpha-2 (uppercase) of a country input, or null. */
function countryCode(value: string): string | null {
  const folded = foldText(value);
  if (['us', 'usa', 'united states', 'united states of america'].includes(folded)) return 'US';
  return /^[a-z]{2}$/.test(folded) ? folded.toUpperCase() : null;
}

/**
 * Validates an address object; `field` is its path (`address`, `addresses.1`). Returns the
 * normalized address, or the problems found (each naming its sub-field).
 */
export function parseAddress(raw: unknown, field: string): { ok: true; address: NormalizedAddress } | { ok: false; problems: Array<{ field: string; message: string }> } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, problems: [{ field, message: 'must be an object with lines, city, state, postal_code and country' }] };
  }
  const input = raw as Record<string, unknown>;
  const problems: Array<{ field: string; message: string }> = [];
  for (const key of Object.keys(input)) {
    if (!['lines', 'city', 'state', 'postal_code', 'country'].includes(key)) problems.push({ field: `${field}.${key}`, message: 'is not an address field (use lines, city, state, postal_code, country)' });
  }
  const lines: string[] = [];
  if (!Array.isArray(input.lines) || input.lines.length === 0) problems.push({ field: `${field}.lines`, message: 'must be a list of 1 to 3 street lines' });
  else if (input.lines.length > MAX_LINES) problems.push({ field: `${field}.lines`, message: `must have at most ${MAX_LINES} lines` });
  else {
    input.lines.forEach((line: unknown, i) => {
      if (typeof line !== 'string') problems.push({ field: `${field}.lines.${i}`, message: 'must be a string' });
      else if (line.length > MAX_LINE_LENGTH) problems.push({ field: `${field}.lines.${i}`, message: `must be at most ${MAX_LINE_LENGTH} characters` });
      else if (line.trim() !== '') lines.push(line);
    });
  }
  const city = optionalText(input.city, `${field}.city`, problems);
  const state = optionalText(input.state, `${field}.state`, problems);
  const postal = optionalText(input.postal_code, `${field}.postal_code`, problems);
  const countryRaw = optionalText(input.country, `${field}.country`, problems);
  if (problems.length > 0) return { ok: false, problems };

  const country = countryRaw === null ? 'US' : countryCode(countryRaw);
  if (country === null) problems.push({ field: `${field}.country`, message: 'must be an ISO 3166-1 alpha-2 country code (US, CA, GB …)' });
  const { street, unit } = normalizeStreet(lines);
  if (!/[a-z0-9]/.test(street)) problems.push({ field: `${field}.lines`, message: 'must contain a street line with letters or digits' });

  let postalCode = '';
  if (postal !== null) {
    if (country === 'US') {
      const zip = /^\s*(\d{5})(?:[\s-]?\d{4})?\s*$/.exec(postal);
      if (!zip) problems.push({ field: `${field}.postal_code`, message: 'must be a US ZIP code (12345 or 12345-6789)' });
      else postalCode = zip[1]!;
    } else {
      postalCode = postal.toUpperCase().replace(/[^A-Z0-9]/g, '');
      if (postalCode === '' || postalCode.length > 10) problems.push({ field: `${field}.postal_code`, message: 'must be a postal code of 1 to 10 letters or digits' });
    }
  }
  let stateNorm = state === null ? '' : foldText(state);
  if (state !== null && country === 'US') {
    const code = usStateCode(state);
    if (code === null) problems.push({ field: `${field}.state`, message: 'must be a US state: its two-letter USPS code or its name' });
    else stateNorm = code;
  }
  const cityNorm = city === null ? '' : foldText(city);
  if (postal === null && (cityNorm === '' || (country === 'US' && stateNorm === ''))) {
    problems.push({ field: `${field}.postal_code`, message: 'is required unless city (and, in the US, state) are given' });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, address: { street, unit, city: cityNorm, state: stateNorm, postalCode, country: country! } };
}

/**
 * The comparison keys of an address: the place is written both by postal code and by city and
 * state (whichever the address has), so one side's ZIP meets the other's city and state.
 * `exact` includes the unit; `street` is the building (unit ignored).
 */
export function addressKeys(a: NormalizedAddress): { exact: string[]; street: string[] } {
  const places: string[] = [];
  if (a.postalCode !== '') places.push(`${a.country} z ${a.postalCode}`);
  if (a.city !== '') places.push(`${a.country} c ${a.state} ${a.city}`);
  return {
    exact: places.map((p) => `${p}|${a.street}|${a.unit}`),
    street: places.map((p) => `${p}|${a.street}`),
  };
}

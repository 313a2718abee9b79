/**
 * Stage 2 — normalization and keyed fingerprints. Turns validated demographics into comparison
 * features (folded names, nickname canonicals, phonetic codes, typo neighbourhoods, date variants,
 * canonical email, E.164 phone), then replaces every clear value by its keyed fingerprint. The
 * clear features live only in memory for the duration of one request.
 *
 * Blocking keys combine fields so that one error still leaves at least one key intact. Every key
 * with a DOB is emitted for the DOB and for its day/month-swapped form, on records and requests
 * alike, so a swap on either side still meets.
 *
 *   name_dob              any one name (family, or a given canonical) + DOB   typo or nickname in the
 *                                                                            other name, order swap
 *   dob_initials          DOB + the two initials, unordered                  typos in both names
 *   family_given_ym       family + given canonical + birth year-month        typo in the birth day
 *   fphon_ginitial_year   family NYSIIS + given initial + birth year         family typo + DOB typo
 *   fphon_gphon_md        family NYSIIS + given NYSIIS + birth month-day     wrong birth year
 *   family_given          family + given canonical                           DOB missing or wrong
 *   dob_phonetic          DOB + NYSIIS of one name (each name a key)         one name replaced, the
 *                                                                            other misspelt
 *   dob_initial           DOB + the initial of one name part (each a key)    one part missing, a typo
 *                                                                            in the other
 *   given_finitial_year   given canonical + family initial + birth year      family typo + day/month typo
 *   given_finitial_md     given canonical + family initial + month-day       family typo + year typo
 *   email                 canonical email                                    name and DOB both off
 *   phone                 E.164 phone                                        name and DOB both off
 *   identifier            system + assigner + value of each identifier       names differ, DOB off
 *   address               normalized address with unit (by ZIP, by city)     names differ
 *
 * Previous names add their name forms to the given and family sets and their own name keys, so a
 * record found under a maiden name is a candidate. Every e-mail and phone is a key.
 */
import { FIELD_DOMAINS, type BlockingKeyKind, type FieldName, type FieldSets } from './fields.js';
import { Fingerprinter } from './fingerprint.js';
import { formatIsoDate, swapDayMonth, type CalendarDate } from './normalize/dob.js';
import { canonicalEmail } from './normalize/email.js';
import { compactPart, significantTokens, type FoldedNamePart, type ParsedName } from './normalize/names.js';
import { canonicalGivenNames } from './normalize/nicknames.js';
import { nysiis } from './normalize/phonetic.js';
import { phoneTail } from './normalize/phone.js';
import { deletionNeighbourhood } from './normalize/text.js';
import { keyboardSlips } from './normalize/keyboard.js';
import { addressKeys } from './normalize/address.js';
import { identifierScope, PERSONAL_IDENTIFIER_SYSTEMS } from './normalize/identifier.js';
import type { Demographics } from './stage1-demographics.js';

/** Clear comparison features: field sets plus the tuples the blocking keys are made of. */
export interface MatchFeatures {
  fields: FieldSets;
  /** Identifier (scope, value) pairs: fingerprinted as `<scope>/<value>` (see fields.ts). */
  identifiers?: ReadonlyArray<IdentifierFeature>;
  blocking: ReadonlyArray<{ kind: BlockingKeyKind; parts: readonly string[] }>;
}

export interface IdentifierFeature {
  field: 'identifier' | 'member_id' | 'opaque_id';
  scope: string;
  value: string;
  /** Keying-error forms (see `identifierTypoForms`); none for opaque systems and check-digit systems. */
  typo: readonly string[];
  /** The value with one character dropped (see `identifierDeletions`); none where `typo` has none. */
  deletions: readonly string[];
  /** Two-error forms (see `identifierTwoErrorForms`); none where `typo` has none. */
  twoErrors: readonly string[];
  verified: boolean;
  checkDigitFailed: boolean;
}

/** Values shorter than this get no keying-error forms: one masked digit of a 3-digit number meets too many others. */
const MIN_TYPO_VALUE_LENGTH = 4;
/** Values shorter than this get no two-error forms: two masked digits of a 6-digit number leave 10,000 look-alikes. */
const MIN_TWO_ERROR_VALUE_LENGTH = 7;

/**
 * Keying-error forms of an identifier value: for each position the value with that character
 * masked (`s3:12*45…`), and for each adjacent pair of different characters the value with the pair
 * in order (`t3:…`). Two values share a form iff they are equal or differ by one substitution or one
 * adjacent transposition, so the comparison works on fingerprints. (One inserted or dropped
 * character is found with `identifierDeletions`.)
 */
export function identifierTypoForms(value: string): string[] {
  if (value.length < MIN_TYPO_VALUE_LENGTH) return [];
  const forms: string[] = [];
  for (let i = 0; i < value.length; i++) forms.push(`s${i}:${value.slice(0, i)}*${value.slice(i + 1)}`);
  for (let i = 0; i + 1 < value.length; i++) {
    const a = value[i]!;
    const b = value[i + 1]!;
    if (a === b) continue;
    forms.push(`t${i}:${value.slice(0, i)}${a < b ? a + b : b + a}${value.slice(i + 2)}`);
  }
  return forms;
}

/**
 * The value with one character dropped, for each position (distinct values only): the longer of
 * two values that differ by one inserted or dropped character has the shorter among them. They are
 * keyed like whole values, so the comparison meets one side's deletions with the other's value.
 */
export function identifierDeletions(value: string): string[] {
  if (value.length <= MIN_TYPO_VALUE_LENGTH) return [];
  const forms = new Set<string>();
  for (let i = 0; i < value.length; i++) forms.add(`${value.slice(0, i)}${value.slice(i + 1)}`);
  return [...forms];
}

/**
 * Two-error forms: for each pair of positions the value with both masked (`d2,5:12*45*7`). Two
 * values of one length share a form iff they differ in at most two positions (two substitutions,
 * or a transposition of two different characters). 21 forms for 7 characters, 36 for 9.
 */
export function identifierTwoErrorForms(value: string): string[] {
  if (value.length < MIN_TWO_ERROR_VALUE_LENGTH) return [];
  const forms: string[] = [];
  for (let i = 0; i < value.length; i++) {
    for (let j = i + 1; j < value.length; j++) forms.push(`d${i},${j}:${value.slice(0, i)}*${value.slice(i + 1, j)}*${value.slice(j + 1)}`);
  }
  return forms;
}

/** Keyed form of a record's demographics: what the registry stores and is probed with. */
export interface DemographicFingerprints {
  fields: FieldSets;
  blockingKeys: readonly string[];
}

/** Most nickname combinations kept per blocking-key kind (bounds the key count of "Al", "Jerry"). */
const MAX_COMBINATIONS = 8;

interface NameFeatures {
  exact: string;
  canon: string[];
  tokens: string[];
  typo: string[];
  phonetic: string;
  initial: string;
  keyboard: string[];
}

function nameFeatures(part: FoldedNamePart | null, extraTokens: readonly string[] = []): NameFeatures | null {
  const exact = compactPart(part);
  if (exact === '') return null;
  const first = part?.tokens[0] ?? '';
  const canon = [...new Set([...canonicalGivenNames(exact), ...canonicalGivenNames(first)])];
  const tokens = [...new Set([...significantTokens(part), ...extraTokens])];
  return {
    exact,
    canon,
    tokens,
    typo: deletionNeighbourhood(exact),
    phonetic: nysiis(exact),
    initial: exact[0]!,
    keyboard: keyboardSlips(exact),
  };
}

/**
 * A word split off a name part by an inner space ("Isab elle Smith", "John Smi th") is read as a
 * middle name; the part joined with its neighbouring middle word is compared too, so such a name
 * still meets the record written without the space (and "Mary Ann" meets "Maryann").
 */
function joinedWithMiddle(name: ParsedName, role: 'given' | 'family'): FoldedNamePart | null {
  const part = name[role];
  const middle = name.middle;
  if (!part || !middle || middle.tokens.length === 0) return null;
  const joined = role === 'given' ? [...part.tokens, middle.tokens[0]!] : [middle.tokens[middle.tokens.length - 1]!, ...part.tokens];
  return { text: joined.join(' '), tokens: [joined.join('')] };
}

function compactDate(date: CalendarDate): string {
  return formatIsoDate(date).replaceAll('-', '');
}

/** Stage 2a: clear comparison features and blocking tuples. */
export function extractFeatures(d: Demographics): MatchFeatures {
  const fields: Partial<Record<FieldName, string[]>> = {};
  const blocking: Array<{ kind: BlockingKeyKind; parts: string[] }> = [];
  const put = (field: FieldName, values: Iterable<string>) => {
    const list = [...new Set([...values].filter((v) => v !== ''))];
    if (list.length > 0) fields[field] = list;
  };

  const nameList = [d.name, ...d.previousNames].filter((n) => n !== null);
  const parsedNames = nameList.map((n) => ({
    given: nameFeatures(n.given ?? null, n.middle ? significantTokens(n.middle) : []),
    family: nameFeatures(n.family ?? null),
    joinedGiven: nameFeatures(joinedWithMiddle(n, 'given')),
    joinedFamily: nameFeatures(joinedWithMiddle(n, 'family')),
  }));
  const collect = (field: FieldName, values: Iterable<string>) => {
    const list = [...(fields[field] ?? []), ...values];
    put(field, list);
  };
  for (const { given: g, family: fam, joinedGiven, joinedFamily } of parsedNames) {
    for (const [prefix, f] of [['given', g], ['family', fam]] as const) {
      if (!f) continue;
      collect(`${prefix}` as FieldName, [f.exact]);
      collect(`${prefix}_canon` as FieldName, f.canon);
      collect(`${prefix}_tokens` as FieldName, f.tokens);
      collect(`${prefix}_initial` as FieldName, [f.initial]);
      collect(`${prefix}_typo` as FieldName, f.typo);
      collect(`${prefix}_phonetic` as FieldName, [f.phonetic]);
      collect(`${prefix}_keyboard` as FieldName, f.keyboard);
    }
    // The joined form is one more spelling of the part (not its initial or its tokens).
    for (const [prefix, f] of [['given', joinedGiven], ['family', joinedFamily]] as const) {
      if (!f) continue;
      collect(`${prefix}` as FieldName, [f.exact]);
      collect(`${prefix}_canon` as FieldName, f.canon);
      collect(`${prefix}_typo` as FieldName, f.typo);
      collect(`${prefix}_phonetic` as FieldName, [f.phonetic]);
    }
    // The deterministic name key needs two real names, not an initial; a joined form is one more spelling.
    for (const [gn, fn] of [[g, fam], [joinedGiven, fam], [g, joinedFamily]] as const) {
      if (gn && fn && gn.exact.length >= 2 && fn.exact.length >= 2) collect('full_name', [`${gn.exact} ${fn.exact}`]);
    }
  }

  const dates: string[] = [];
  if (d.dob) {
    const iso = compactDate(d.dob);
    const swapped = swapDayMonth(d.dob);
    dates.push(iso);
    put('dob', [iso]);
    if (swapped) {
      put('dob_swapped', [compactDate(swapped)]);
      dates.push(compactDate(swapped));
    }
    put('dob_typo', deletionNeighbourhood(iso, 1));
    put('dob_year_month', [iso.slice(0, 6)]);
    put('dob_month_day', [iso.slice(4)]);
    put('dob_year', [iso.slice(0, 4)]);
  }

  const emails = d.emails.map((e) => canonicalEmail(e));
  put('email', emails.map((e) => e.address));
  put('email_local', emails.map((e) => e.local));
  put('phone', d.phones.map((p) => p.e164));
  put('phone_tail', d.phones.map((p) => phoneTail(p.nationalNumber)));
  if (d.sex && d.sex !== 'unknown') put('sex', [d.sex]);
  const addresses = d.addresses.map(addressKeys);
  put('address', addresses.flatMap((a) => a.exact));
  put('address_street', addresses.flatMap((a) => a.street));
  const identifiers: IdentifierFeature[] = d.identifiers.map((id) => ({
    field: id.system === 'opaque' ? 'opaque_id' : PERSONAL_IDENTIFIER_SYSTEMS.has(id.system) ? 'identifier' : 'member_id',
    scope: identifierScope(id),
    value: id.value,
    // A check digit catches one substitution and most transpositions: a valid value one keystroke
    // from another valid value is not a keying error; a value failing its check digit is one.
    typo: id.system === 'opaque' || id.system === 'npi' ? [] : identifierTypoForms(id.value),
    deletions: id.system === 'opaque' || id.system === 'npi' ? [] : identifierDeletions(id.value),
    twoErrors: id.system === 'opaque' || id.system === 'npi' ? [] : identifierTwoErrorForms(id.value),
    verified: id.verified,
    checkDigitFailed: id.checkDigitFailed,
  }));

  // Blocking tuples, for the current name and each previous one.
  for (const { given, family, joinedGiven, joinedFamily } of parsedNames) {
    // Joined spellings ("Isab elle" → isabelle) key the name without a DOB as they key it with one
    // (the DOB keys meet through the other name): family + given for each joined form.
    if (family && joinedGiven) for (const c of joinedGiven.canon.slice(0, MAX_COMBINATIONS)) blocking.push({ kind: 'family_given', parts: [family.exact, c] });
    if (joinedFamily && given) for (const c of given.canon.slice(0, MAX_COMBINATIONS)) blocking.push({ kind: 'family_given', parts: [joinedFamily.exact, c] });
    const givenCanon = given ? given.canon.slice(0, MAX_COMBINATIONS) : [];
    const names = new Set<string>([...givenCanon, ...(family ? [family.exact] : [])]);
    for (const name of names) for (const date of dates) blocking.push({ kind: 'name_dob', parts: [name, date] });
    for (const f of [given, family]) if (f) for (const date of dates) blocking.push({ kind: 'dob_phonetic', parts: [f === given ? 'g' : 'f', f.phonetic, date] });
    // One name part missing on one side and a typo in the other: the initial of either part, in
    // whichever field it was sent, with the DOB.
    for (const initial of new Set([given?.initial, family?.initial].filter((x): x is string => !!x))) for (const date of dates) blocking.push({ kind: 'dob_initial', parts: [date, initial] });
    if (given && family) {
      const initials = [given.initial, family.initial].sort().join('');
      for (const date of dates) blocking.push({ kind: 'dob_initials', parts: [date, initials] });
      for (const c of givenCanon) blocking.push({ kind: 'family_given', parts: [family.exact, c] });
      if (d.dob) {
        const iso = compactDate(d.dob);
        for (const c of givenCanon) blocking.push({ kind: 'family_given_ym', parts: [family.exact, c, iso.slice(0, 6)] });
        blocking.push({ kind: 'fphon_ginitial_year', parts: [family.phonetic, given.initial, iso.slice(0, 4)] });
        blocking.push({ kind: 'fphon_gphon_md', parts: [family.phonetic, given.phonetic, iso.slice(4)] });
        // A typo in the family name (its NYSIIS code too) and one in the DOB.
        for (const c of givenCanon) {
          blocking.push({ kind: 'given_finitial_year', parts: [c, family.initial, iso.slice(0, 4)] });
          blocking.push({ kind: 'given_finitial_md', parts: [c, family.initial, iso.slice(4)] });
        }
      }
    }
  }
  for (const email of fields.email ?? []) blocking.push({ kind: 'email', parts: [email] });
  for (const phone of fields.phone ?? []) blocking.push({ kind: 'phone', parts: [phone] });
  for (const id of identifiers) blocking.push({ kind: 'identifier', parts: [id.scope, id.value] });
  for (const a of addresses) for (const key of a.exact) blocking.push({ kind: 'address', parts: [key] });

  return { fields, blocking, identifiers };
}
function keyFeatures(features: MatchFeatures, fingerprinter: Fingerprinter, versions: readonly string[]): DemographicFingerprints {
  const fields: Partial<Record<FieldName, string[]>> = {};
  for (const [field, values] of Object.entries(features.fields) as Array<[FieldName, readonly string[]]>) {
    const domain = FIELD_DOMAINS[field];
    fields[field] = versions.flatMap((v) => values.map((value) => fingerprinter.fingerprint(domain, value, v)));
  }
  const add = (field: FieldName, entries: readonly string[]) => {
    if (entries.length > 0) fields[field] = [...new Set([...(fields[field] ?? []), ...entries])];
  };
  for (const id of features.identifiers ?? []) {
    for (const v of versions) {
      const scope = fingerprinter.fingerprint('identifier.scope', id.scope, v);
      add(id.field, [`${scope}/${fingerprinter.fingerprint(FIELD_DOMAINS[id.field], `${id.scope}|${id.value}`, v)}`]);
      if (id.field === 'opaque_id') continue;
      add(`${id.field}_typo`, id.typo.map((form) => `${scope}/${fingerprinter.fingerprint('identifier.typo', `${id.scope}|${form}`, v)}`));
      // Deletions are keyed as whole values of the scope: they meet the other side's value itself.
      add(`${id.field}_deletion`, id.deletions.map((form) => `${scope}/${fingerprinter.fingerprint(FIELD_DOMAINS[id.field], `${id.scope}|${form}`, v)}`));
      add(`${id.field}_typo2`, id.twoErrors.map((form) => `${scope}/${fingerprinter.fingerprint('identifier.typo2', `${id.scope}|${form}`, v)}`));
      add(`${id.field}_flags`, [...(id.verified ? [`${scope}/verified`] : []), ...(id.checkDigitFailed ? [`${scope}/check_digit_failed`] : [])]);
    }
  }
  const keys = new Set<string>();
  for (const { kind, parts } of features.blocking) {
    for (const v of versions) keys.add(fingerprinter.fingerprint(`block.${kind}`, parts.join('\u001f'), v));
  }
  return { fields, blockingKeys: [...keys] };
}

/**
 * Stage 2b: keyed fingerprints. `write` uses the current key only (what a record stores);
 * `probe` uses every key of the ring (what lookups and scoring compare with), so records written
 * under a previous key are still found during a rotation.
 */
export function fingerprintFeatures(
  features: MatchFeatures,
  fingerprinter: Fingerprinter,
): { write: DemographicFingerprints; probe: DemographicFingerprints } {
  const write = keyFeatures(features, fingerprinter, [fingerprinter.currentVersion]);
  const probe = fingerprinter.versions.length === 1 ? write : keyFeatures(features, fingerprinter, fingerprinter.versions);
  return { write, probe };
}

/** Stage 2 in one call. */
export function fingerprintDemographics(d: Demographics, fingerprinter: Fingerprinter) {
  return fingerprintFeatures(extractFeatures(d), fingerprinter);
}


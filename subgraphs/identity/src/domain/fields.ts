/**
 * The comparison fields of a demographic record and the fingerprint domain of each. A record keeps,
 * per field, a small set of keyed fingerprints (never clear text); two records agree on a field when
 * their sets intersect. Sets let one golden record carry several emails, phones or name spellings
 * learned from its sources, and let one name carry several nickname canonicals.
 *
 * Fields that share a domain are comparable with each other: all name forms share `name`, so a given
 * name can be compared with a family name (swapped order) and an initial with a full name; the
 * birth date and its day/month-swapped form share `dob`.
 */

export const FIELD_DOMAINS = {
  /** given + family, exact after folding: the deterministic name key. */
  full_name: 'name.full',

  given: 'name',
  given_canon: 'name',
  given_tokens: 'name',
  given_initial: 'name',
  given_typo: 'name.typo',
  given_phonetic: 'name.phonetic',
  /** Names of at most three letters: every spelling one QWERTY-adjacent key away (compared with the other side's exact name). */
  given_keyboard: 'name',

  family: 'name',
  family_canon: 'name',
  family_tokens: 'name',
  family_initial: 'name',
  family_typo: 'name.typo',
  family_phonetic: 'name.phonetic',
  family_keyboard: 'name',

  dob: 'dob',
  dob_swapped: 'dob',
  dob_typo: 'dob.typo',
  dob_year_month: 'dob.ym',
  dob_month_day: 'dob.md',
  dob_year: 'dob.y',

  email: 'email',
  email_local: 'email.local',

  phone: 'phone',
  phone_tail: 'phone.tail',

  /** Administrative sex (male, female, other; unknown is not compared). */
  sex: 'sex',
  /** Normalized address with its unit, by postal code and by city + state. */
  address: 'address',
  /** The building: the address without its unit. */
  address_street: 'address.street',
  /**
   * Identifiers of one person (SSN, MRN, driver's licence, passport) and insurance member ids,
   * each entry `<scope fingerprint>/<value fingerprint>` so a comparison can tell an equal value
   * from a different value of the same scope (system + assigner) without the clear text.
   */
  identifier: 'identifier',
  member_id: 'identifier',
  /**
   * Keying-error forms of each identifier without a check digit, `<scope fingerprint>/<form
   * fingerprint>`: the value with one position masked, and with one pair of adjacent characters put
   * in order. Two values of one scope share a form exactly when they differ by one substitution or
   * one adjacent transposition.
   */
  identifier_typo: 'identifier.typo',
  member_id_typo: 'identifier.typo',
  /**
   * Each identifier value with one character dropped, keyed like a whole value of its scope
   * (`<scope fingerprint>/<value fingerprint>`): one side's deletion equal to the other side's
   * value is one inserted or dropped character.
   */
  identifier_deletion: 'identifier',
  member_id_deletion: 'identifier',
  /**
   * Two-error forms of each identifier of at least 7 characters without a check digit: the value
   * with two positions masked. Two values share one when they differ in at most two positions.
   */
  identifier_typo2: 'identifier.typo2',
  member_id_typo2: 'identifier.typo2',
  /**
   * Per scope, what the source said of its value: `<scope fingerprint>/verified` (checked against a
   * document or an authority) and `<scope fingerprint>/check_digit_failed` (an NPI failing Luhn).
   */
  identifier_flags: 'identifier',
  member_id_flags: 'identifier',
  /** Identifiers of a system URI the registry does not know: `<system fingerprint>/<value fingerprint>`, exact equality only. */
  opaque_id: 'identifier',
} as const;

export type FieldName = keyof typeof FIELD_DOMAINS;

export const FIELD_NAMES = Object.keys(FIELD_DOMAINS) as FieldName[];

/** Per-field value sets: clear text while being computed, fingerprints once stored. */
export type FieldSets = Partial<Record<FieldName, readonly string[]>>;

/** The blocking-key kinds: each is one index the registry can be probed with. */
export const BLOCKING_KEY_KINDS = [
  'name_dob',
  'dob_initials',
  'family_given_ym',
  'fphon_ginitial_year',
  'fphon_gphon_md',
  'family_given',
  'dob_phonetic',
  'dob_initial',
  'given_finitial_year',
  'given_finitial_md',
  'email',
  'phone',
  'identifier',
  'address',
] as const;

export type BlockingKeyKind = (typeof BLOCKING_KEY_KINDS)[number];

/** True when the two sets share at least one value. */
export function intersects(a: readonly string[] | undefined, b: readonly string[] | undefined): boolean {
  if (!a || !b || a.length === 0 || b.length === 0) return false;
  if (a.length * b.length <= 64) {
    for (const x of a) for (const y of b) if (x === y) return true;
    return false;
  }
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  const set = new Set(large);
  return small.some((x) => set.has(x));
}

export function hasValues(a: readonly string[] | undefined): boolean {
  return a !== undefined && a.length > 0;
}

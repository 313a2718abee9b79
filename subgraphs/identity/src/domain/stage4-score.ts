/**
 * Stage 4 — confidence score. Compares the request's field fingerprints with a candidate's, on
 * fingerprints only, and turns the agreement pattern into a confidence in [0, 1] with a
 * Fellegi–Sunter model:
 *
 *   each comparison (given name, family name, DOB, email, phone) lands on one level, the first that
 *   agrees in its ordered list, or "disagree", or "missing" when either side lacks the field;
 *   level weight = log2(m / u), where m = P(level | same person), u = P(level | different people);
 *   disagreement weight = log2((1 − Σm) / (1 − Σu)); missing weighs 0;
 *   confidence = 1 / (1 + 2^−(Σ weights + prior log2 odds)).
 *
 * Two corrections to the independence assumption, both measured on the benchmark's households:
 * names are also compared crosswise (given ↔ family) for an unmarked order swap, at a fixed
 * penalty; and an email/phone agreement adds at most `dependentContactCapLog2` when the given name
 * agrees only weakly (disagree, phonetic, shared token) or the birth date disagrees, because
 * relatives share a phone and an inbox (twins, Jr/Sr) and that agreement is then little evidence.
 *
 * One person has at most one record, so the candidates of a request compete: the reported
 * confidence of candidate i is odds_i / (1 + Σ_j odds_j) over all scored candidates, where odds is
 * the pairwise posterior odds. Two equally good candidates therefore share the probability instead
 * of both looking certain; `pairConfidence` keeps the pairwise value (used for duplicate detection).
 *
 * DETERMINISTIC is a rule, not a score: exact folded full name + exact DOB + exact email or phone.
 */
import type { IdentityStatus, MatchType, SourceOrigin } from './enums.js';
import { hasValues, intersects, type FieldName, type FieldSets } from './fields.js';

/**
 * `keyboard`: a name of at most three letters one QWERTY-adjacent key away ("amy" ~ "amu"); it only
 * counts when the DOB and an email or phone agree exactly and sex does not disagree, else the
 * comparison is `disagree` (a one-key difference in a three-letter name is also another name).
 */
export type NameLevel = 'exact' | 'nickname' | 'typo' | 'keyboard' | 'token' | 'phonetic' | 'initial' | 'disagree' | 'missing';
export type DobLevel = 'exact' | 'swapped' | 'typo' | 'year_month' | 'month_day' | 'year' | 'disagree' | 'missing';
export type ContactLevel = 'exact' | 'partial' | 'disagree' | 'missing';
export type SexLevel = 'exact' | 'disagree' | 'missing';
export type AddressLevel = 'exact' | 'street' | 'disagree' | 'missing';
/**
 * Over the scopes (system + assigner) both sides hold: `conflict` when one scope has different
 * values that are no keying error (an unrelated number); else `exact` when one scope has an equal
 * value; else `typo` (a probable keying error: one substitution, one adjacent transposition, or one
 * inserted or dropped character of a value without a check digit, or a value failing its check
 * digit); else `typo2` (two keying errors: values of at least 7 characters differing in two
 * positions), weighed with its own m/u but no conflict; `missing` when no scope is shared.
 */
export type IdentifierLevel = 'exact' | 'typo' | 'typo2' | 'conflict' | 'missing';
/**
 * Hard rules that forbid an automatic link whatever the weights say: a true identifier conflict; a
 * keying-error difference on an identifier its source flagged as verified; twins; namesakes (the
 * same given name and a different family name with nothing but the birth date to join them).
 */
export type LinkBlock = 'identifier_conflict' | 'verified_identifier_conflict' | 'twins' | 'different_family_name';

export interface ProbabilityPair {
  /** P(level | same person). */
  m: number;
  /** P(level | different people). */
  u: number;
}

/** Comparisons whose exact agreement is weighed by the frequency of the shared value. */
export const TERM_FREQUENCY_FIELDS = ['given', 'family', 'address'] as const;
export type TermFrequencyField = (typeof TERM_FREQUENCY_FIELDS)[number];

export interface ScoringModel {
  /** Model version: 1 is this hand-set default; trained models are numbered by the registry. */
  version: number;
  given: Record<'exact' | 'nickname' | 'typo' | 'keyboard' | 'token' | 'phonetic' | 'initial', ProbabilityPair>;
  family: Record<'exact' | 'typo' | 'keyboard' | 'token' | 'phonetic', ProbabilityPair>;
  dob: Record<'exact' | 'swapped' | 'typo' | 'year_month' | 'month_day' | 'year', ProbabilityPair>;
  /** exact: same canonical mailbox; partial: same local part at another provider. */
  email: Record<'exact' | 'partial', ProbabilityPair>;
  /** exact: same E.164; partial: same last seven digits. */
  phone: Record<'exact' | 'partial', ProbabilityPair>;
  /** Administrative sex. */
  sex: Record<'exact', ProbabilityPair>;
  /** exact: same address and unit; street: same building, unit different or missing. */
  address: Record<'exact' | 'street', ProbabilityPair>;
  /**
   * SSN, MRN, driver's licence, passport, NPI; typo = a probable keying error, typo2 = two keying
   * errors; disagreement = a true conflict in a shared scope.
   */
  identifier: Record<'exact' | 'typo' | 'typo2', ProbabilityPair>;
  /** Insurance member ids (a family plan may share one: capped like contact data). */
  memberId: Record<'exact' | 'typo' | 'typo2', ProbabilityPair>;
  /** log2 of P(given and family swapped | same person), the penalty of a crosswise name match. */
  swappedOrderLog2: number;
  /** log2 prior odds that a blocked candidate is the same person. */
  priorLog2Odds: number;
  /**
   * Most an email or phone agreement may add when the given name agrees only weakly (disagree,
   * phonetic, shared token) or the DOB disagrees: relatives share phones and inboxes.
   */
  dependentContactCapLog2: number;
  /**
   * Term frequencies: for the common values of a field (keyed fingerprints, never clear text), the
   * share of records holding it. An exact agreement on such a value weighs log2(m / max(u, tf))
   * instead of log2(m / u): two Smiths agree more often by chance than two Okonkwos. Only values
   * more frequent than `u` are kept, so the adjustment only ever lowers a weight.
   */
  termFrequencies?: Partial<Record<TermFrequencyField, Record<string, number>>>;
}

/**
 * Default model (version 1). m values follow the error rates seen in registration data (and the benchmark's
 * corruption mix); u values are population frequencies for a US-like registry.
 */
export const DEFAULT_SCORING_MODEL: ScoringModel = {
  version: 1,
  given: {
    exact: { m: 0.8, u: 0.008 },
    nickname: { m: 0.07, u: 0.002 },
    // keyboard's m is taken from typo's, so the disagreement weight stays what it was.
    typo: { m: 0.055, u: 0.002 },
    keyboard: { m: 0.005, u: 0.001 },
    token: { m: 0.02, u: 0.001 },
    phonetic: { m: 0.02, u: 0.005 },
    initial: { m: 0.01, u: 0.002 },
  },
  family: {
    exact: { m: 0.84, u: 0.002 },
    typo: { m: 0.068, u: 0.001 },
    keyboard: { m: 0.002, u: 0.0002 },
    token: { m: 0.03, u: 0.0005 },
    phonetic: { m: 0.02, u: 0.002 },
  },
  // u values measured on uniformly drawn birth dates over 95 years (deletion-neighbourhood typo).
  dob: {
    exact: { m: 0.85, u: 0.00003 },
    swapped: { m: 0.03, u: 0.000015 },
    typo: { m: 0.07, u: 0.0017 },
    year_month: { m: 0.01, u: 0.0004 },
    month_day: { m: 0.01, u: 0.002 },
    year: { m: 0.01, u: 0.009 },
  },
  email: {
    exact: { m: 0.7, u: 0.000001 },
    partial: { m: 0.05, u: 0.0001 },
  },
  phone: {
    exact: { m: 0.7, u: 0.000001 },
    partial: { m: 0.05, u: 0.00001 },
  },
  sex: { exact: { m: 0.97, u: 0.5 } },
  // One address in a million; 60% of a person's records carry the same address and unit.
  address: {
    exact: { m: 0.6, u: 0.000001 },
    street: { m: 0.1, u: 0.00001 },
  },
  // A shared scope with an equal value: almost always the same person; one keystroke away (3% of
  // a person's records), rarely two people (u: the values one substitution or transposition from a
  // 9-digit number, among a million); two keying errors (1%; u: the 2,900 values two positions
  // from a 9-digit number, among a billion: 0.000003, a 7-digit one's 1,800 among ten million); anything
  // else a conflict (3%), which blocks an automatic link.
  identifier: { exact: { m: 0.93, u: 0.0000001 }, typo: { m: 0.03, u: 0.000001 }, typo2: { m: 0.01, u: 0.00002 } },
  memberId: { exact: { m: 0.88, u: 0.000001 }, typo: { m: 0.02, u: 0.00001 }, typo2: { m: 0.005, u: 0.0001 } },
  swappedOrderLog2: -4,
  priorLog2Odds: -20,
  dependentContactCapLog2: 2,
};

/**
 * A model stored before identifiers had their keying-error levels (identifier and memberId with
 * `exact` only, or without `typo2`) scores with the built-in levels added; its own levels and
 * everything else are kept. Stored parameters are not rewritten: upgrading is done when a model is read.
 */
export function upgradeScoringModel(model: ScoringModel): ScoringModel {
  const stored = model as ScoringModel & { identifier: Partial<ScoringModel['identifier']>; memberId: Partial<ScoringModel['memberId']> };
  if (stored.identifier.typo && stored.identifier.typo2 && stored.memberId.typo && stored.memberId.typo2) return model;
  return {
    ...model,
    identifier: { ...DEFAULT_SCORING_MODEL.identifier, ...stored.identifier },
    memberId: { ...DEFAULT_SCORING_MODEL.memberId, ...stored.memberId },
  };
}

/** Which level each comparison landed on: the explanation shown with a candidate. */
export interface Agreement {
  given: NameLevel;
  family: NameLevel;
  nameOrder: 'straight' | 'swapped';
  dob: DobLevel;
  email: ContactLevel;
  phone: ContactLevel;
  sex: SexLevel;
  address: AddressLevel;
  identifier: IdentifierLevel;
  memberId: IdentifierLevel;
  /** True when contact agreement was capped (weak given-name agreement or DOB disagreement). */
  contactDiscounted: boolean;
  /** True when the address agreement was capped: it counts fully only with a given name that agrees (exact, nickname, typo). */
  addressDiscounted: boolean;
  /** The hard rule that forbids linking automatically, or null. */
  blockedBy: LinkBlock | null;
  /**
   * Weight of each comparison in bits (they add up to the candidate's weight); `nameOrder` is the
   * penalty of a crosswise name match (0 in straight order).
   */
  weights: Record<WeightedComparison, number>;
  /** Bits taken off an exact agreement on a common value (term frequency), included in `weights`. */
  termFrequency: Partial<Record<TermFrequencyField, number>>;
  /** The scoring model's version. */
  modelVersion: number;
  /** log2 prior odds of the model: Σ weights + prior = `log2Odds`. */
  priorLog2Odds: number;
  /** Pairwise log2 posterior odds, rounded to 1e-6. */
  log2Odds: number;
  /** Pairwise confidence 1 / (1 + 2^−log2Odds), four decimals (the candidate's own, without competitors). */
  pairConfidence: number;
}

export const WEIGHTED_COMPARISONS = ['given', 'family', 'nameOrder', 'dob', 'email', 'phone', 'sex', 'address', 'identifier', 'memberId'] as const;
export type WeightedComparison = (typeof WEIGHTED_COMPARISONS)[number];

export interface CandidateScore {
  /** Σ weights (log2 likelihood ratio). */
  weight: number;
  /** Posterior probability of a match, in [0, 1]. */
  confidence: number;
  deterministic: boolean;
  agreement: Agreement;
}

export interface ScoredCandidate extends CandidateScore {
  gpid: string;
  status: IdentityStatus;
  sources: readonly SourceOrigin[];
  matchType: MatchType;
  /** Pairwise confidence of this candidate alone, ignoring the other candidates. */
  pairConfidence: number;
  keyHits: number;
}

/** Thresholds on the confidence. */
export interface MatchThresholds {
  /** At or above: PARTIAL in Match, and a review link (PROVISIONAL) in Resolve. */
  partial: number;
  /** At or above: Resolve returns the existing GPID. */
  autoLink: number;
  /** Match lists candidates at or above this (as NONE when below `partial`). */
  candidateFloor: number;
}

export const DEFAULT_THRESHOLDS: MatchThresholds = {
  partial: 0.5,
  autoLink: 0.9,
  candidateFloor: 0.05,
};

interface Weights {
  level: Record<string, number>;
  disagree: number;
}

function weightsOf(pairs: Record<string, ProbabilityPair>): Weights {
  const level: Record<string, number> = {};
  let sumM = 0;
  let sumU = 0;
  for (const [name, { m, u }] of Object.entries(pairs)) {
    level[name] = Math.log2(m / u);
    sumM += m;
    sumU += u;
  }
  const disagree = Math.log2(Math.max(1 - sumM, 1e-6) / Math.max(1 - sumU, 1e-6));
  return { level, disagree };
}

interface CompiledModel {
  given: Weights;
  family: Weights;
  dob: Weights;
  email: Weights;
  phone: Weights;
  sex: Weights;
  address: Weights;
  identifier: Weights;
  memberId: Weights;
  swappedOrderLog2: number;
  priorLog2Odds: number;
  dependentContactCapLog2: number;
}

const compiled = new WeakMap<ScoringModel, CompiledModel>();

function compile(model: ScoringModel): CompiledModel {
  let c = compiled.get(model);
  if (!c) {
    c = {
      given: weightsOf(model.given),
      family: weightsOf(model.family),
      dob: weightsOf(model.dob),
      email: weightsOf(model.email),
      phone: weightsOf(model.phone),
      sex: weightsOf(model.sex),
      address: weightsOf(model.address),
      identifier: weightsOf(model.identifier),
      memberId: weightsOf(model.memberId),
      swappedOrderLog2: model.swappedOrderLog2,
      priorLog2Odds: model.priorLog2Odds,
      dependentContactCapLog2: model.dependentContactCapLog2,
    };
    compiled.set(model, c);
  }
  return c;
}

function weightOf(w: Weights, level: string): number {
  if (level === 'missing') return 0;
  if (level === 'disagree') return w.disagree;
  return w.level[level] ?? 0;
}

type NamePrefix = 'given' | 'family';

function f(sets: FieldSets, prefix: NamePrefix, suffix: '' | '_canon' | '_tokens' | '_initial' | '_typo' | '_phonetic' | '_keyboard') {
  return sets[`${prefix}${suffix}` as FieldName];
}

/** Compares part `pa` of `a` with part `pb` of `b` at the levels of `role`. */
function compareNamePart(a: FieldSets, pa: NamePrefix, b: FieldSets, pb: NamePrefix, role: NamePrefix): NameLevel {
  if (!hasValues(f(a, pa, '')) || !hasValues(f(b, pb, ''))) return 'missing';
  if (intersects(f(a, pa, ''), f(b, pb, ''))) return 'exact';
  if (role === 'given' && intersects(f(a, pa, '_canon'), f(b, pb, '_canon'))) return 'nickname';
  if (intersects(f(a, pa, '_typo'), f(b, pb, '_typo'))) return 'typo';
  if (intersects(f(a, pa, ''), f(b, pb, '_keyboard')) || intersects(f(a, pa, '_keyboard'), f(b, pb, ''))) return 'keyboard';
  if (intersects(f(a, pa, '_tokens'), f(b, pb, '_tokens'))) return 'token';
  if (intersects(f(a, pa, '_phonetic'), f(b, pb, '_phonetic'))) return 'phonetic';
  if (
    role === 'given' &&
    (intersects(f(a, pa, ''), f(b, pb, '_initial')) || intersects(f(a, pa, '_initial'), f(b, pb, '')))
  ) {
    return 'initial';
  }
  return 'disagree';
}

function compareDob(a: FieldSets, b: FieldSets): DobLevel {
  if (!hasValues(a.dob) || !hasValues(b.dob)) return 'missing';
  if (intersects(a.dob, b.dob)) return 'exact';
  if (intersects(a.dob, b.dob_swapped) || intersects(a.dob_swapped, b.dob)) return 'swapped';
  if (intersects(a.dob_typo, b.dob_typo)) return 'typo';
  if (intersects(a.dob_year_month, b.dob_year_month)) return 'year_month';
  if (intersects(a.dob_month_day, b.dob_month_day)) return 'month_day';
  if (intersects(a.dob_year, b.dob_year)) return 'year';
  return 'disagree';
}

function compareContact(
  a: readonly string[] | undefined,
  b: readonly string[] | undefined,
  aPartial: readonly string[] | undefined,
  bPartial: readonly string[] | undefined,
): ContactLevel {
  if (!hasValues(a) || !hasValues(b)) return 'missing';
  if (intersects(a, b)) return 'exact';
  if (intersects(aPartial, bPartial)) return 'partial';
  return 'disagree';
}

function compareSimple(a: readonly string[] | undefined, b: readonly string[] | undefined): SexLevel {
  if (!hasValues(a) || !hasValues(b)) return 'missing';
  return intersects(a, b) ? 'exact' : 'disagree';
}

function compareAddress(a: FieldSets, b: FieldSets): AddressLevel {
  if (!hasValues(a.address) || !hasValues(b.address)) return 'missing';
  if (intersects(a.address, b.address)) return 'exact';
  if (intersects(a.address_street, b.address_street)) return 'street';
  return 'disagree';
}

/** Identifier entries are `<scope>/<value>`: grouped by scope. */
function byScope(entries: readonly string[]): Map<string, Set<string>> {
  const map = new Map<string, Set<string>>();
  for (const entry of entries) {
    const cut = entry.indexOf('/');
    if (cut < 0) continue;
    const scope = entry.slice(0, cut);
    let values = map.get(scope);
    if (!values) map.set(scope, (values = new Set()));
    values.add(entry.slice(cut + 1));
  }
  return map;
}

type IdentifierField = 'identifier' | 'member_id';

function shares(a: Set<string> | undefined, b: Set<string> | undefined): boolean {
  if (!a || !b) return false;
  for (const x of a) if (b.has(x)) return true;
  return false;
}

/**
 * Compares the identifiers of one field scope by scope (see `IdentifierLevel`). `verifiedTypo`: a
 * keying-error difference in a scope that either side's source flagged as verified.
 */
function compareIdentifiers(a: FieldSets, b: FieldSets, field: IdentifierField): { level: IdentifierLevel; verifiedTypo: boolean } {
  const ea = a[field];
  const eb = b[field];
  if (!hasValues(ea) || !hasValues(eb)) return { level: 'missing', verifiedTypo: false };
  const left = byScope(ea!);
  const right = byScope(eb!);
  const typoLeft = byScope(a[`${field}_typo`] ?? []);
  const typoRight = byScope(b[`${field}_typo`] ?? []);
  const deletionLeft = byScope(a[`${field}_deletion`] ?? []);
  const deletionRight = byScope(b[`${field}_deletion`] ?? []);
  const typo2Left = byScope(a[`${field}_typo2`] ?? []);
  const typo2Right = byScope(b[`${field}_typo2`] ?? []);
  const flagsLeft = byScope(a[`${field}_flags`] ?? []);
  const flagsRight = byScope(b[`${field}_flags`] ?? []);
  const flagged = (scope: string, flag: string) => flagsLeft.get(scope)?.has(flag) === true || flagsRight.get(scope)?.has(flag) === true;
  let exact = false;
  let typo = false;
  let typo2 = false;
  let verifiedTypo = false;
  for (const [scope, values] of left) {
    const other = right.get(scope);
    if (!other) continue;
    if (shares(values, other)) exact = true;
    else if (
      shares(typoLeft.get(scope), typoRight.get(scope)) ||
      shares(deletionLeft.get(scope), other) ||
      shares(values, deletionRight.get(scope)) ||
      flagged(scope, 'check_digit_failed')
    ) {
      typo = true;
      if (flagged(scope, 'verified')) verifiedTypo = true;
    } else if (shares(typo2Left.get(scope), typo2Right.get(scope))) {
      typo2 = true;
      if (flagged(scope, 'verified')) verifiedTypo = true;
    } else return { level: 'conflict', verifiedTypo: false };
  }
  return { level: exact ? 'exact' : typo ? 'typo' : typo2 ? 'typo2' : 'missing', verifiedTypo };
}

/** Converts a log2 likelihood ratio plus prior into a probability. */
export function confidenceOf(weight: number, priorLog2Odds: number): number {
  const x = weight + priorLog2Odds;
  if (x > 60) return 1;
  if (x < -60) return 0;
  return 1 / (1 + 2 ** -x);
}

/**
 * Bits an exact agreement loses because the shared value is common: log2(max(u, tf) / u) for the
 * most frequent value both sides hold (0 without a term-frequency table or for a rare value).
 */
function termFrequencyPenalty(model: ScoringModel, field: TermFrequencyField, u: number, a: readonly string[] | undefined, b: readonly string[] | undefined): number {
  const table = model.termFrequencies?.[field];
  if (!table || !a || !b) return 0;
  const other = new Set(b);
  let tf = 0;
  for (const value of a) if (other.has(value)) tf = Math.max(tf, table[value] ?? 0);
  return tf > u ? Math.log2(tf / u) : 0;
}

function round(x: number, digits: 4 | 6): number {
  const f = digits === 6 ? 1e6 : 1e4;
  return Math.round(x * f) / f;
}

/** Scores one candidate against the request. Both sides are fingerprint sets. */
export function scoreFingerprints(input: FieldSets, candidate: FieldSets, model: ScoringModel = DEFAULT_SCORING_MODEL): CandidateScore {
  const w = compile(model);

  const dob = compareDob(input, candidate);
  const email = compareContact(input.email, candidate.email, input.email_local, candidate.email_local);
  const phone = compareContact(input.phone, candidate.phone, input.phone_tail, candidate.phone_tail);
  const sex = compareSimple(input.sex, candidate.sex);
  const address = compareAddress(input, candidate);
  const identifierComparison = compareIdentifiers(input, candidate, 'identifier');
  const memberIdComparison = compareIdentifiers(input, candidate, 'member_id');
  const identifier = identifierComparison.level;
  // An identifier of a system the registry does not know counts only when equal, like a member id
  // (it may be a household's or an account's number).
  const memberId: IdentifierLevel = memberIdComparison.level === 'missing' && intersects(input.opaque_id, candidate.opaque_id) ? 'exact' : memberIdComparison.level;
  // A one-key difference in a short name is a typo only when the rest says it is the same person.
  const keyboardCounts = dob === 'exact' && (email === 'exact' || phone === 'exact') && sex !== 'disagree';
  const gate = (level: NameLevel): NameLevel => (level === 'keyboard' && !keyboardCounts ? 'disagree' : level);
  const namePart = (a: FieldSets, pa: NamePrefix, b: FieldSets, pb: NamePrefix, role: NamePrefix) => gate(compareNamePart(a, pa, b, pb, role));

  // Names: straight, and crosswise when both sides have both parts.
  let given = namePart(input, 'given', candidate, 'given', 'given');
  let family = namePart(input, 'family', candidate, 'family', 'family');
  const tfGiven = given === 'exact' ? termFrequencyPenalty(model, 'given', model.given.exact.u, input.given, candidate.given) : 0;
  const tfFamily = family === 'exact' ? termFrequencyPenalty(model, 'family', model.family.exact.u, input.family, candidate.family) : 0;
  let givenWeight = weightOf(w.given, given) - tfGiven;
  let familyWeight = weightOf(w.family, family) - tfFamily;
  let orderWeight = 0;
  let nameOrder: Agreement['nameOrder'] = 'straight';
  const termFrequency: Partial<Record<TermFrequencyField, number>> = {};
  if (given !== 'exact' && hasValues(input.given) && hasValues(input.family) && hasValues(candidate.given) && hasValues(candidate.family)) {
    // input.family holds the given name and input.given the family name.
    const crossGiven = namePart(input, 'family', candidate, 'given', 'given');
    const crossFamily = namePart(input, 'given', candidate, 'family', 'family');
    const crossGivenWeight = weightOf(w.given, crossGiven);
    const crossFamilyWeight = weightOf(w.family, crossFamily);
    if (crossGivenWeight + crossFamilyWeight + w.swappedOrderLog2 > givenWeight + familyWeight) {
      given = crossGiven;
      family = crossFamily;
      givenWeight = crossGivenWeight;
      familyWeight = crossFamilyWeight;
      orderWeight = w.swappedOrderLog2;
      nameOrder = 'swapped';
    }
  }
  if (nameOrder === 'straight') {
    if (tfGiven > 0) termFrequency.given = round(-tfGiven, 6);
    if (tfFamily > 0) termFrequency.family = round(-tfFamily, 6);
  }

  // A phonetic-only or shared-token given-name agreement (Jean ~ James, a sibling's middle name) is
  // what relatives sharing a phone look like; so is a different DOB with the same name (Jr/Sr).
  const contactDiscounted = given === 'disagree' || given === 'phonetic' || given === 'token' || dob === 'disagree';
  const capped = (value: number, discounted: boolean) => (discounted ? Math.min(value, w.dependentContactCapLog2) : value);
  const contactWeight = (weights: Weights, level: ContactLevel) => capped(weightOf(weights, level), contactDiscounted);
  // A household shares its address: it only corroborates a given name that agrees.
  const strongGiven = given === 'exact' || given === 'nickname' || given === 'typo' || given === 'keyboard';
  const addressDiscounted = !strongGiven || dob === 'disagree';
  const idWeight = (weights: Weights, level: IdentifierLevel) => (level === 'missing' ? 0 : level === 'conflict' ? weights.disagree : (weights.level[level] ?? 0));
  const tfAddress = address === 'exact' ? termFrequencyPenalty(model, 'address', model.address.exact.u, input.address, candidate.address) : 0;
  if (tfAddress > 0) termFrequency.address = round(-tfAddress, 6);

  const weights: Record<WeightedComparison, number> = {
    given: givenWeight,
    family: familyWeight,
    nameOrder: orderWeight,
    dob: weightOf(w.dob, dob),
    email: contactWeight(w.email, email),
    phone: contactWeight(w.phone, phone),
    sex: weightOf(w.sex, sex),
    address: capped(weightOf(w.address, address) - tfAddress, addressDiscounted),
    identifier: idWeight(w.identifier, identifier),
    memberId: capped(idWeight(w.memberId, memberId), contactDiscounted),
  };
  const weight =
    weights.given + weights.family + weights.nameOrder + weights.dob + weights.email + weights.phone + weights.sex + weights.address + weights.identifier + weights.memberId;

  // Hard rules. Conflicting identifiers of one scope (a keying error is no conflict, unless the
  // source flagged the identifier as verified); twins: same family name and birth date with
  // different given names and no agreeing personal identifier (whatever else they share: an
  // address, a phone, a member id of the family plan). Twins have two SSNs: an equal one says one
  // person whose given name was replaced or is another name in use. Given names that agree at any
  // level (a shared token is often the middle name in use, a phonetic agreement a misspelling; an
  // initial) are not different names: such pairs reached the link threshold before these fields
  // existed and still do.
  const sameFamily = family === 'exact' || family === 'typo';
  const twins = sameFamily && dob === 'exact' && given === 'disagree' && identifier !== 'exact';
  // Namesakes: a family name that disagrees at every level, with a given name and a birth date
  // that agree, is two people as often as one person whose family name was replaced (a marriage, a
  // data-entry error): a registry of millions holds many "Aidan"s born on one day. Something that
  // belongs to one person (an identifier, an address, an e-mail, a phone) must say it is one.
  const corroborated =
    identifier === 'exact' ||
    identifier === 'typo' ||
    memberId === 'exact' ||
    (!addressDiscounted && (address === 'exact' || address === 'street')) ||
    email === 'exact' ||
    phone === 'exact';
  const namesakes = family === 'disagree' && given !== 'disagree' && given !== 'missing' && dob !== 'missing' && dob !== 'disagree' && !corroborated;
  const blockedBy: LinkBlock | null =
    identifier === 'conflict' || memberId === 'conflict'
      ? 'identifier_conflict'
      : identifierComparison.verifiedTypo || memberIdComparison.verifiedTypo
        ? 'verified_identifier_conflict'
        : twins
          ? 'twins'
          : namesakes
            ? 'different_family_name'
            : null;

  const deterministic =
    blockedBy === null && intersects(input.full_name, candidate.full_name) && dob === 'exact' && (email === 'exact' || phone === 'exact');

  const confidence = confidenceOf(weight, w.priorLog2Odds);
  return {
    weight,
    confidence,
    deterministic,
    agreement: {
      given,
      family,
      nameOrder,
      dob,
      email,
      phone,
      sex,
      address,
      identifier,
      memberId,
      contactDiscounted,
      addressDiscounted,
      blockedBy,
      weights: {
        given: round(weights.given, 6),
        family: round(weights.family, 6),
        nameOrder: round(weights.nameOrder, 6),
        dob: round(weights.dob, 6),
        email: round(weights.email, 6),
        phone: round(weights.phone, 6),
        sex: round(weights.sex, 6),
        address: round(weights.address, 6),
        identifier: round(weights.identifier, 6),
        memberId: round(weights.memberId, 6),
      },
      termFrequency,
      modelVersion: model.version,
      priorLog2Odds: w.priorLog2Odds,
      log2Odds: round(weight + w.priorLog2Odds, 6),
      pairConfidence: round(confidence, 4),
    },
  };
}

/** The match type of one scored candidate. */
export function matchTypeOf(score: CandidateScore, thresholds: MatchThresholds = DEFAULT_THRESHOLDS): MatchType {
  if (score.deterministic) return 'DETERMINISTIC';
  return score.confidence >= thresholds.partial ? 'PARTIAL' : 'NONE';
}

/**
 * Stage 4 over all candidates: scored, competing for the one true match, best first
 * (DETERMINISTIC, then weight, then GPID). `confidence` is normalized across the candidates,
 * `pairConfidence` is each candidate's own.
 */
export function scoreCandidates(
  input: FieldSets,
  candidates: ReadonlyArray<{
    record: { gpid: string; status: IdentityStatus; sources: readonly SourceOrigin[]; fields: FieldSets };
    keyHits: number;
  }>,
  options: { model?: ScoringModel; thresholds?: MatchThresholds } = {},
): ScoredCandidate[] {
  const model = options.model ?? DEFAULT_SCORING_MODEL;
  const thresholds = options.thresholds ?? DEFAULT_THRESHOLDS;
  const scored = candidates.map(({ record, keyHits }) => ({ record, keyHits, score: scoreFingerprints(input, record.fields, model) }));

  // Posterior over "candidate i is the person" and "none is": log2 odds x_i, normalized stably.
  const xs = scored.map(({ score }) => score.weight + model.priorLog2Odds);
  const top = Math.max(0, ...xs);
  const denominator = 2 ** -top + xs.reduce((sum, x) => sum + 2 ** (x - top), 0);

  return scored
    .map(({ record, keyHits, score }, i) => {
      const confidence = 2 ** (xs[i]! - top) / denominator;
      const normalized = { ...score, confidence };
      return {
        ...normalized,
        gpid: record.gpid,
        status: record.status,
        sources: record.sources,
        matchType: matchTypeOf(normalized, thresholds),
        pairConfidence: score.confidence,
        keyHits,
      };
    })
    .sort(
      (x, y) =>
        Number(y.deterministic) - Number(x.deterministic) ||
        y.weight - x.weight ||
        (x.gpid < y.gpid ? -1 : x.gpid > y.gpid ? 1 : 0),
    );
}

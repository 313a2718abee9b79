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
 *   email                 canonical email                                    name and DOB both off
 *   phone                 E.164 phone                                        name and DOB both off
 */
import { FIELD_DOMAINS, type BlockingKeyKind, type FieldName, type FieldSets } from './fields.js';
import { Fingerprinter } from './fingerprint.js';
import { formatIsoDate, swapDayMonth, type CalendarDate } from './normalize/dob.js';
import { canonicalEmail } from './normalize/email.js';
import { compactPart, significantTokens, type FoldedNamePart } from './normalize/names.js';
import { canonicalGivenNames } from './normalize/nicknames.js';
import { nysiis } from './normalize/phonetic.js';
import { phoneTail } from './normalize/phone.js';
import { deletionNeighbourhood } from './normalize/text.js';
import type { Demographics } from './stage1-demographics.js';

/** Clear comparison features: field sets plus the tuples the blocking keys are made of. */
export interface MatchFeatures {
  fields: FieldSets;
  blocking: ReadonlyArray<{ kind: BlockingKeyKind; parts: readonly string[] }>;
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
  };
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

  const middleTokens = d.name?.middle ? significantTokens(d.name.middle) : [];
  const given = nameFeatures(d.name?.given ?? null, middleTokens);
  const family = nameFeatures(d.name?.family ?? null);

  for (const [prefix, f] of [['given', given], ['family', family]] as const) {
    if (!f) continue;
    put(`${prefix}` as FieldName, [f.exact]);
    put(`${prefix}_canon` as FieldName, f.canon);
    put(`${prefix}_tokens` as FieldName, f.tokens);
    put(`${prefix}_initial` as FieldName, [f.initial]);
    put(`${prefix}_typo` as FieldName, f.typo);
    put(`${prefix}_phonetic` as FieldName, [f.phonetic]);
  }
  // The deterministic name key needs two real names, not an initial.
  if (given && family && given.exact.length >= 2 && family.exact.length >= 2) {
    put('full_name', [`${given.exact} ${family.exact}`]);
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

  if (d.email) {
    const email = canonicalEmail(d.email);
    put('email', [email.address]);
    put('email_local', [email.local]);
  }
  if (d.phone) {
    put('phone', [d.phone.e164]);
    put('phone_tail', [phoneTail(d.phone.nationalNumber)]);
  }

  // Blocking tuples.
  const givenCanon = given ? given.canon.slice(0, MAX_COMBINATIONS) : [];
  const names = new Set<string>([...givenCanon, ...(family ? [family.exact] : [])]);
  for (const name of names) for (const date of dates) blocking.push({ kind: 'name_dob', parts: [name, date] });
  if (given && family) {
    const initials = [given.initial, family.initial].sort().join('');
    for (const date of dates) blocking.push({ kind: 'dob_initials', parts: [date, initials] });
    for (const c of givenCanon) blocking.push({ kind: 'family_given', parts: [family.exact, c] });
    if (d.dob) {
      const iso = compactDate(d.dob);
      for (const c of givenCanon) blocking.push({ kind: 'family_given_ym', parts: [family.exact, c, iso.slice(0, 6)] });
      blocking.push({ kind: 'fphon_ginitial_year', parts: [family.phonetic, given.initial, iso.slice(0, 4)] });
      blocking.push({ kind: 'fphon_gphon_md', parts: [family.phonetic, given.phonetic, iso.slice(4)] });
    }
  }
  if (fields.email) blocking.push({ kind: 'email', parts: [fields.email[0]!] });
  if (fields.phone) blocking.push({ kind: 'phone', parts: [fields.phone[0]!] });

  return { fields, blocking };
}

function keyFeatures(features: MatchFeatures, fingerprinter: Fingerprinter, versions: readonly string[]): DemographicFingerprints {
  const fields: Partial<Record<FieldName, string[]>> = {};
  for (const [field, values] of Object.entries(features.fields) as Array<[FieldName, readonly string[]]>) {
    const domain = FIELD_DOMAINS[field];
    fields[field] = versions.flatMap((v) => values.map((value) => fingerprinter.fingerprint(domain, value, v)));
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


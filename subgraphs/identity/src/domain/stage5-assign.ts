/**
 * Stage 5 — GPID assignment, a pure decision over the scored candidates:
 *
 *   two or more strong candidates, none   → NEW_CONFLICT: a new record in CONFLICT, linked to them;
 *     far ahead of the others                the strong candidates are flagged CONFLICT too
 *                                            (duplicate detection triggered, review needed)
 *   two or more strong candidates, the    → EXISTING: the best one's GPID; the resolve proposes the
 *     best with a competing confidence        others as duplicates of it for review (`review`): a
 *     ≥ autoLink                              record of the person split earlier, not a look-alike
 *   exactly one strong candidate, and its → EXISTING: its GPID is returned
 *     confidence ≥ autoLink (or DETERMINISTIC)     (never on names alone: see agreesBeyondNames;
 *                                                   without a DOB, never on names and what a
 *                                                   household shares: see agreesBeyondHousehold)
 *   otherwise, candidates ≥ review        → NEW_PROVISIONAL: a new record linked to them for review
 *     (or of the same full name with        (the review queue: every such pair is an item)
 *     the DOB missing on one side)
 *   nothing ≥ review                      → NEW_SHADOW: a new record pending verification
 *
 * "Strong" looks at each candidate alone: DETERMINISTIC, or pairwise confidence ≥ `autoLink`.
 * Returning an existing GPID also needs the competing confidence (normalized across candidates)
 * to clear `autoLink`, so a near tie with a look-alike record is never auto-linked. A new record in
 * CONFLICT rather than a pick among the strong candidates keeps data from being attached to the
 * wrong one of two look-alike records until a reviewer merges or separates them.
 *
 * GPIDs are not made here: the caller passes `newGpid` (the platform's patient GPID generator).
 */
import type { IdentityStatus, MatchType } from './enums.js';
import { DEFAULT_THRESHOLDS, type Agreement, type MatchThresholds, type ScoredCandidate } from './stage4-score.js';

/**
 * The review threshold: a candidate whose pairwise confidence reaches it, without being linked
 * automatically, is never left behind as a silent duplicate: the new record is linked to it and
 * the pair goes to the review queue. Lower than PARTIAL (0.5) because a given name with a typo on
 * one side and a nickname on the other scores 0.2–0.48 with date of birth, e-mail and phone equal
 * (bench/identity/RESULTS-accuracy.md: the queue this costs and the duplicates it saves).
 */
export const DEFAULT_REVIEW_THRESHOLD = 0.2;

/** Stage 5's thresholds: stage 4's plus the review threshold. */
export interface ResolveThresholds extends MatchThresholds {
  review: number;
}

/** The thresholds of a resolve, `review` defaulting to `DEFAULT_REVIEW_THRESHOLD` (never above `partial`). */
export function resolveThresholds(overrides: Partial<ResolveThresholds> = {}): ResolveThresholds {
  const match = { ...DEFAULT_THRESHOLDS, ...overrides };
  return { ...match, review: Math.min(overrides.review ?? DEFAULT_REVIEW_THRESHOLD, match.partial) };
}

export type ResolveDecisionKind = 'EXISTING' | 'NEW_SHADOW' | 'NEW_PROVISIONAL' | 'NEW_CONFLICT';

export type ResolveDecision =
  | { kind: 'EXISTING'; gpid: string; candidate: ScoredCandidate; matchType: MatchType; confidence: number; review: string[] }
  | { kind: 'NEW_SHADOW'; gpid: string; status: 'SHADOW' }
  | { kind: 'NEW_PROVISIONAL'; gpid: string; status: 'PROVISIONAL'; links: string[] }
  | { kind: 'NEW_CONFLICT'; gpid: string; status: 'CONFLICT'; links: string[] };

/**
 * Whether something besides the names agrees: the date of birth (exact, swapped or one typo), an
 * identifier or member id, an e-mail, a phone or an address. Names alone never link automatically:
 * a model trained on a small registry has a high prior (stage4-training.ts), and there a rare full
 * name would otherwise look certain; two people of one name are the classic false merge.
 */
export function agreesBeyondNames(a: Agreement): boolean {
  return (
    a.dob === 'exact' || a.dob === 'swapped' || a.dob === 'typo' ||
    a.identifier === 'exact' || a.memberId === 'exact' ||
    a.email === 'exact' || a.email === 'partial' || a.phone === 'exact' || a.phone === 'partial' ||
    a.address === 'exact' || a.address === 'street'
  );
}

/**
 * Whether something that belongs to the person rather than to the household agrees: the date of
 * birth (when both sides have one), an identifier (exact or a keying error) or an e-mail. A
 * household shares its family name, address, phone and family plan, and given names run in
 * families (Elizabeth and her daughter Lisa, John Sr and John Jr): when a date of birth is missing,
 * names and household contacts alone never link automatically, the pair is queued for review.
 */
export function agreesBeyondHousehold(a: Agreement): boolean {
  return a.dob !== 'missing' || a.identifier === 'exact' || a.identifier === 'typo' || a.email === 'exact';
}

/**
 * Whether a candidate goes to the review queue when it is not linked: pairwise confidence at or
 * above `review`, or the same full name (both parts exact, in order) with the date of birth
 * missing on one side. That one scores low in a large registry (namesakes), but nothing tells them
 * apart either, so the new record is linked for review rather than left a silent duplicate.
 */
export function isReviewable(candidate: ScoredCandidate, thresholds: ResolveThresholds): boolean {
  if (candidate.deterministic || candidate.pairConfidence >= thresholds.review) return true;
  const a = candidate.agreement;
  return a.given === 'exact' && a.family === 'exact' && a.nameOrder === 'straight' && a.dob === 'missing' && a.blockedBy === null;
}

/**
 * Strong on its own: DETERMINISTIC, or pairwise confidence at or above `autoLink` with agreement
 * beyond the names (and beyond the household when a date of birth is missing), and no hard rule against an automatic link (`agreement.blockedBy`: conflicting
 * identifiers, twins). A blocked candidate above `partial` is linked for review instead
 * (NEW_PROVISIONAL).
 */
export function isStrong(candidate: ScoredCandidate, thresholds: MatchThresholds = DEFAULT_THRESHOLDS, households = true): boolean {
  if (candidate.agreement.blockedBy !== null) return false;
  const a = candidate.agreement;
  return candidate.deterministic || (candidate.pairConfidence >= thresholds.autoLink && agreesBeyondNames(a) && (!households || agreesBeyondHousehold(a)));
}

/** Status a record created by `kind` starts in. */
export const NEW_RECORD_STATUS: Readonly<Record<Exclude<ResolveDecisionKind, 'EXISTING'>, IdentityStatus>> = {
  NEW_SHADOW: 'SHADOW',
  NEW_PROVISIONAL: 'PROVISIONAL',
  NEW_CONFLICT: 'CONFLICT',
};

/**
 * Decides the outcome of a resolve. `candidates` are the scored candidates of stage 4 (any order;
 * MERGED records already excluded). Calls `newGpid` only when a record is to be created.
 * `households`: whether the entities live in households (patients: the default), which makes
 * `agreesBeyondHousehold` a condition of an automatic link; an organization has no DOB at all.
 */
export function decideResolution(
  candidates: readonly ScoredCandidate[],
  options: { newGpid: () => string; thresholds?: Partial<ResolveThresholds>; households?: boolean },
): ResolveDecision {
  const thresholds = resolveThresholds(options.thresholds);
  const byGpid = new Map<string, ScoredCandidate>();
  for (const c of candidates) {
    const seen = byGpid.get(c.gpid);
    if (!seen || c.weight > seen.weight) byGpid.set(c.gpid, c);
  }
  const ranked = [...byGpid.values()].sort(
    (x, y) => Number(y.deterministic) - Number(x.deterministic) || y.confidence - x.confidence || (x.gpid < y.gpid ? -1 : 1),
  );

  const strong = ranked.filter((c) => isStrong(c, thresholds, options.households ?? true));
  const best = strong[0];
  // Several strong candidates: a conflict, unless the best stays above the automatic link while
  // competing with all of them (its odds at least nine times the rest together) and no other is
  // DETERMINISTIC. Then the others are records of the same person created apart earlier (a
  // duplicate that could not be linked then): proposed for review as duplicates of the best.
  const dominant = best !== undefined && best.confidence >= thresholds.autoLink && !strong.slice(1).some((c) => c.deterministic);
  if (strong.length >= 2 && !dominant) {
    return { kind: 'NEW_CONFLICT', gpid: options.newGpid(), status: 'CONFLICT', links: strong.map((c) => c.gpid) };
  }
  if (best && (best.deterministic || best.confidence >= thresholds.autoLink)) {
    return { kind: 'EXISTING', gpid: best.gpid, candidate: best, matchType: best.matchType, confidence: best.confidence, review: strong.slice(1).map((c) => c.gpid) };
  }
  const possible = ranked.filter((c) => isReviewable(c, thresholds));
  if (possible.length > 0) {
    return { kind: 'NEW_PROVISIONAL', gpid: options.newGpid(), status: 'PROVISIONAL', links: possible.map((c) => c.gpid) };
  }
  return { kind: 'NEW_SHADOW', gpid: options.newGpid(), status: 'SHADOW' };
}

import type { MatchCandidate } from './pipeline.js';

/**
 * The FHIR `match-grade` of a candidate (http://hl7.org/fhir/StructureDefinition/match-grade,
 * value set http://terminology.hl7.org/CodeSystem/match-grade), from the registry's own rules:
 *
 * - `certain`: DETERMINISTIC (exact name, DOB and email or phone), or confidence ≥ 0.9 — the
 *   *strong* level at which resolve links to an existing GPID;
 * - `probable`: confidence ≥ 0.5 — the PARTIAL level (resolve would create a PROVISIONAL record
 *   linked for review);
 * - `possible`: the rest of the listed candidates (confidence ≥ 0.05, Match's floor).
 *
 * `certainly-not` is never answered: candidates below the floor are not listed at all.
 */
export type MatchGrade = 'certain' | 'probable' | 'possible';

export const CERTAIN_CONFIDENCE = 0.9;
export const PROBABLE_CONFIDENCE = 0.5;

export function matchGrade(candidate: Pick<MatchCandidate, 'matchType' | 'confidence'>): MatchGrade {
  if (candidate.matchType === 'DETERMINISTIC' || candidate.confidence >= CERTAIN_CONFIDENCE) return 'certain';
  return candidate.confidence >= PROBABLE_CONFIDENCE ? 'probable' : 'possible';
}

/**
 * The candidates a FHIR `$match` answers, best first: with `onlyCertainMatches`, the one `certain`
 * candidate (none when several are certain: the spec asks for no answer rather than a guess);
 * at most `count`.
 */
export function fhirMatchCandidates<C extends Pick<MatchCandidate, 'matchType' | 'confidence'>>(candidates: readonly C[], options: { onlyCertainMatches: boolean; count: number }): C[] {
  if (options.onlyCertainMatches) {
    const certain = candidates.filter((c) => matchGrade(c) === 'certain');
    return certain.length === 1 ? certain : [];
  }
  return candidates.slice(0, options.count);
}

/**
 * The review queue's rules. A resolve that creates a record linked to candidates it could not link
 * automatically (NEW_PROVISIONAL, NEW_CONFLICT: pairwise confidence between the review threshold
 * and the automatic link, or above it with a hard rule or a competing look-alike) proposes one
 * review item: the new record (the subject) and those candidates, each with its scores and its
 * field agreement pattern, as stage 4 explained them. A resolve linked to the best of several
 * strong candidates (stage 5) proposes one too: the linked record is the subject, the other strong
 * candidates (records of the same person created apart earlier) its candidates. Storage keeps the item; an operator decides
 * each pair: the same person (a merge request on the existing merge path, two-person rule
 * included) or not (the pair is closed and never proposed again). Every decision is a training
 * label of the scoring model.
 */
import { DomainError, validationError, type FieldError } from '@svc/platform';
import type { MatchType } from './enums.js';
import { MAX_NOTE_LENGTH } from './merge-split.js';
import type { Agreement, ScoredCandidate } from './stage4-score.js';

/** One candidate of an item, as scored when the item was proposed. */
export interface ReviewCandidate {
  gpid: string;
  /** The candidate's own confidence, ignoring the other candidates (what the thresholds compare). */
  pairConfidence: number;
  /** The confidence competing with the other candidates of the resolve. */
  confidence: number;
  matchType: MatchType;
  /** Stage 4's explanation: the level of each comparison, their weights in bits, the hard rule. */
  agreement: Agreement;
}

/** The most candidates one item keeps (stage 3 scores at most 50; a reviewer needs the best). */
export const MAX_REVIEW_CANDIDATES = 10;

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}

/** The candidates of the item a new record linked to `links` proposes, best first. */
export function reviewCandidates(links: readonly string[], scored: readonly ScoredCandidate[]): ReviewCandidate[] {
  const linked = new Set(links);
  return scored
    .filter((c) => linked.has(c.gpid))
    .slice(0, MAX_REVIEW_CANDIDATES)
    .map((c) => ({ gpid: c.gpid, pairConfidence: round4(c.pairConfidence), confidence: round4(c.confidence), matchType: c.matchType, agreement: c.agreement }));
}

/** An operator's decision on one pair of an item. */
export interface ReviewDecision {
  candidateGpid: string;
  same: boolean;
  note: string | null;
}

/** Validates a decision; every problem names its field. */
export function readReviewDecision(raw: { candidateGpid?: unknown; same?: unknown; note?: unknown }): ReviewDecision {
  const errors: FieldError[] = [];
  const gpid = raw.candidateGpid;
  if (gpid === undefined || gpid === null || gpid === '') errors.push({ field: 'candidate_gpid', message: 'is required: the candidate of the item this decision is about' });
  else if (typeof gpid !== 'string') errors.push({ field: 'candidate_gpid', message: 'must be a string' });
  if (raw.same === undefined || raw.same === null) errors.push({ field: 'same', message: 'is required: true (the same person) or false (not the same)' });
  else if (typeof raw.same !== 'boolean') errors.push({ field: 'same', message: 'must be true or false' });
  let note: string | null = null;
  if (raw.note !== undefined && raw.note !== null) {
    if (typeof raw.note !== 'string') errors.push({ field: 'note', message: 'must be a string' });
    else if (raw.note.length > MAX_NOTE_LENGTH) errors.push({ field: 'note', message: `must be at most ${MAX_NOTE_LENGTH} characters` });
    else if (raw.note.trim() !== '') note = raw.note.trim();
  }
  if (errors.length > 0) throw validationError(errors, 'The review decision has invalid fields.');
  return { candidateGpid: gpid as string, same: raw.same as boolean, note };
}

/** The pair was decided before: an item's pair is decided once. */
export function alreadyDecided(itemId: string, candidateGpid: string, same: boolean): DomainError {
  return new DomainError('CONFLICT', `The pair of ${candidateGpid} in review item ${itemId} was already decided (${same ? 'the same person' : 'not the same'}).`, {
    details: { item_id: itemId, candidate_gpid: candidateGpid },
  });
}

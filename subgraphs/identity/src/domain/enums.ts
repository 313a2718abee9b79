/**
 * Enumerations of the identity domain, exactly as the service specification names them.
 * Values are part of the public contract (GraphQL enums, REST payloads, events): never rename one.
 */

/** How a candidate matched. DETERMINISTIC is strong exact agreement; PARTIAL is probabilistic. */
export const MATCH_TYPES = ['DETERMINISTIC', 'PARTIAL', 'NONE'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

/** Lifecycle status of a GPID record; see `state-machine.ts` for the allowed transitions. */
export const IDENTITY_STATUSES = ['ACTIVE', 'SHADOW', 'PROVISIONAL', 'CONFLICT', 'MERGED', 'SPLIT'] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];

/** What each status means, for schema descriptions and documentation. */
export const IDENTITY_STATUS_DESCRIPTIONS: Readonly<Record<IdentityStatus, string>> = {
  ACTIVE: 'Verified, live record: confirmed by at least two independent source origins or by review.',
  SHADOW: 'Auto-created from one source with no matching candidate; pending verification.',
  PROVISIONAL: 'Created while partially matching existing records; linked to them for review.',
  CONFLICT: 'Duplicate detection triggered: two or more records match strongly; awaiting review.',
  MERGED: 'Merged into a survivor GPID; kept for lineage, never matched again.',
  SPLIT: 'Split from a parent GPID after a false merge; pending verification.',
};

/** The 8 source origins a caller declares in the `X-Svc-Source` header. */
export const SOURCE_ORIGINS = ['pulse', 'provider', 'lake', 'cms', 'beacon', 'prime', 'catalyst', 'tefca'] as const;
export type SourceOrigin = (typeof SOURCE_ORIGINS)[number];

export function isSourceOrigin(value: unknown): value is SourceOrigin {
  return typeof value === 'string' && (SOURCE_ORIGINS as readonly string[]).includes(value);
}

/** Reasons accepted by Merge. */
export const MERGE_REASONS = ['deterministic_exact', 'manual_review', 'probabilistic'] as const;
export type MergeReason = (typeof MERGE_REASONS)[number];

/** Reasons accepted by Split. */
export const SPLIT_REASONS = ['false_merge_detected', 'manual_correction', 'legal_request'] as const;
export type SplitReason = (typeof SPLIT_REASONS)[number];

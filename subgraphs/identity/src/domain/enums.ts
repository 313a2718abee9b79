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

/**
 * The 8 source origins a caller declares in the `X-Svc-Source` header. Defined once in the platform
 * (every write path reads the header); re-exported here as part of the identity vocabulary.
 */
export { SOURCE_ORIGINS, isSourceOrigin, type SourceOrigin } from '@svc/platform';
import type { SourceOrigin } from '@svc/platform';

/**
 * Product code (PRD) of system GPIDs `{PRD}-{TYPE}-{N}` by the source origin that created the
 * entity: the product behind each origin. Patients never use it (their GPID is `SVC-XXXXXXXX`).
 */
export const SOURCE_PRODUCT_CODES: Readonly<Record<SourceOrigin, string>> = {
  pulse: 'PLS',
  provider: 'PRV',
  lake: 'LAKE',
  cms: 'CMS',
  beacon: 'BCN',
  prime: 'PRM',
  catalyst: 'CAT',
  tefca: 'TEFCA',
};

/** Reasons accepted by Merge. */
export const MERGE_REASONS = ['deterministic_exact', 'manual_review', 'probabilistic'] as const;
export type MergeReason = (typeof MERGE_REASONS)[number];

/** Reasons accepted by Split. */
export const SPLIT_REASONS = ['false_merge_detected', 'manual_correction', 'legal_request'] as const;
export type SplitReason = (typeof SPLIT_REASONS)[number];

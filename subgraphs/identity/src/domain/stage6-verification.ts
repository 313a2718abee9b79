/**
 * Stage 6 — dual verification across sources. A record is confirmed when a second, independent
 * source origin (a different `X-Svc-Source` value than every origin already recorded) resolves to
 * it with a strong match: SHADOW, PROVISIONAL and SPLIT records then become ACTIVE. A repeat from
 * an origin already recorded confirms nothing. CONFLICT records stay in CONFLICT: only a review can
 * settle a duplicate. MERGED records are never resolved to.
 */
import type { IdentityStatus, SourceOrigin } from './enums.js';
import { assertTransition, canTransition } from './state-machine.js';

/** Distinct source origins needed for ACTIVE. */
export const REQUIRED_INDEPENDENT_SOURCES = 2;

/** Statuses that dual verification promotes to ACTIVE. */
const VERIFIABLE: ReadonlySet<IdentityStatus> = new Set(['SHADOW', 'PROVISIONAL', 'SPLIT']);

export interface VerificationOutcome {
  status: IdentityStatus;
  sources: SourceOrigin[];
  /** True when this source was not recorded before. */
  newSource: boolean;
  /** True when this confirmation changed the status to ACTIVE. */
  activated: boolean;
}

/** Adds `source` to the record's origins and applies dual verification. Pure. */
export function verifySources(
  record: { status: IdentityStatus; sources: readonly SourceOrigin[] },
  source: SourceOrigin,
): VerificationOutcome {
  const newSource = !record.sources.includes(source);
  const sources = newSource ? [...record.sources, source] : [...record.sources];
  const independent = new Set(sources).size >= REQUIRED_INDEPENDENT_SOURCES;
  if (newSource && independent && VERIFIABLE.has(record.status) && canTransition(record.status, 'ACTIVE', 'dual_verification')) {
    assertTransition(record.status, 'ACTIVE', 'dual_verification');
    return { status: 'ACTIVE', sources, newSource, activated: true };
  }
  return { status: record.status, sources, newSource, activated: false };
}

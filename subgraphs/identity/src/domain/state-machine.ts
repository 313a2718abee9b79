/**
 * Identity status state machine. The transitions are data so that the schema layer, the storage
 * layer and the documentation all read the same table; `assertTransition` is the only gate.
 */
import { DomainError } from '@svc/platform';
import type { IdentityStatus } from './enums.js';

/** Why a status changes. Recorded with the transition (events, audit). */
export type TransitionTrigger =
  | 'dual_verification'
  | 'review_confirmed'
  | 'duplicate_detected'
  | 'merge'
  | 'split';

export interface StatusTransitionRule {
  readonly from: IdentityStatus;
  readonly to: IdentityStatus;
  readonly trigger: TransitionTrigger;
}

/** Statuses a brand-new record may start in, and what creates it. */
export const INITIAL_STATUSES: Readonly<Partial<Record<IdentityStatus, string>>> = {
  SHADOW: 'resolve found no candidate',
  PROVISIONAL: 'resolve found only partial candidates',
  CONFLICT: 'resolve found two or more strong candidates',
  SPLIT: 'split separated this record from a falsely merged parent',
};

/**
 * Every allowed status change. Anything not listed is refused. MERGED is terminal except for the
 * undo of a false merge (MERGED → SPLIT); nothing ever returns to SHADOW or PROVISIONAL.
 */
export const STATUS_TRANSITIONS: readonly StatusTransitionRule[] = [
  { from: 'SHADOW', to: 'ACTIVE', trigger: 'dual_verification' },
  { from: 'SHADOW', to: 'ACTIVE', trigger: 'review_confirmed' },
  { from: 'SHADOW', to: 'CONFLICT', trigger: 'duplicate_detected' },
  { from: 'SHADOW', to: 'MERGED', trigger: 'merge' },

  { from: 'PROVISIONAL', to: 'ACTIVE', trigger: 'dual_verification' },
  { from: 'PROVISIONAL', to: 'ACTIVE', trigger: 'review_confirmed' },
  { from: 'PROVISIONAL', to: 'CONFLICT', trigger: 'duplicate_detected' },
  { from: 'PROVISIONAL', to: 'MERGED', trigger: 'merge' },

  { from: 'ACTIVE', to: 'CONFLICT', trigger: 'duplicate_detected' },
  { from: 'ACTIVE', to: 'MERGED', trigger: 'merge' },

  { from: 'CONFLICT', to: 'ACTIVE', trigger: 'review_confirmed' },
  { from: 'CONFLICT', to: 'MERGED', trigger: 'merge' },

  { from: 'SPLIT', to: 'ACTIVE', trigger: 'dual_verification' },
  { from: 'SPLIT', to: 'ACTIVE', trigger: 'review_confirmed' },
  { from: 'SPLIT', to: 'CONFLICT', trigger: 'duplicate_detected' },
  { from: 'SPLIT', to: 'MERGED', trigger: 'merge' },

  { from: 'MERGED', to: 'SPLIT', trigger: 'split' },
];

/** Whether `from → to` is allowed (optionally for a given trigger). Same-status is not a transition. */
export function canTransition(from: IdentityStatus, to: IdentityStatus, trigger?: TransitionTrigger): boolean {
  return STATUS_TRANSITIONS.some(
    (rule) => rule.from === from && rule.to === to && (trigger === undefined || rule.trigger === trigger),
  );
}

/** Statuses reachable from `from`. */
export function nextStatuses(from: IdentityStatus): IdentityStatus[] {
  return [...new Set(STATUS_TRANSITIONS.filter((rule) => rule.from === from).map((rule) => rule.to))];
}

/** True when no transition leaves the status except an explicit undo. */
export function isMatchable(status: IdentityStatus): boolean {
  return status !== 'MERGED';
}

/**
 * Throws a 409 CONFLICT DomainError when the transition is not allowed. Callers run it before
 * writing a new status so that an illegal change never reaches storage.
 */
export function assertTransition(from: IdentityStatus, to: IdentityStatus, trigger?: TransitionTrigger): void {
  if (canTransition(from, to, trigger)) return;
  const allowed = nextStatuses(from);
  throw new DomainError(
    'CONFLICT',
    `Identity status cannot change from ${from} to ${to}${trigger ? ` by ${trigger}` : ''}.`,
    { details: { from, to, trigger: trigger ?? null, allowed } },
  );
}

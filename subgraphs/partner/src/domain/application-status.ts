import { DomainError, validationError } from '@svc/platform';

/**
 * Lifecycle of a partner application.
 *
 * ```
 *   draft ──submit──▶ submitted ──approve──▶ approved
 *     ▲                  │  └─────reject───▶ rejected
 *     └─return_for_changes┘
 * ```
 *
 * - `draft`: the applicant is filling in the steps; the only editable state. Saving a step is not a
 *   transition.
 * - `submitted`: all steps valid and the agreements accepted; waiting for review.
 * - `return_for_changes` sends a submitted application back to `draft` with a reason, so a fixable
 *   problem (a mistyped NPI, a vague use case) does not force a new application; it keeps its id.
 * - `approved` and `rejected` are final. A rejected organization applies again with a new
 *   application, which keeps the review history of each attempt intact.
 */
export const APPLICATION_STATUSES = ['draft', 'submitted', 'approved', 'rejected'] as const;

/** State of a partner application. */
export type ApplicationStatus = (typeof APPLICATION_STATUSES)[number];

/** Who may perform an action: the applicant on the portal, or a platform reviewer. */
export type ApplicationActor = 'applicant' | 'reviewer';

/** One allowed transition of the application lifecycle. */
export interface ApplicationTransition {
  action: 'submit' | 'return_for_changes' | 'approve' | 'reject';
  from: ApplicationStatus;
  to: ApplicationStatus;
  actor: ApplicationActor;
  /** The reviewer must explain the decision; the reason is shown to the applicant. */
  requires_reason: boolean;
}

/** Name of an action on an application. */
export type ApplicationAction = ApplicationTransition['action'];

/** Every allowed transition; anything not listed is refused. */
export const APPLICATION_TRANSITIONS: readonly ApplicationTransition[] = [
  { action: 'submit', from: 'draft', to: 'submitted', actor: 'applicant', requires_reason: false },
  { action: 'return_for_changes', from: 'submitted', to: 'draft', actor: 'reviewer', requires_reason: true },
  { action: 'approve', from: 'submitted', to: 'approved', actor: 'reviewer', requires_reason: false },
  { action: 'reject', from: 'submitted', to: 'rejected', actor: 'reviewer', requires_reason: true },
];

/** States with no way out. */
export const FINAL_APPLICATION_STATUSES: readonly ApplicationStatus[] = ['approved', 'rejected'];

/** Longest reviewer reason accepted, in characters. */
export const APPLICATION_REASON_MAX_LENGTH = 2000;

/** True when `value` is an application status. */
export function isApplicationStatus(value: unknown): value is ApplicationStatus {
  return typeof value === 'string' && (APPLICATION_STATUSES as readonly string[]).includes(value);
}

/** Only drafts may be edited. */
export function isApplicationEditable(status: ApplicationStatus): boolean {
  return status === 'draft';
}

/** The transitions that leave `from`. */
export function transitionsFrom(from: ApplicationStatus): ApplicationTransition[] {
  return APPLICATION_TRANSITIONS.filter((transition) => transition.from === from);
}

/** True when the lifecycle allows going from `from` to `to`. */
export function canTransition(from: ApplicationStatus, to: ApplicationStatus): boolean {
  return APPLICATION_TRANSITIONS.some((transition) => transition.from === from && transition.to === to);
}

function refuse(from: ApplicationStatus, attempted: string): DomainError {
  const allowed = transitionsFrom(from).map((transition) => transition.action);
  const hint = allowed.length > 0 ? `allowed actions: ${allowed.join(', ')}` : 'the application is final';
  return new DomainError('CONFLICT', `An application in status "${from}" cannot ${attempted} (${hint}).`, {
    // Not `status`: the details become GraphQL extensions and problem members, where status is the HTTP status.
    details: { application_status: from, allowed_actions: allowed },
  });
}

/**
 * Check that the lifecycle allows going from `from` to `to` and return the transition.
 * @throws DomainError `CONFLICT` (409) when it does not, with the allowed actions in `details`.
 */
export function assertTransition(from: ApplicationStatus, to: ApplicationStatus): ApplicationTransition {
  const transition = APPLICATION_TRANSITIONS.find((candidate) => candidate.from === from && candidate.to === to);
  if (!transition) throw refuse(from, `move to "${to}"`);
  return transition;
}

/**
 * Perform `action` on an application in status `from`, checking the lifecycle and the reason rule.
 * Returns the new status.
 * @throws DomainError `CONFLICT` when the action is not allowed in `from`;
 *   `VALIDATION_ERROR` on field `reason` when a required reason is missing or too long.
 */
export function applyApplicationAction(from: ApplicationStatus, action: ApplicationAction, reason?: string | null): ApplicationStatus {
  const transition = APPLICATION_TRANSITIONS.find((candidate) => candidate.from === from && candidate.action === action);
  if (!transition) throw refuse(from, action.replaceAll('_', ' '));
  const text = reason?.trim() ?? '';
  if (transition.requires_reason && text === '') {
    throw validationError([{ field: 'reason', message: `A reason is required to ${action.replaceAll('_', ' ')} an application.` }]);
  }
  if (text.length > APPLICATION_REASON_MAX_LENGTH) {
    throw validationError([{ field: 'reason', message: `Reason must be at most ${APPLICATION_REASON_MAX_LENGTH} characters.` }]);
  }
  return transition.to;
}

/** One step of an application's history, as the applicant sees it on the status page. */
export interface ApplicationHistoryEntry {
  /** What happened. `returned` is a reviewer's return for changes. */
  event: 'started' | 'submitted' | 'returned' | 'approved' | 'rejected';
  /** ISO 8601. */
  at: string;
  /** The reviewer's reason, for `returned` and `rejected`. */
  reason?: string | null;
}

/**
 * The review time we promise applicants: a submitted application is approved, returned or
 * rejected within this many business days (Monday to Friday, UTC). Ours: the spec names no figure.
 */
export const APPLICATION_REVIEW_BUSINESS_DAYS = 2;

/** The review time in words, for the confirmation and the status page. */
export const APPLICATION_REVIEW_TIME = `${APPLICATION_REVIEW_BUSINESS_DAYS} business days`;

/** When a review is due for an application submitted at `submittedAt`: that many business days later. */
export function expectedReviewBy(submittedAt: Date, businessDays = APPLICATION_REVIEW_BUSINESS_DAYS): Date {
  const due = new Date(submittedAt.getTime());
  let left = businessDays;
  while (left > 0) {
    due.setUTCDate(due.getUTCDate() + 1);
    const day = due.getUTCDay();
    if (day !== 0 && day !== 6) left -= 1;
  }
  return due;
}

/**
 * The history of an application: the recorded one, or for an application older than the record, what
 * its dates say (started, submitted, decided with the reason).
 */
export function historyOf(application: {
  history: ApplicationHistoryEntry[] | null;
  status: ApplicationStatus;
  createdAt: Date;
  submittedAt: Date | null;
  decidedAt: Date | null;
  decisionReason: string | null;
}): ApplicationHistoryEntry[] {
  if (application.history) return application.history;
  const entries: ApplicationHistoryEntry[] = [{ event: 'started', at: application.createdAt.toISOString() }];
  if (application.submittedAt) entries.push({ event: 'submitted', at: application.submittedAt.toISOString() });
  if (application.decidedAt && (application.status === 'approved' || application.status === 'rejected')) {
    entries.push({ event: application.status, at: application.decidedAt.toISOString(), reason: application.decisionReason });
  }
  return entries;
}

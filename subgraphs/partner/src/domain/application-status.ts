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

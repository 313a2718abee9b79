/**
 * The sign-in throttle, as pure functions of a subject's state. Failures are counted per account
 * (the e-mail, whether or not an account has it, so a lockout reveals nothing) and per client
 * address; enough failures within a window lock the subject for a while.
 */

export interface ThrottlePolicy {
  /** Failures within `windowMs` that lock the subject. */
  maxFailures: number;
  windowMs: number;
  lockMs: number;
}

const MINUTE = 60_000;

/** Five wrong passwords for one e-mail in 15 minutes lock it for 15 minutes; 20 from one address lock the address. */
export const LOGIN_THROTTLE: { account: ThrottlePolicy; address: ThrottlePolicy } = {
  account: { maxFailures: 5, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE },
  address: { maxFailures: 20, windowMs: 15 * MINUTE, lockMs: 15 * MINUTE },
};

export interface ThrottleState {
  failures: number;
  windowStartedAt: Date;
  lockedUntil: Date | null;
}

/** Milliseconds the subject stays locked; 0 when it is not locked. */
export function lockRemainingMs(state: ThrottleState | undefined, now: Date): number {
  if (!state?.lockedUntil) return 0;
  return Math.max(0, state.lockedUntil.getTime() - now.getTime());
}

/** The state after one more failure: a fresh window once the old one has passed, a lock at the limit. */
export function afterFailure(state: ThrottleState | undefined, now: Date, policy: ThrottlePolicy): ThrottleState {
  // A lock that has run out starts the count afresh, as does a window that has passed.
  const windowOpen = state !== undefined && state.lockedUntil === null && now.getTime() - state.windowStartedAt.getTime() < policy.windowMs;
  const failures = windowOpen ? state.failures + 1 : 1;
  const windowStartedAt = windowOpen ? state.windowStartedAt : now;
  const lockedUntil = failures >= policy.maxFailures ? new Date(now.getTime() + policy.lockMs) : null;
  return { failures, windowStartedAt, lockedUntil };
}

/** Whole seconds to tell a client in Retry-After (at least 1). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * The sign-in throttle's policy and how to read a subject's state. Failures are counted per
 * account (the e-mail, whether or not an account has it, so a lockout reveals nothing) and per
 * client address; enough failures within a window lock the subject for a while.
 *
 * An attempt is counted when it starts, before its password is checked, by one atomic statement
 * per subject (`../entities/login-throttles.ts`): its number in the window decides whether it may
 * be checked at all, so concurrent attempts never check more passwords than the limit. An attempt
 * that turns out not to be a failure is taken back (a success clears the account's count).
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

/** The throttle subject of an account: its normalized e-mail. */
export function accountThrottleSubject(email: string): string {
  return `account:${email}`;
}

/** Milliseconds the subject stays locked; 0 when it is not locked. */
export function lockRemainingMs(state: ThrottleState | undefined, now: Date): number {
  if (!state?.lockedUntil) return 0;
  return Math.max(0, state.lockedUntil.getTime() - now.getTime());
}

/** Whether a counted attempt, should it fail, is the one that reaches the limit (or a later one). */
export function reachesLimit(counted: ThrottleState, policy: ThrottlePolicy): boolean {
  return counted.failures >= policy.maxFailures;
}

/** Whole seconds to tell a client in Retry-After (at least 1). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

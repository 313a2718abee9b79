import { describe, expect, it } from 'vitest';
import { afterFailure, lockRemainingMs, retryAfterSeconds, type ThrottlePolicy } from './login-throttle.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, lockMs: 120_000 };
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe('the sign-in throttle', () => {
  it('counts failures within the window and locks at the limit', () => {
    let state = afterFailure(undefined, at(0), policy);
    expect(state).toEqual({ failures: 1, windowStartedAt: at(0), lockedUntil: null });
    state = afterFailure(state, at(10), policy);
    state = afterFailure(state, at(20), policy);
    expect(state.failures).toBe(3);
    expect(state.lockedUntil).toEqual(new Date(at(20).getTime() + 120_000));
    expect(lockRemainingMs(state, at(30))).toBe(110_000);
    expect(retryAfterSeconds(lockRemainingMs(state, at(30)))).toBe(110);
  });

  it('starts afresh once the window has passed', () => {
    const old = afterFailure(afterFailure(undefined, at(0), policy), at(1), policy);
    expect(afterFailure(old, at(61), policy)).toEqual({ failures: 1, windowStartedAt: at(61), lockedUntil: null });
  });

  it('starts afresh after a lock has run out', () => {
    const locked = { failures: 3, windowStartedAt: at(0), lockedUntil: at(30) };
    expect(lockRemainingMs(locked, at(31))).toBe(0);
    expect(afterFailure(locked, at(31), policy)).toEqual({ failures: 1, windowStartedAt: at(31), lockedUntil: null });
  });

  it('never tells a client to retry in less than a second', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(0)).toBe(1);
    expect(lockRemainingMs(undefined, at(0))).toBe(0);
  });
});

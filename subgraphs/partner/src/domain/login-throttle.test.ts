import { describe, expect, it } from 'vitest';
import { lockRemainingMs, reachesLimit, retryAfterSeconds, type ThrottlePolicy } from './login-throttle.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, lockMs: 120_000 };
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

// Counting itself is one statement in the database; test/login-throttle-storage.test.ts runs it on
// SQLite and PostgreSQL, and test/login-throttle-concurrency.test.ts through both doors.
describe('the sign-in throttle', () => {
  it('tells how long a lock has left', () => {
    const locked = { failures: 3, windowStartedAt: at(0), lockedUntil: at(140) };
    expect(lockRemainingMs(locked, at(30))).toBe(110_000);
    expect(retryAfterSeconds(lockRemainingMs(locked, at(30)))).toBe(110);
    expect(lockRemainingMs(locked, at(141))).toBe(0);
    expect(lockRemainingMs({ failures: 2, windowStartedAt: at(0), lockedUntil: null }, at(1))).toBe(0);
  });

  it('knows the attempt whose failure reaches the limit', () => {
    expect(reachesLimit({ failures: 2, windowStartedAt: at(0), lockedUntil: null }, policy)).toBe(false);
    expect(reachesLimit({ failures: 3, windowStartedAt: at(0), lockedUntil: null }, policy)).toBe(true);
  });

  it('never tells a client to retry in less than a second', () => {
    expect(retryAfterSeconds(1)).toBe(1);
    expect(retryAfterSeconds(0)).toBe(1);
    expect(lockRemainingMs(undefined, at(0))).toBe(0);
  });
});

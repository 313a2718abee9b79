import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, openDatabase, type Orm } from '@svc/platform';
import { migrations } from '../subgraphs/partner/src/migrations/index.js';
import { LoginThrottleEntity } from '../subgraphs/partner/src/entities/login-throttle.js';
import { loginThrottles } from '../subgraphs/partner/src/entities/login-throttles.js';
import type { ThrottlePolicy } from '../subgraphs/partner/src/domain/login-throttle.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';

/**
 * The sign-in throttle's counting statements on the real database (SQLite, or PostgreSQL in the
 * PostgreSQL pass, there from two connection pools as two replicas would), with a clock of the
 * test's own: windows and locks that run out, and exact numbers for attempts made at once.
 * test/login-throttle-concurrency.test.ts shows the same through the sign-in doors.
 */
describe('sign-in throttle storage', () => {
  let storage: TestStorage;
  let orm: Orm;
  let second: Orm | undefined;
  const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, lockMs: 120_000 };
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));
  let subjectCounter = 0;
  const freshSubject = () => `account:storage-${++subjectCounter}@nowhere.example`;
  const em = () => orm.em.fork();

  beforeAll(async () => {
    storage = await freshStorage();
    const config = loadConfig({ ...storage.env, SVC_LOG_LEVEL: 'silent' });
    orm = await openDatabase({ config, owner: 'partner', entities: [LoginThrottleEntity], migrations });
    if (USE_POSTGRES) second = await openDatabase({ config, owner: 'partner', entities: [LoginThrottleEntity], migrations });
  });
  afterAll(async () => {
    await second?.close();
    await orm?.close();
    await storage?.dispose();
  });

  it('numbers attempts within a window and locks at the one beyond the limit', async () => {
    const subject = freshSubject();
    const numbers = [];
    for (let s = 0; s < 3; s++) numbers.push(await loginThrottles.charge(em(), subject, policy, at(s)));
    expect(numbers.map((n) => [n.failures, n.windowStartedAt, n.lockedUntil])).toEqual([
      [1, at(0), null],
      [2, at(0), null],
      [3, at(0), null],
    ]);
    const beyond = await loginThrottles.charge(em(), subject, policy, at(10));
    expect(beyond).toEqual({ subject, failures: 4, windowStartedAt: at(0), lockedUntil: at(130) });
    // A locked subject is left as it is.
    expect(await loginThrottles.charge(em(), subject, policy, at(20))).toEqual(beyond);
    expect((await loginThrottles.bySubjects(em(), [subject])).get(subject)).toMatchObject({ failures: 4, lockedUntil: at(130) });
  });

  it('starts afresh once the window has passed or the lock has run out', async () => {
    const subject = freshSubject();
    await loginThrottles.charge(em(), subject, policy, at(0));
    await loginThrottles.charge(em(), subject, policy, at(59));
    expect(await loginThrottles.charge(em(), subject, policy, at(60))).toEqual({ subject, failures: 1, windowStartedAt: at(60), lockedUntil: null });

    const locked = freshSubject();
    for (let s = 0; s < 4; s++) await loginThrottles.charge(em(), locked, policy, at(s));
    expect(await loginThrottles.charge(em(), locked, policy, at(122))).toMatchObject({ failures: 4, lockedUntil: at(123) });
    expect(await loginThrottles.charge(em(), locked, policy, at(123))).toEqual({ subject: locked, failures: 1, windowStartedAt: at(123), lockedUntil: null });
  });

  it('locks a full subject once, and nothing that a success has cleared', async () => {
    const subject = freshSubject();
    for (let s = 0; s < 2; s++) await loginThrottles.charge(em(), subject, policy, at(s));
    expect(await loginThrottles.lockIfFull(em(), subject, policy, at(2))).toMatchObject({ failures: 2, lockedUntil: null });
    await loginThrottles.charge(em(), subject, policy, at(3));
    expect(await loginThrottles.lockIfFull(em(), subject, policy, at(4))).toMatchObject({ failures: 3, lockedUntil: at(124) });
    // A second failure at the limit keeps the first lock.
    expect(await loginThrottles.lockIfFull(em(), subject, policy, at(5))).toMatchObject({ lockedUntil: at(124) });

    await loginThrottles.clear(em(), subject);
    expect(await loginThrottles.lockIfFull(em(), subject, policy, at(6))).toBeUndefined();
  });

  it('takes an attempt back only from the window it was counted in, and never from a lock', async () => {
    const subject = freshSubject();
    const first = await loginThrottles.charge(em(), subject, policy, at(0));
    const second = await loginThrottles.charge(em(), subject, policy, at(1));
    await loginThrottles.release(em(), second);
    expect((await loginThrottles.bySubjects(em(), [subject])).get(subject)).toMatchObject({ failures: 1 });

    // The window was replaced meanwhile: the old attempt is not taken from the new one.
    await loginThrottles.charge(em(), subject, policy, at(70));
    await loginThrottles.release(em(), first);
    expect((await loginThrottles.bySubjects(em(), [subject])).get(subject)).toMatchObject({ failures: 1, windowStartedAt: at(70) });

    const locked = freshSubject();
    const charged = await loginThrottles.charge(em(), locked, policy, at(0));
    for (let s = 1; s < 4; s++) await loginThrottles.charge(em(), locked, policy, at(s));
    await loginThrottles.release(em(), charged);
    expect((await loginThrottles.bySubjects(em(), [locked])).get(locked)).toMatchObject({ failures: 4, lockedUntil: at(123) });
  });

  it('gives attempts made at once distinct numbers: exactly the limit pass, all others lock', async () => {
    const subject = freshSubject();
    const orms = second ? [orm, second] : [orm];
    const attempts = 40;
    const charged = await Promise.all(Array.from({ length: attempts }, (_, i) => loginThrottles.charge(orms[i % orms.length]!.em.fork(), subject, policy, at(0))));
    const passed = charged.filter((c) => c.lockedUntil === null).map((c) => c.failures);
    expect(passed.sort()).toEqual([1, 2, 3]);
    expect(charged.filter((c) => c.lockedUntil !== null)).toHaveLength(attempts - 3);
    expect((await loginThrottles.bySubjects(em(), [subject])).get(subject)).toMatchObject({ failures: 4, lockedUntil: at(120) });

    // Releases made at once are exact too.
    const other = freshSubject();
    const many = { maxFailures: 100, windowMs: 60_000, lockMs: 120_000 };
    const counted = await Promise.all(Array.from({ length: 30 }, (_, i) => loginThrottles.charge(orms[i % orms.length]!.em.fork(), other, many, at(0))));
    expect(counted.map((c) => c.failures).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    await Promise.all(counted.slice(0, 12).map((c, i) => loginThrottles.release(orms[i % orms.length]!.em.fork(), c)));
    expect((await loginThrottles.bySubjects(em(), [other])).get(other)).toMatchObject({ failures: 18 });
  });
});

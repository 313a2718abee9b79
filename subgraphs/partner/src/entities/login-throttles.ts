import type { EntityManager } from '@mikro-orm/core';
import { knexOf, rowsOf, storedDate, storedDateOrNull } from '@svc/platform';
import type { ThrottlePolicy } from '../domain/login-throttle.js';
import { LoginThrottleEntity, type LoginThrottle } from './login-throttle.js';

const TABLE = 'partner_login_throttle';

// Conditions on the stored row `t`, as it was before the statement (both dialects evaluate every
// SET expression of an upsert against the old row). A lock in force leaves the row alone; a lock
// that has run out, or a window that has passed, starts the count afresh.
const LOCKED = 't.locked_until is not null and t.locked_until > :now';
const LAPSED = 't.locked_until is not null or t.window_started_at <= :windowFloor';

/**
 * Count one attempt, atomically: a single `insert … on conflict do update … returning` (SQLite ≥
 * 3.35 and PostgreSQL alike), so concurrent attempts on one subject each get their own number and
 * none is lost or refused by the primary key. The attempt beyond the limit locks the subject.
 */
const CHARGE = `insert into ${TABLE} as t (subject, failures, window_started_at, locked_until) values (:subject, 1, :now, null)
on conflict (subject) do update set
  failures = case when ${LOCKED} then t.failures when ${LAPSED} then 1 else t.failures + 1 end,
  window_started_at = case when ${LOCKED} then t.window_started_at when ${LAPSED} then :now else t.window_started_at end,
  locked_until = case when ${LOCKED} then t.locked_until when ${LAPSED} then null when t.failures + 1 > :maxFailures then :lockedUntil else null end
returning subject, failures, window_started_at, locked_until`;

/** Lock the subject if its count has reached the limit and it is not locked yet; answers the row as it then is. */
const LOCK_IF_FULL = `update ${TABLE} set
  locked_until = case when locked_until is null and failures >= :maxFailures then :lockedUntil else locked_until end
where subject = :subject
returning subject, failures, window_started_at, locked_until`;

/** Take back one counted attempt, unless its window has been replaced or the subject locked meanwhile. */
const RELEASE = `update ${TABLE} set failures = failures - 1
where subject = :subject and window_started_at = :windowStartedAt and locked_until is null and failures > 0`;

interface ThrottleRow {
  subject: string;
  failures: number | string;
  window_started_at: unknown;
  locked_until: unknown;
}

function throttleOfRow(row: ThrottleRow): LoginThrottle {
  return { subject: row.subject, failures: Number(row.failures), windowStartedAt: storedDate(row.window_started_at), lockedUntil: storedDateOrNull(row.locked_until) };
}

/** A date as the dialect stores it (epoch milliseconds on SQLite, timestamptz on PostgreSQL), as MikroORM writes it. */
function dateParam(em: EntityManager, date: Date): Date | number {
  return em.getPlatform().processDateProperty(date) as Date | number;
}

async function run(em: EntityManager, sql: string, bindings: Record<string, string | number | Date>): Promise<LoginThrottle | undefined> {
  const rows = rowsOf<ThrottleRow>(await knexOf(em).raw(sql, bindings));
  return rows[0] ? throttleOfRow(rows[0]) : undefined;
}

/**
 * Sign-in throttle rows. Every change is one statement that reads and writes the row together, so
 * the counts hold under any concurrency, in one process or across replicas; no caller reads a
 * count and writes it back.
 */
export const loginThrottles = {
  /** The rows of these subjects that exist, by subject (a cheap first look; the statements below decide). */
  async bySubjects(em: EntityManager, subjects: readonly string[]): Promise<Map<string, LoginThrottle>> {
    const rows = await em.find(LoginThrottleEntity, { subject: { $in: [...subjects] } });
    return new Map(rows.map((r) => [r.subject, r]));
  },

  /**
   * Count an attempt against `subject` before it is judged. Answers the row after counting:
   * locked (by this attempt, which was one beyond `policy.maxFailures`, or already), or with this
   * attempt's number in the window as `failures`.
   */
  async charge(em: EntityManager, subject: string, policy: ThrottlePolicy, now: Date): Promise<LoginThrottle> {
    const row = await run(em, CHARGE, {
      subject,
      now: dateParam(em, now),
      windowFloor: dateParam(em, new Date(now.getTime() - policy.windowMs)),
      maxFailures: policy.maxFailures,
      lockedUntil: dateParam(em, new Date(now.getTime() + policy.lockMs)),
    });
    if (!row) throw new Error(`The sign-in throttle counted ${subject} but returned no row.`);
    return row;
  },

  /** A counted attempt failed and its number reached the limit: lock the subject (unless a success cleared it meanwhile). */
  lockIfFull(em: EntityManager, subject: string, policy: ThrottlePolicy, now: Date): Promise<LoginThrottle | undefined> {
    return run(em, LOCK_IF_FULL, { subject, maxFailures: policy.maxFailures, lockedUntil: dateParam(em, new Date(now.getTime() + policy.lockMs)) });
  },

  /** A counted attempt turned out not to be a failure: take it back from the window it was counted in. */
  async release(em: EntityManager, charged: LoginThrottle): Promise<void> {
    await knexOf(em).raw(RELEASE, { subject: charged.subject, windowStartedAt: dateParam(em, charged.windowStartedAt) });
  },

  /** Forget a subject's failures (a successful sign-in). */
  async clear(em: EntityManager, subject: string): Promise<void> {
    await em.nativeDelete(LoginThrottleEntity, { subject });
  },
};

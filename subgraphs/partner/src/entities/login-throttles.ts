import type { EntityManager } from '@mikro-orm/core';
import { LoginThrottleEntity, type LoginThrottle } from './login-throttle.js';

/** Sign-in throttle rows. */
export const loginThrottles = {
  /** The rows of these subjects that exist, by subject. */
  async bySubjects(em: EntityManager, subjects: readonly string[]): Promise<Map<string, LoginThrottle>> {
    const rows = await em.find(LoginThrottleEntity, { subject: { $in: [...subjects] } });
    return new Map(rows.map((r) => [r.subject, r]));
  },

  /** Stage the new state of a subject in `em`'s unit of work. */
  save(em: EntityManager, state: LoginThrottle, existing: LoginThrottle | undefined): void {
    if (existing) em.assign(existing, { failures: state.failures, windowStartedAt: state.windowStartedAt, lockedUntil: state.lockedUntil });
    else em.create(LoginThrottleEntity, state);
  },

  /** Forget a subject's failures (a successful sign-in). */
  async clear(em: EntityManager, subject: string): Promise<void> {
    await em.nativeDelete(LoginThrottleEntity, { subject });
  },
};

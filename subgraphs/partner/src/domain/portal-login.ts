import type { EntityManager } from '@mikro-orm/core';
import { DomainError, validationError } from '@svc/platform';
import { loginThrottles } from '../entities/login-throttles.js';
import { portalAccounts } from '../entities/portal-accounts.js';
import { partners } from '../entities/partners.js';
import { normalizeEmail } from './email-address.js';
import { lockRemainingMs, LOGIN_THROTTLE, reachesLimit, retryAfterSeconds } from './login-throttle.js';
import { verifyPortalPassword } from './portal-accounts.js';
import { startPortalSession, type StartedSession } from './portal-sessions.js';
import { PASSWORD_POLICY } from './password-policy.js';

/** A sign-in attempt. `clientAddress` is the address the REST facade saw; absent, only the account is throttled. */
export interface PortalLoginRequest {
  email: string;
  password: string;
  clientAddress?: string | null;
}

/** The one answer for an unknown e-mail and a wrong password, so neither can be told apart. */
const WRONG_CREDENTIALS = 'The e-mail address or password is incorrect.';

function locked(kind: 'account' | 'address', ms: number): DomainError {
  const retryAfter = retryAfterSeconds(ms);
  return kind === 'account'
    ? new DomainError('ACCOUNT_LOCKED', `Too many failed sign-ins for this e-mail address; try again in ${retryAfter} seconds.`, { details: { retry_after: retryAfter } })
    : new DomainError('RATE_LIMITED', `Too many failed sign-ins from this address; try again in ${retryAfter} seconds.`, { details: { policy: 'login_failures', retry_after: retryAfter } });
}

/**
 * Sign a partner in to the portal with e-mail and password; returns a new session.
 *
 * Locked subjects are refused before the password is even checked (423 for the e-mail, 429 for
 * the address). Every other attempt is counted against the address and then the e-mail before its
 * password is checked, each by one atomic statement; an attempt numbered beyond a limit locks that
 * subject and is refused unchecked, so parallel attempts check no more passwords than sequential
 * ones would. A wrong password and an unknown e-mail cost the same argon2 work and get the same
 * 401; the failure that reaches the e-mail's limit already answers 423. An attempt that is not a
 * failure is taken back: one refused for the e-mail is not counted against the address, and a
 * success clears the e-mail's count and takes its own attempt back from the address (never more:
 * one valid account must not launder an address's failures).
 */
export async function loginToPortal(em: EntityManager, request: PortalLoginRequest, now: Date): Promise<StartedSession> {
  const email = normalizeEmail(request.email);
  if (email === undefined) throw validationError([{ field: 'email', message: 'must be a valid e-mail address' }]);
  if (request.password.length === 0 || [...request.password].length > PASSWORD_POLICY.maxLength) {
    throw validationError([{ field: 'password', message: `must be 1 to ${PASSWORD_POLICY.maxLength} characters` }]);
  }
  const accountKey = `account:${email}`;
  const addressKey = request.clientAddress ? `address:${request.clientAddress.slice(0, 200)}` : null;

  // A look first, so that attempts on a locked subject write nothing; the counting below decides.
  const states = await loginThrottles.bySubjects(em, addressKey ? [accountKey, addressKey] : [accountKey]);
  const addressLock = addressKey ? lockRemainingMs(states.get(addressKey), now) : 0;
  if (addressLock > 0) throw locked('address', addressLock);
  const accountLock = lockRemainingMs(states.get(accountKey), now);
  if (accountLock > 0) throw locked('account', accountLock);

  const addressCharge = addressKey ? await loginThrottles.charge(em, addressKey, LOGIN_THROTTLE.address, now) : null;
  const addressLockNow = lockRemainingMs(addressCharge ?? undefined, now);
  if (addressLockNow > 0) throw locked('address', addressLockNow);
  const accountCharge = await loginThrottles.charge(em, accountKey, LOGIN_THROTTLE.account, now);
  const accountLockNow = lockRemainingMs(accountCharge, now);
  if (accountLockNow > 0) {
    if (addressCharge) await loginThrottles.release(em, addressCharge);
    throw locked('account', accountLockNow);
  }

  const account = await portalAccounts.byEmail(em, email);
  const ok = await verifyPortalPassword(account?.passwordHash ?? null, request.password);

  if (!ok || !account) {
    // Already counted; the failure at a limit locks the subject.
    if (addressKey && addressCharge && reachesLimit(addressCharge, LOGIN_THROTTLE.address)) await loginThrottles.lockIfFull(em, addressKey, LOGIN_THROTTLE.address, now);
    if (reachesLimit(accountCharge, LOGIN_THROTTLE.account)) {
      const after = await loginThrottles.lockIfFull(em, accountKey, LOGIN_THROTTLE.account, now);
      const ms = lockRemainingMs(after, now);
      if (ms > 0) throw locked('account', ms);
    }
    throw new DomainError('UNAUTHENTICATED', WRONG_CREDENTIALS);
  }

  const partner = await partners.byGpid(em, account.partnerGpid);
  if (!partner || partner.status !== 'active') {
    // The right password: not a failure, though no session either.
    await loginThrottles.release(em, accountCharge);
    if (addressCharge) await loginThrottles.release(em, addressCharge);
    throw new DomainError('FORBIDDEN', 'This partner is suspended; contact support.');
  }
  return em.transactional(async (tx) => {
    await loginThrottles.clear(tx, accountKey);
    if (addressCharge) await loginThrottles.release(tx, addressCharge);
    const started = startPortalSession(tx, partner, request.clientAddress ?? null, now);
    tx.assign(account, { lastLoginAt: now });
    tx.persist(account);
    return started;
  });
}

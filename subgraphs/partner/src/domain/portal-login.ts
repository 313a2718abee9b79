import type { EntityManager } from '@mikro-orm/core';
import { DomainError, validationError } from '@svc/platform';
import { loginThrottles } from '../entities/login-throttles.js';
import { portalAccounts } from '../entities/portal-accounts.js';
import { partners } from '../entities/partners.js';
import { normalizeEmail } from './email-address.js';
import { afterFailure, lockRemainingMs, LOGIN_THROTTLE, retryAfterSeconds } from './login-throttle.js';
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
 * the address). A wrong password and an unknown e-mail cost the same argon2 work and get the same
 * 401; both count against the e-mail and the address. The failure that reaches the limit already
 * answers 423. A success clears the e-mail's count (never the address's: one valid account must
 * not launder an address's failures).
 */
export async function loginToPortal(em: EntityManager, request: PortalLoginRequest, now: Date): Promise<StartedSession> {
  const email = normalizeEmail(request.email);
  if (email === undefined) throw validationError([{ field: 'email', message: 'must be a valid e-mail address' }]);
  if (request.password.length === 0 || [...request.password].length > PASSWORD_POLICY.maxLength) {
    throw validationError([{ field: 'password', message: `must be 1 to ${PASSWORD_POLICY.maxLength} characters` }]);
  }
  const accountKey = `account:${email}`;
  const addressKey = request.clientAddress ? `address:${request.clientAddress.slice(0, 200)}` : null;
  const states = await loginThrottles.bySubjects(em, addressKey ? [accountKey, addressKey] : [accountKey]);

  const addressLock = addressKey ? lockRemainingMs(states.get(addressKey), now) : 0;
  if (addressLock > 0) throw locked('address', addressLock);
  const accountLock = lockRemainingMs(states.get(accountKey), now);
  if (accountLock > 0) throw locked('account', accountLock);

  const account = await portalAccounts.byEmail(em, email);
  const ok = await verifyPortalPassword(account?.passwordHash ?? null, request.password);

  if (!ok || !account) {
    const accountState = { subject: accountKey, ...afterFailure(states.get(accountKey), now, LOGIN_THROTTLE.account) };
    await em.transactional(async (tx) => {
      loginThrottles.save(tx, accountState, states.get(accountKey));
      if (addressKey) loginThrottles.save(tx, { subject: addressKey, ...afterFailure(states.get(addressKey), now, LOGIN_THROTTLE.address) }, states.get(addressKey));
    });
    if (accountState.lockedUntil) throw locked('account', accountState.lockedUntil.getTime() - now.getTime());
    throw new DomainError('UNAUTHENTICATED', WRONG_CREDENTIALS);
  }

  const partner = await partners.byGpid(em, account.partnerGpid);
  if (!partner || partner.status !== 'active') throw new DomainError('FORBIDDEN', 'This partner is suspended; contact support.');
  return em.transactional(async (tx) => {
    await loginThrottles.clear(tx, accountKey);
    const started = startPortalSession(tx, partner, request.clientAddress ?? null, now);
    tx.assign(account, { lastLoginAt: now });
    tx.persist(account);
    return started;
  });
}

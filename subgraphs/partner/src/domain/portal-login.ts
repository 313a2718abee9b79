import type { EntityManager } from '@mikro-orm/core';
import { DomainError, validationError } from '@svc/platform';
import { loginThrottles } from '../entities/login-throttles.js';
import { portalAccounts } from '../entities/portal-accounts.js';
import { partners } from '../entities/partners.js';
import { partnerApplications } from '../entities/partner-applications.js';
import type { PartnerApplication } from '../entities/partner-application.js';
import type { PortalAccount } from '../entities/portal-account.js';
import type { LoginThrottle } from '../entities/login-throttle.js';
import { rotateResumeToken } from './application-workflow.js';
import { normalizeEmail } from './email-address.js';
import { accountThrottleSubject, lockRemainingMs, LOGIN_THROTTLE, reachesLimit, retryAfterSeconds } from './login-throttle.js';
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
/** A right e-mail and password: of a portal account, or (no account yet) of an application awaiting approval. */
interface CheckedPassword {
  account: PortalAccount | null;
  application: PartnerApplication | null;
  accountKey: string;
  accountCharge: LoginThrottle;
  addressCharge: LoginThrottle | null;
}

/**
 * Count the attempt and check the password (see `loginToPortal`). With no portal account for the
 * e-mail, the password is checked against the newest application of that contact e-mail that is
 * not approved and holds one instead: one argon2 verification in every case, so an address with
 * an application and one without cost the same time, and a wrong password answers the same 401.
 * @throws the 401, 423 and 429 of `loginToPortal`.
 */
async function checkPortalPassword(em: EntityManager, request: PortalLoginRequest, now: Date): Promise<CheckedPassword> {
  const email = normalizeEmail(request.email);
  if (email === undefined) throw validationError([{ field: 'email', message: 'must be a valid e-mail address' }]);
  if (request.password.length === 0 || [...request.password].length > PASSWORD_POLICY.maxLength) {
    throw validationError([{ field: 'password', message: `must be 1 to ${PASSWORD_POLICY.maxLength} characters` }]);
  }
  const accountKey = accountThrottleSubject(email);
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
  const application = account ? null : await partnerApplications.newestAwaitingByEmail(em, email);
  const ok = await verifyPortalPassword(account?.passwordHash ?? application?.passwordHash ?? null, request.password);

  if (!ok || (!account && !application)) {
    // Already counted; the failure at a limit locks the subject.
    if (addressKey && addressCharge && reachesLimit(addressCharge, LOGIN_THROTTLE.address)) await loginThrottles.lockIfFull(em, addressKey, LOGIN_THROTTLE.address, now);
    if (reachesLimit(accountCharge, LOGIN_THROTTLE.account)) {
      const after = await loginThrottles.lockIfFull(em, accountKey, LOGIN_THROTTLE.account, now);
      const ms = lockRemainingMs(after, now);
      if (ms > 0) throw locked('account', ms);
    }
    throw new DomainError('UNAUTHENTICATED', WRONG_CREDENTIALS);
  }
  return { account, application, accountKey, accountCharge, addressCharge };
}

/** The right password, though no session: not a failure, so the attempt is taken back. */
async function takeBack(em: EntityManager, checked: CheckedPassword): Promise<void> {
  await loginThrottles.release(em, checked.accountCharge);
  if (checked.addressCharge) await loginThrottles.release(em, checked.addressCharge);
}

const STATUS_WORDS: Record<string, string> = { draft: 'not submitted yet', submitted: 'waiting for review', rejected: 'rejected' };

/**
 * The answer to the right e-mail and password of an application that is not approved: 403 with
 * `reason: application_not_approved`, the application's id and status, so the portal can open its
 * status page (`openPartnerApplication`) rather than say the password is wrong.
 */
function notApproved(application: PartnerApplication): DomainError {
  const returned = application.status === 'draft' && (application.history ?? []).some((h) => h.event === 'returned');
  const words = returned ? 'returned for changes' : (STATUS_WORDS[application.status] ?? application.status);
  return new DomainError('FORBIDDEN', `Your application ${application.id} is ${words}: there is no partner account until it is approved. Its status page shows where it stands.`, {
    details: { reason: 'application_not_approved', application_id: application.id, application_status: application.status },
  });
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
 * one valid account must not launder an address's failures). The right password of an application
 * that is not approved yet (no account exists) is not a failure either: 403 with
 * `reason: application_not_approved` and the application's id and status.
 */
export async function loginToPortal(em: EntityManager, request: PortalLoginRequest, now: Date): Promise<StartedSession> {
  const checked = await checkPortalPassword(em, request, now);
  const { account, accountKey, addressCharge } = checked;
  if (!account) {
    await takeBack(em, checked);
    throw notApproved(checked.application!);
  }

  const partner = await partners.byGpid(em, account.partnerGpid);
  if (!partner || partner.status !== 'active') {
    // The right password: not a failure, though no session either.
    await takeBack(em, checked);
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

/**
 * Open an application's status page with the applicant's contact e-mail and portal password, from a
 * browser that does not hold its resume token: answers the application and a fresh resume token
 * (the previous one stops working). The same counting, lockout and answers as `loginToPortal`; for
 * an approved account, the application the partner was created from.
 * @throws the 401, 423 and 429 of `loginToPortal`; `NOT_FOUND` for an approved partner registered
 *   without an application.
 */
export async function openApplicationWithPassword(em: EntityManager, request: PortalLoginRequest, now: Date): Promise<{ application: PartnerApplication; resumeToken: string }> {
  const checked = await checkPortalPassword(em, request, now);
  const application = checked.application ?? (checked.account ? await partnerApplications.byPartner(em, checked.account.partnerGpid) : null);
  if (!application) {
    await takeBack(em, checked);
    throw new DomainError('NOT_FOUND', 'This partner account was created without an application; sign in to the portal instead.');
  }
  return em.transactional(async (tx) => {
    await loginThrottles.clear(tx, checked.accountKey);
    if (checked.addressCharge) await loginThrottles.release(tx, checked.addressCharge);
    const resumeToken = rotateResumeToken(application, now);
    tx.persist(application);
    return { application, resumeToken };
  });
}

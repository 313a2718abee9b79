import type { EntityManager } from '@mikro-orm/core';
import { DomainError, isPartnerGpid, newId, newSecret, sha256Hex, validationError } from '@svc/platform';
import { normalizeEmail } from './email-address.js';
import { PortalPasswordResetEntity, type PortalPasswordReset } from '../entities/portal-password-reset.js';
import { PortalSessionEntity } from '../entities/portal-session.js';
import { PortalAccountEntity } from '../entities/portal-account.js';
import { portalAccounts } from '../entities/portal-accounts.js';
import { partners } from '../entities/partners.js';
import { checkPasswordStrength } from './password-policy.js';
import { hashPortalPassword } from './portal-accounts.js';
import { recordSessionRevoked } from './credential-revocation.js';
import { accountThrottleSubject } from './login-throttle.js';
import { loginThrottles } from '../entities/login-throttles.js';

/**
 * E-mail-free password reset. The platform sends no e-mail, so an operator issues a one-time reset
 * link for a partner's portal account and hands it over (telephone, their own mail, a ticket). The
 * link's secret (`svc_pwr_…`) exists only in the operator's answer; the service keeps its SHA-256.
 * A link works once, for {@link PASSWORD_RESET_LIFETIME_MINUTES} minutes; a newer link of the same
 * account supersedes the older. Using it sets a password held to the sign-up policy and ends every
 * open portal session of the partner. An unknown, used, superseded or expired link answers one and
 * the same error, so the answer tells nothing about which.
 */

export const PASSWORD_RESET_LIFETIME_MINUTES = 60;

/** What a reset answers the operator: the secret, once. */
export interface IssuedPasswordReset {
  reset: PortalPasswordReset;
  email: string;
  secret: string;
}

/** Issue a reset for the portal account of `partnerGpid` (the caller checked cms.admin). Commits. */
export async function issuePasswordReset(em: EntityManager, input: { partnerGpid: string; issuedBy: string | null }, now: Date): Promise<IssuedPasswordReset> {
  if (!isPartnerGpid(input.partnerGpid)) throw validationError([{ field: 'partner_gpid', message: 'must be CMS- followed by 8 digits' }]);
  return em.transactional(async (tx) => {
    const partner = await partners.byGpid(tx, input.partnerGpid);
    const account = partner ? await portalAccounts.byPartner(tx, partner.gpid) : null;
    if (!account) throw new DomainError('NOT_FOUND', `Partner ${input.partnerGpid} has no portal account.`);
    // One open link per account: the newest.
    await tx.nativeUpdate(PortalPasswordResetEntity, { partnerGpid: account.partnerGpid, usedAt: null }, { usedAt: now });
    const secret = newSecret('svc_pwr');
    const reset = tx.create(PortalPasswordResetEntity, {
      id: newId('pwr', now.getTime()),
      partnerGpid: account.partnerGpid,
      tokenHash: sha256Hex(secret),
      issuedBy: input.issuedBy,
      createdAt: now,
      expiresAt: new Date(now.getTime() + PASSWORD_RESET_LIFETIME_MINUTES * 60_000),
      usedAt: null,
    });
    await tx.flush();
    return { reset, email: account.email, secret };
  });
}

/** The one answer to a link that cannot be used, whatever the reason. */
function unusable(): DomainError {
  return validationError([{ field: 'token', message: 'is unknown, already used or expired: ask your operator for a new reset link' }], 'This password reset link cannot be used.');
}

export interface CompletedPasswordReset {
  partnerGpid: string;
  email: string;
  sessionsEnded: number;
  /** The partner.session.revoked events staged, to publish before answering. */
  revocationEventIds: string[];
}

/** Use a reset link: set the new password and end the partner's open sessions. Commits. */
export async function completePasswordReset(em: EntityManager, input: { token: unknown; password: unknown }, now: Date): Promise<CompletedPasswordReset> {
  if (typeof input.token !== 'string' || input.token === '' || input.token.length > 200) throw unusable();
  const tokenHash = sha256Hex(input.token);
  const found = await em.findOne(PortalPasswordResetEntity, { tokenHash });
  if (!found || found.usedAt !== null || found.expiresAt.getTime() <= now.getTime()) throw unusable();
  const account = await portalAccounts.byPartner(em, found.partnerGpid);
  const partner = await partners.byGpid(em, found.partnerGpid);
  if (!account || !partner) throw unusable();
  const problems = checkPasswordStrength(input.password, { email: account.email, organization_name: partner.legalName }, 'password');
  if (problems.length > 0) throw validationError(problems, 'The password does not meet the portal password policy.');
  const passwordHash = await hashPortalPassword(input.password as string);

  return em.transactional(async (tx) => {
    // Single use under concurrency: only the request that flips used_at from null goes on.
    const claimed = await tx.nativeUpdate(PortalPasswordResetEntity, { id: found.id, usedAt: null, expiresAt: { $gt: now } }, { usedAt: now });
    if (claimed !== 1) throw unusable();
    await tx.nativeUpdate(PortalAccountEntity, { partnerGpid: account.partnerGpid }, { passwordHash, passwordChangedAt: now });
    // The new password is usable at once: a lockout from the forgotten one's failures is lifted.
    await loginThrottles.clear(tx, accountThrottleSubject(normalizeEmail(account.email) ?? account.email));
    const open = await tx.find(PortalSessionEntity, { partnerGpid: account.partnerGpid, revokedAt: null, expiresAt: { $gt: now } });
    const revocationEventIds = open.map((session) => {
      session.revokedAt = now;
      session.revokedReason = 'password_reset';
      return recordSessionRevoked(tx, { id: session.id, partnerGpid: session.partnerGpid, revokedAt: now, reason: 'password_reset' });
    });
    await tx.flush();
    return { partnerGpid: account.partnerGpid, email: account.email, sessionsEnded: open.length, revocationEventIds };
  });
}

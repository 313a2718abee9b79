import type { EntityManager } from '@mikro-orm/core';
import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';
import { randomBytes } from 'node:crypto';
import { DomainError, isPartnerGpid, validationError } from '@svc/platform';
import { PortalAccountEntity, type PortalAccount } from '../entities/portal-account.js';
import { portalAccounts } from '../entities/portal-accounts.js';
import { partners } from '../entities/partners.js';
import { normalizeEmail } from './email-address.js';
import { checkPasswordStrength } from './password-policy.js';

/**
 * argon2id with OWASP's first recommended setting (19 MiB, 2 passes, 1 lane): about 20-40 ms per
 * hash on a server core, which is what every sign-in pays, wrong ones included.
 */
export const PORTAL_PASSWORD_HASHING: Options = {
  // `Algorithm` is a const enum, which isolated modules cannot read at run time: 2 is Argon2id.
  algorithm: 2 as Algorithm,
  memoryCost: 19_456,
  timeCost: 2,
  parallelism: 1,
};

/** Hash a portal password for storage (PHC string: algorithm, parameters, salt and hash). */
export function hashPortalPassword(password: string): Promise<string> {
  return hash(password, PORTAL_PASSWORD_HASHING);
}

let dummyHash: Promise<string> | undefined;

/**
 * Check a password against a stored hash. Without an account (`storedHash` null) it verifies
 * against a hash of a random password made with the same parameters, so an unknown e-mail costs
 * the same time as a wrong password and the answer time reveals nothing.
 */
export async function verifyPortalPassword(storedHash: string | null, password: string): Promise<boolean> {
  if (storedHash === null) {
    dummyHash ??= hashPortalPassword(randomBytes(18).toString('base64url'));
    await verify(await dummyHash, password);
    return false;
  }
  try {
    return await verify(storedHash, password);
  } catch {
    // An unreadable stored hash is a failed sign-in, not a crash.
    return false;
  }
}

/** The account to create: a plaintext password (checked against the policy) or an already made hash. */
export type PortalAccountRequest = { partnerGpid: string; email: string } & ({ password: string } | { passwordHash: string });

/**
 * Create the portal account of a partner: one per partner, e-mail addresses unique across
 * partners, the password held to the portal policy (password-policy.ts) and stored as argon2id.
 * Operators call it directly; onboarding approval calls it with the hash it made when the
 * application was submitted (see {@link hashPortalPassword}). Staged in `em`; the caller flushes.
 */
export async function createPortalAccount(em: EntityManager, request: PortalAccountRequest, now: Date = new Date()): Promise<PortalAccount> {
  const email = normalizeEmail(request.email);
  if (!isPartnerGpid(request.partnerGpid)) throw validationError([{ field: 'partner_gpid', message: 'must be CMS- followed by 8 digits' }]);
  if (email === undefined) throw validationError([{ field: 'email', message: 'must be a valid e-mail address' }]);
  const partner = await partners.byGpid(em, request.partnerGpid);
  if (!partner) throw new DomainError('NOT_FOUND', `No partner has GPID ${request.partnerGpid}.`);

  let passwordHash: string;
  if ('password' in request) {
    const problems = checkPasswordStrength(request.password, { email, organization_name: partner.legalName }, 'password');
    if (problems.length > 0) throw validationError(problems, 'The password does not meet the portal password policy.');
    passwordHash = await hashPortalPassword(request.password);
  } else {
    if (!request.passwordHash.startsWith('$argon2id$')) throw validationError([{ field: 'password_hash', message: 'must be an argon2id hash' }]);
    passwordHash = request.passwordHash;
  }

  if (await portalAccounts.byPartner(em, partner.gpid)) throw new DomainError('CONFLICT', `Partner ${partner.gpid} already has a portal account.`);
  if (await portalAccounts.byEmail(em, email)) throw new DomainError('CONFLICT', 'Another portal account uses this e-mail address.');
  return em.create(PortalAccountEntity, { partnerGpid: partner.gpid, email, passwordHash, createdAt: now, passwordChangedAt: now, lastLoginAt: null });
}

import type { EntityManager } from '@mikro-orm/core';
import { DomainError, makeEvent, newId, recordEvent } from '@svc/platform';
import { partnerApplications } from '../entities/partner-applications.js';
import type { PartnerApplication } from '../entities/partner-application.js';
import { partners } from '../entities/partners.js';
import { applyApplicationAction, historyOf, isApplicationEditable, type ApplicationAction, type ApplicationHistoryEntry } from './application-status.js';
import { normalizeEmail } from './email-address.js';
import { prepareStep, validateDraftForSubmission, type ApplicationDraft, type PreparedStep } from './application-draft.js';
import { newResumeToken, resumeTokenMatches } from './application-secrets.js';
import type { OnboardingStepKey } from './onboarding.js';
import { createPortalAccount, hashPortalPassword } from './portal-accounts.js';
import { unwrapValidation } from './validation-result.js';

/**
 * The onboarding workflow: an applicant (no credential yet, only the resume secret of the draft)
 * starts, saves and submits an application; a reviewer approves, rejects or returns it. Every
 * transition writes its event in the same transaction; callers publish after the commit.
 */

/** The draft view of a stored application. */
export function draftOf(application: PartnerApplication): ApplicationDraft {
  return {
    organization: application.organization,
    integration: application.integration,
    account: application.account,
    passwordSet: application.passwordHash !== null,
  };
}

/** Append one entry to the application's history (kept on the row, written with the change). */
function record(application: PartnerApplication, entry: ApplicationHistoryEntry): void {
  application.history = [...historyOf(application), entry];
}

/** The normalized contact e-mail of a saved organization step, if it has a valid one. */
function contactEmailOf(organization: Record<string, unknown> | null): string | null {
  const contact = organization?.['contact'];
  const email = contact && typeof contact === 'object' ? (contact as Record<string, unknown>)['email'] : undefined;
  return typeof email === 'string' ? (normalizeEmail(email) ?? null) : null;
}

const notFound = (id: string) => new DomainError('NOT_FOUND', 'No application matches this id and resume token.', { details: { application_id: id } });

/**
 * The application `id` if `resumeToken` is its resume secret. An unknown id and a wrong secret give
 * the same answer, so the API does not reveal which application ids exist.
 * @throws DomainError `NOT_FOUND`.
 */
export async function applicationForApplicant(em: EntityManager, id: string, resumeToken: string): Promise<PartnerApplication> {
  const application = await partnerApplications.byId(em, id);
  if (!application || !resumeTokenMatches(resumeToken, application.resumeSecretHash)) throw notFound(id);
  return application;
}

/** Start an empty draft; the resume token is returned once and only its hash is stored. */
export async function startApplication(em: EntityManager, now = new Date()): Promise<{ application: PartnerApplication; resumeToken: string }> {
  const secret = newResumeToken();
  const application = partnerApplications.create(em, { id: newId('app', now.getTime()), resumeSecretHash: secret.hash, now });
  await em.flush();
  return { application, resumeToken: secret.token };
}

/**
 * Save one step of a draft, valid or not, and return what was found wrong with it. A new portal
 * password is hashed (argon2id, the portal account's parameters) before anything is stored; a refused one leaves no password set.
 * @throws DomainError `NOT_FOUND` (id or secret), `CONFLICT` when the application is not a draft.
 */
export async function saveApplicationStep(
  em: EntityManager,
  id: string,
  resumeToken: string,
  step: OnboardingStepKey,
  input: Record<string, unknown>,
  now = new Date(),
): Promise<{ application: PartnerApplication; prepared: PreparedStep }> {
  const application = await applicationForApplicant(em, id, resumeToken);
  if (!isApplicationEditable(application.status)) {
    throw new DomainError('CONFLICT', `An application in status "${application.status}" cannot be edited.`, { details: { application_status: application.status } });
  }
  const prepared = prepareStep(step, input, draftOf(application));
  if (prepared.passwordToHash !== null) application.passwordHash = await hashPortalPassword(prepared.passwordToHash);
  else if (prepared.clearPassword) application.passwordHash = null;
  application[step] = prepared.stored;
  if (step === 'organization') application.contactEmail = contactEmailOf(application.organization);
  application.updatedAt = now;
  await em.flush();
  return { application, prepared: { ...prepared, passwordToHash: null } };
}

function summary(application: PartnerApplication): { legal_name: string | null; organization_type: string | null } {
  const organization = application.organization ?? {};
  const name = organization['legal_name'];
  const type = organization['organization_type'];
  return { legal_name: typeof name === 'string' ? name : null, organization_type: typeof type === 'string' ? type : null };
}

/**
 * Submit a draft for review: every step valid, a password set, the agreements accepted.
 * @throws DomainError `VALIDATION_ERROR` with step-prefixed field errors, `CONFLICT` when not a draft.
 */
export async function submitApplication(em: EntityManager, id: string, resumeToken: string, now = new Date()): Promise<PartnerApplication> {
  return em.transactional(async (tx) => {
    const application = await applicationForApplicant(tx, id, resumeToken);
    applyApplicationAction(application.status, 'submit');
    unwrapValidation(validateDraftForSubmission(draftOf(application)), 'The application is not complete.');
    application.status = 'submitted';
    application.submittedAt = now;
    application.updatedAt = now;
    record(application, { event: 'submitted', at: now.toISOString() });
    recordEvent(
      tx,
      makeEvent('partner.application.submitted', null, { event: 'partner.application.submitted', application_id: id, ...summary(application), submitted_at: now.toISOString() }, now),
    );
    return application;
  });
}

/** A reviewer's decision on a submitted application. */
export type ReviewAction = Extract<ApplicationAction, 'approve' | 'reject' | 'return_for_changes'>;

/**
 * Approve, reject or return a submitted application. Approval creates the partner under a fresh
 * CMS GPID and its portal account (the applicant's e-mail and password hash), and emits
 * `partner.application.approved` and `partner.registered`. An approved application keeps no
 * password hash (the portal account holds it); a rejected one keeps it, as the applicant's only way
 * to sign in and read the decision and its reason on the status page (it grants nothing else).
 * @throws DomainError `NOT_FOUND`, `CONFLICT` (wrong status), `VALIDATION_ERROR` (missing reason).
 */
export async function reviewApplication(
  em: EntityManager,
  id: string,
  action: ReviewAction,
  reason: string | null,
  reviewer: string,
  now = new Date(),
): Promise<PartnerApplication> {
  return em.transactional(async (tx) => {
    const application = await partnerApplications.byId(tx, id);
    if (!application) throw new DomainError('NOT_FOUND', `No application has the id ${id}.`, { details: { application_id: id } });
    const status = applyApplicationAction(application.status, action, reason);
    application.status = status;
    application.reviewer = reviewer;
    application.decisionReason = action === 'approve' ? null : (reason?.trim() ?? null);
    application.updatedAt = now;
    if (action !== 'return_for_changes') application.decidedAt = now;
    record(application, { event: action === 'return_for_changes' ? 'returned' : action === 'approve' ? 'approved' : 'rejected', at: now.toISOString(), ...(action === 'approve' ? {} : { reason: application.decisionReason }) });
    const base = { application_id: id, ...summary(application) };

    if (action === 'approve') {
      const complete = unwrapValidation(validateDraftForSubmission(draftOf(application)), 'The application is no longer complete; return it for changes.');
      if (application.passwordHash === null) throw new DomainError('CONFLICT', 'The application has no portal password; return it for changes.');
      const partner = await partners.create(tx, { legalName: complete.organization.legal_name, organizationType: complete.organization.organization_type });
      // The account row references the partner; the unit of work does not know that order.
      await tx.flush();
      await createPortalAccount(tx, { partnerGpid: partner.gpid, email: complete.organization.contact.email, passwordHash: application.passwordHash });
      application.partnerGpid = partner.gpid;
      // The portal account holds the hash now; a decided application keeps no copy of it.
      application.passwordHash = null;
      const approved = { event: 'partner.application.approved', ...base, partner_gpid: partner.gpid, approved_at: now.toISOString() };
      recordEvent(tx, makeEvent('partner.application.approved', partner.gpid, approved, now));
      recordEvent(tx, makeEvent('partner.registered', partner.gpid, { event: 'partner.registered', partner_gpid: partner.gpid, legal_name: partner.legalName }, now));
    } else if (action === 'reject') {
      recordEvent(tx, makeEvent('partner.application.rejected', null, { event: 'partner.application.rejected', ...base, reason: application.decisionReason, rejected_at: now.toISOString() }, now));
    } else {
      recordEvent(tx, makeEvent('partner.application.returned', null, { event: 'partner.application.returned', ...base, reason: application.decisionReason, returned_at: now.toISOString() }, now));
    }
    return application;
  });
}

/**
 * A fresh resume token for an application whose applicant proved it with the e-mail and password
 * (the status page in a browser that does not hold the draft). The previous token stops working:
 * one token per application, and the password is what decides who holds it.
 */
export function rotateResumeToken(application: PartnerApplication, now = new Date()): string {
  const secret = newResumeToken();
  application.resumeSecretHash = secret.hash;
  application.updatedAt = now;
  return secret.token;
}

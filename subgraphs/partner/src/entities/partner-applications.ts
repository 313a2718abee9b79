import type { EntityManager } from '@mikro-orm/core';
import type { ApplicationStatus } from '../domain/application-status.js';
import { PartnerApplicationEntity, type PartnerApplication } from './partner-application.js';

/** Partner application queries. Applications are never deleted: each attempt keeps its history. */
export const partnerApplications = {
  byId(em: EntityManager, id: string): Promise<PartnerApplication | null> {
    return em.findOne(PartnerApplicationEntity, { id });
  },

  /** The approved application a partner was created from. */
  byPartner(em: EntityManager, partnerGpid: string): Promise<PartnerApplication | null> {
    return em.findOne(PartnerApplicationEntity, { partnerGpid });
  },

  /**
   * The newest application of a contact e-mail that is not approved and holds a portal password
   * (a draft past step 3, a submitted, returned or rejected one): what a sign-in with that e-mail
   * checks the password against when there is no portal account yet.
   */
  newestAwaitingByEmail(em: EntityManager, contactEmail: string): Promise<PartnerApplication | null> {
    return em.findOne(PartnerApplicationEntity, { contactEmail, status: { $ne: 'approved' }, passwordHash: { $ne: null } }, { orderBy: { id: 'desc' } });
  },

  /** A new, empty draft. */
  create(em: EntityManager, input: { id: string; resumeSecretHash: string; now: Date }): PartnerApplication {
    return em.create(PartnerApplicationEntity, {
      id: input.id,
      status: 'draft',
      organization: null,
      integration: null,
      account: null,
      passwordHash: null,
      resumeSecretHash: input.resumeSecretHash,
      partnerGpid: null,
      reviewer: null,
      decisionReason: null,
      createdAt: input.now,
      updatedAt: input.now,
      submittedAt: null,
      decidedAt: null,
      history: [{ event: 'started', at: input.now.toISOString() }],
      contactEmail: null,
    });
  },

  /** One page in id (creation) order after `afterId`, optionally of one status; one extra row tells if there is more. */
  page(em: EntityManager, options: { status: ApplicationStatus | null; size: number; afterId: string | null }): Promise<PartnerApplication[]> {
    const where: Record<string, unknown> = {};
    if (options.status) where['status'] = options.status;
    if (options.afterId) where['id'] = { $gt: options.afterId };
    return em.find(PartnerApplicationEntity, where, { orderBy: { id: 'asc' }, limit: options.size + 1 });
  },
};

import type { EntityManager } from '@mikro-orm/core';
import { ScopeRequestEntity, type ScopeRequest, type ScopeRequestStatus } from './scope-request.js';

/** Scope request queries. Requests are never deleted: a decided request is the record of the decision. */
export const scopeRequests = {
  entity: ScopeRequestEntity,

  byId(em: EntityManager, id: string): Promise<ScopeRequest | null> {
    return em.findOne(ScopeRequestEntity, { id });
  },

  /** The pending requests of a partner. */
  pendingOf(em: EntityManager, partnerGpid: string): Promise<ScopeRequest[]> {
    return em.find(ScopeRequestEntity, { partnerGpid, status: 'pending' }, { orderBy: { id: 'asc' } });
  },

  /** One page, newest first, before `beforeId`; optionally of one partner and one status. One extra row tells if there is more. */
  page(em: EntityManager, options: { partnerGpid: string | null; status: ScopeRequestStatus | null; size: number; beforeId: string | null }): Promise<ScopeRequest[]> {
    const where: Record<string, unknown> = {};
    if (options.partnerGpid) where['partnerGpid'] = options.partnerGpid;
    if (options.status) where['status'] = options.status;
    if (options.beforeId) where['id'] = { $lt: options.beforeId };
    return em.find(ScopeRequestEntity, where, { orderBy: { id: 'desc' }, limit: options.size + 1 });
  },
};

import type { EntityManager } from '@mikro-orm/core';
import { SyncJobEntity, type SyncJob } from './sync-job.js';

/** Sync job queries. */
export const syncJobs = {
  byId(em: EntityManager, id: string): Promise<SyncJob | null> {
    return em.findOne(SyncJobEntity, { id });
  },

  /**
   * The newest jobs of many partners in ONE statement (the DataLoader batch behind
   * `Partner.syncJobs`), grouped back per partner in key order.
   */
  async newestByPartners(em: EntityManager, partnerGpids: readonly string[], perPartner: number): Promise<SyncJob[][]> {
    const rows = await em.find(SyncJobEntity, { partnerGpid: { $in: [...partnerGpids] } }, { orderBy: { id: 'desc' } });
    const grouped = new Map<string, SyncJob[]>(partnerGpids.map((g) => [g, []]));
    for (const row of rows) {
      const list = grouped.get(row.partnerGpid);
      if (list && list.length < perPartner) list.push(row);
    }
    return partnerGpids.map((g) => grouped.get(g) ?? []);
  },

  /** Counts by status since `since`, for pipeline health. */
  async countsSince(em: EntityManager, since: Date, partnerGpid: string | null): Promise<Record<string, number>> {
    const where = partnerGpid ? { createdAt: { $gte: since }, partnerGpid } : { createdAt: { $gte: since } };
    const rows = await em.find(SyncJobEntity, where, { fields: ['status'] });
    const counts: Record<string, number> = {};
    for (const r of rows) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return counts;
  },
};

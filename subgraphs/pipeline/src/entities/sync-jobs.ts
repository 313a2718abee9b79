import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { SyncJobEntity, type SyncJob } from './sync-job.js';

const TABLE = 'pipeline_sync_jobs';

function knexOf(em: EntityManager): Knex {
  return (em.getConnection() as unknown as { getKnex(): Knex }).getKnex();
}

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
    const knex = knexOf(em);
    // Rank in the database, so a partner's long history is never read just to keep its newest jobs.
    const ranked = knex(TABLE)
      .select('*', knex.raw('row_number() over (partition by partner_gpid order by id desc) as rank_in_partner'))
      .whereIn('partner_gpid', [...partnerGpids]);
    const rows: Record<string, unknown>[] = await knex.from(ranked.as('ranked')).where('rank_in_partner', '<=', perPartner).orderBy('id', 'desc');
    const grouped = new Map<string, SyncJob[]>(partnerGpids.map((g) => [g, []]));
    for (const row of rows) {
      delete row['rank_in_partner'];
      const job = em.map(SyncJobEntity, row);
      grouped.get(job.partnerGpid)?.push(job);
    }
    return partnerGpids.map((g) => grouped.get(g) ?? []);
  },

  /** Counts by status since `since`, for pipeline health. */
  async countsSince(em: EntityManager, since: Date, partnerGpid: string | null): Promise<Record<string, number>> {
    const query = knexOf(em)(TABLE)
      .select('status')
      .count({ n: '*' })
      .where('created_at', '>=', em.getPlatform().processDateProperty(since))
      .groupBy('status');
    if (partnerGpid) query.where('partner_gpid', partnerGpid);
    const rows = (await query) as unknown as { status: string; n: number | string }[];
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  },
};

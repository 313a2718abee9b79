import { LockMode, type EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { DomainError, newPartnerGpid, readRowsByKey, storedDate, storedJson } from '@svc/platform';
import { PartnerEntity, type Partner, type PartnerStatus } from './partner.js';
import { OPERATOR_PARTNER_GPID } from '../domain/operator-partner.js';
import { defaultGrantFor } from '../domain/partner-scopes.js';

export { OPERATOR_PARTNER_GPID };

const TABLE = 'partner_partners';

/**
 * A partner row as a plain read-only value, for the read paths (a page, a DataLoader batch): the
 * ORM's hydration, identity map and change-tracking snapshot were a quarter of this subgraph's CPU
 * on `partners(first: 20)` (bench/RESULTS.md). Writes load managed entities with `byGpid`.
 */
function partnerOfRow(row: Record<string, unknown>): Partner {
  return {
    gpid: String(row['gpid']),
    legalName: String(row['legal_name']),
    organizationType: String(row['organization_type']),
    status: String(row['status']) as PartnerStatus,
    createdAt: storedDate(row['created_at']),
    grantedScopes: storedJson<string[] | null>(row['granted_scopes']) ?? defaultGrantFor(String(row['gpid'])),
  };
}

/** Partner queries: resolvers call these, never the ORM directly. */
export const partners = {
  byGpid(em: EntityManager, gpid: string): Promise<Partner | null> {
    return em.findOne(PartnerEntity, { gpid });
  },

  /** Whether the partner exists, without loading it into the caller's unit of work (nothing to flush). */
  async exists(em: EntityManager, gpid: string): Promise<boolean> {
    return (await em.count(PartnerEntity, { gpid })) > 0;
  },

  /**
   * The partner, locked for the rest of the caller's transaction (PostgreSQL; SQLite serializes
   * writers anyway), so per-partner limits counted inside it cannot be raced past.
   */
  byGpidForUpdate(em: EntityManager, gpid: string): Promise<Partner | null> {
    return em.findOne(PartnerEntity, { gpid }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  },

  /** Replace a partner's grant (staged in `em`; the caller flushes inside its transaction). */
  setGrantedScopes(partner: Partner, scopes: readonly string[]): void {
    partner.grantedScopes = [...scopes];
  },

  /** Many partners in one statement (DataLoader batch), as plain values. */
  async byGpids(knex: Knex, gpids: readonly string[]): Promise<(Partner | null)[]> {
    if (gpids.length === 0) return [];
    const rows = await readRowsByKey<Record<string, unknown>>(knex, `select * from ${TABLE} where gpid in (${gpids.map(() => '?').join(', ')})`, gpids);
    const byGpid = new Map(rows.map((row) => [String(row['gpid']), partnerOfRow(row)]));
    return gpids.map((g) => byGpid.get(g) ?? null);
  },

  /**
   * One page in GPID order, starting after `afterGpid`, as plain values; one extra row tells if
   * there is more. Written as SQL text, not built: the query builder's compiling was a few percent
   * of `partners(first: 20)`; read by primary-key order (`readRowsByKey`), so on PostgreSQL without
   * knex's query runner around it.
   */
  async page(knex: Knex, size: number, afterGpid: string | null): Promise<Partner[]> {
    const sql = `select * from ${TABLE}${afterGpid ? ' where gpid > ?' : ''} order by gpid asc limit ?`;
    return (await readRowsByKey<Record<string, unknown>>(knex, sql, afterGpid ? [afterGpid, size + 1] : [size + 1])).map(partnerOfRow);
  },

  /** Create a partner under a fresh CMS GPID, retrying the rare collision of the 8-digit space. */
  async create(em: EntityManager, input: { legalName: string; organizationType: string }, gpid?: string): Promise<Partner> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const candidate = gpid ?? newPartnerGpid();
      if (candidate === OPERATOR_PARTNER_GPID && gpid === undefined) continue;
      if (await em.findOne(PartnerEntity, { gpid: candidate })) {
        if (gpid !== undefined) throw new DomainError('CONFLICT', `Partner ${gpid} already exists.`);
        continue;
      }
      return em.create(PartnerEntity, { gpid: candidate, ...input, status: 'active', createdAt: new Date(), grantedScopes: defaultGrantFor(candidate) });
    }
    throw new DomainError('CONFLICT', 'Could not allocate a unique partner GPID; try again.');
  },
};

import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';

const RULES = 'fhir_sharing_rules';

/** Partner `granteeGpid` may read partner `ownerGpid`'s resources of `resourceTypes` (null: every type). */
export interface SharingRule {
  id: string;
  ownerGpid: string;
  granteeGpid: string;
  resourceTypes: string[] | null;
  createdBy: string | null;
  createdAt: string;
}

interface Row {
  id: string;
  owner_gpid: string;
  grantee_gpid: string;
  resource_types: string | null;
  created_by: string | null;
  created_at: string;
}

const toRule = (r: Row): SharingRule => ({
  id: r.id,
  ownerGpid: r.owner_gpid,
  granteeGpid: r.grantee_gpid,
  resourceTypes: r.resource_types ? (JSON.parse(r.resource_types) as string[]) : null,
  createdBy: r.created_by,
  createdAt: r.created_at,
});

/** The sharing rules between partners (one per grantee and owner). */
export const sharingRuleStore = {
  async forGrantee(em: EntityManager, granteeGpid: string): Promise<SharingRule[]> {
    return ((await knexOf(em)(RULES).where({ grantee_gpid: granteeGpid })) as Row[]).map(toRule);
  },

  async list(em: EntityManager, filter: { ownerGpid?: string | null; granteeGpid?: string | null }): Promise<SharingRule[]> {
    const q = knexOf(em)(RULES);
    if (filter.ownerGpid) q.where('owner_gpid', filter.ownerGpid);
    if (filter.granteeGpid) q.where('grantee_gpid', filter.granteeGpid);
    return ((await q.orderBy('created_at').orderBy('id')) as Row[]).map(toRule);
  },

  /** Insert the pair's rule, or replace its types when the pair already has one. */
  async upsert(em: EntityManager, rule: SharingRule): Promise<SharingRule> {
    const knex = knexOf(em);
    const types = rule.resourceTypes ? JSON.stringify(rule.resourceTypes) : null;
    const existing = (await knex(RULES).where({ grantee_gpid: rule.granteeGpid, owner_gpid: rule.ownerGpid }).first()) as Row | undefined;
    if (existing) {
      await knex(RULES).where({ id: existing.id }).update({ resource_types: types, created_by: rule.createdBy, created_at: rule.createdAt });
      return { ...rule, id: existing.id };
    }
    await knex(RULES).insert({ id: rule.id, owner_gpid: rule.ownerGpid, grantee_gpid: rule.granteeGpid, resource_types: types, created_by: rule.createdBy, created_at: rule.createdAt });
    return rule;
  },

  async remove(em: EntityManager, id: string): Promise<boolean> {
    return (await knexOf(em)(RULES).where({ id }).delete()) > 0;
  },
};

import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { GPID_SYSTEM } from '../domain/gpid-identifier.js';

/** One row per linked Patient: its current GPID (m017). Not versioned: the registry's latest answer. */
export const GPID_LINKS = 'fhir_patient_gpid_links';

/** A Patient's identity link as stored. */
export interface GpidLink {
  resourceId: string;
  partnerGpid: string | null;
  gpid: string;
  /** The `identity.internal.fhir_patient_linked` (or merge) event that set it. */
  eventId: string;
}

/**
 * Add `linked_gpid` (the Patient's current GPID, null when not linked or not a Patient) to a query
 * of `fhir_resources` or `fhir_resource_history` rows aliased `alias`: resource-store's `toStored`
 * projects it onto the content. A primary-key lookup per row.
 */
export function selectLinkedGpid<Q extends Knex.QueryBuilder>(q: Q, alias: string): Q {
  return q.leftJoin(`${GPID_LINKS} as gl`, (j) => j.on('gl.resource_id', '=', `${alias}.id`).andOnVal(`${alias}.resource_type`, '=', 'Patient')).select('gl.gpid as linked_gpid') as Q;
}

export const gpidLinkStore = {
  async get(em: EntityManager, resourceId: string): Promise<string | null> {
    const row = (await knexOf(em)(GPID_LINKS).select('gpid').where('resource_id', resourceId).first()) as { gpid: string } | undefined;
    return row?.gpid ?? null;
  },

  /**
   * Set a Patient's link and its search-index row (`identifier=urn:svc:gpid|…`), in the caller's
   * transaction. The index row belongs to the link: a client write's reindex keeps it
   * (resource-store `reindex`), so neither write can undo the other.
   */
  async set(em: EntityManager, link: GpidLink, at: string): Promise<void> {
    const knex = knexOf(em);
    await knex(GPID_LINKS)
      .insert({ resource_id: link.resourceId, partner_gpid: link.partnerGpid, gpid: link.gpid, linked_at: at, last_event_id: link.eventId })
      .onConflict('resource_id')
      .merge(['gpid', 'linked_at', 'last_event_id']);
    await knex('fhir_sp_token').where({ resource_type: 'Patient', resource_id: link.resourceId, param: 'identifier', system: GPID_SYSTEM }).delete();
    await knex('fhir_sp_token').insert({ resource_type: 'Patient', resource_id: link.resourceId, param: 'identifier', system: GPID_SYSTEM, code: link.gpid, text: null });
  },

  /** Ids of the Patients (every partner's, deleted ones included) linked to one of `gpids`. */
  async idsWithGpid(em: EntityManager, gpids: readonly string[]): Promise<string[]> {
    if (gpids.length === 0) return [];
    const rows = (await knexOf(em)(GPID_LINKS).select('resource_id').whereIn('gpid', [...gpids])) as { resource_id: string }[];
    return rows.map((r) => r.resource_id);
  },
};

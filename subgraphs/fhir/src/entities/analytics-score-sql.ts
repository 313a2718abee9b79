import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { CodedCondition } from '../domain/analytics/charlson.js';
import { RESOURCES, whereVisible, type ResourceView } from './resource-store.js';

/**
 * A patient's birth date and the codes of its Conditions, for a score: the Patient must be in the
 * caller's read view (else null, as if it did not exist), and so must each Condition. Conditions
 * verified as refuted or entered in error are left out. Read from the search-index tables (token
 * `code`, reference `subject`, date `birthdate`), no resource body is parsed.
 */
export async function patientConditions(em: EntityManager, view: ResourceView, patientId: string): Promise<{ birthDate: string | null; conditions: CodedCondition[] } | null> {
  const knex = knexOf(em);
  const patient = (await whereVisible(knex({ p: RESOURCES }).where({ 'p.resource_type': 'Patient', 'p.id': patientId }).where('p.deleted', 0).select('p.id'), 'p.partner_gpid', view, 'Patient').first()) as { id: string } | undefined;
  if (!patient) return null;
  const birth = (await knex('fhir_sp_date').where({ resource_type: 'Patient', resource_id: patientId, param: 'birthdate' }).select('low').first()) as { low: string } | undefined;
  const q = knex({ c: RESOURCES })
    .join({ cs: 'fhir_sp_reference' }, (j) => j.on('cs.resource_id', 'c.id').andOnVal('cs.resource_type', 'Condition').andOnVal('cs.param', 'subject').andOnVal('cs.target_type', 'Patient'))
    .join({ ct: 'fhir_sp_token' }, (j) => j.on('ct.resource_id', 'c.id').andOnVal('ct.resource_type', 'Condition').andOnVal('ct.param', 'code'))
    .where('c.resource_type', 'Condition')
    .where('c.deleted', 0)
    .where('cs.target_id', patientId)
    .whereNotNull('ct.code')
    .whereNotExists((e) =>
      e.select(knex.raw('1')).from({ cv: 'fhir_sp_token' }).whereRaw('cv.resource_id = c.id').where('cv.resource_type', 'Condition').where('cv.param', 'verification-status').whereIn('cv.code', ['refuted', 'entered-in-error']),
    )
    .select({ id: 'c.id', system: 'ct.system', code: 'ct.code', display: 'ct.text' })
    .orderBy('c.id')
    .orderBy('ct.code');
  whereVisible(q, 'c.partner_gpid', view, 'Condition');
  const rows = (await q) as { id: string; system: string | null; code: string; display: string | null }[];
  return { birthDate: birth?.low ?? null, conditions: rows.map((r) => ({ id: r.id, system: r.system ?? '', code: r.code, display: r.display })) };
}

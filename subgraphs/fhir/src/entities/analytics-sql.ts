import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import type { ConceptRef, StructuredQuery } from '../domain/analytics/structured-query.js';
import { LOINC } from '../domain/analytics/vocabulary.js';
import { RESOURCES, whereVisible, type ResourceView } from './resource-store.js';

/**
 * A StructuredQuery as SQL over the FHIR store's search-index tables (the same tables and indexes
 * FHIR search uses: token by (type, param, code, system), reference by (type, param, target),
 * date by (type, param, low, high), and every index table by (type, resource id)), within the
 * caller's read view. One aggregate statement per query; no resource body is read. The SQL is
 * the common subset of SQLite and PostgreSQL (`substr`, `coalesce`, `avg`, `count(distinct …)`).
 */

const TOKEN = 'fhir_sp_token';
const DATE = 'fhir_sp_date';
const REF = 'fhir_sp_reference';
const QTY = 'fhir_sp_quantity';

/** Verification statuses that mean the condition is not the patient's. */
const NOT_A_DIAGNOSIS = ['refuted', 'entered-in-error'];
/** Observation statuses whose value does not count. */
const NOT_A_RESULT = ['entered-in-error', 'cancelled'];

const CODE_RE = /^[A-Za-z0-9.\-/]{1,64}$/;

export interface AggregateRow {
  bucket: string | null;
  value: number | null;
  patients: number;
  observations: number;
}

export interface ExecutionContext {
  view: ResourceView;
  /** The UTC day ages are computed on, YYYY-MM-DD. */
  asOf: string;
}

function dayAfter(date: string): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  return new Date(d.getTime() + 86_400_000).toISOString();
}

function yearsBefore(date: string, years: number): string {
  const d = new Date(`${date}T00:00:00.000Z`);
  return new Date(Date.UTC(d.getUTCFullYear() - years, d.getUTCMonth(), d.getUTCDate())).toISOString().slice(0, 10);
}

/**
 * `t.code` in a code set: exact codes, or ICD-10 categories by prefix. A prefix is also written as
 * the range [prefix, successor) so the token index (type, param, code, system) serves it on both
 * databases (SQLite never uses an index for its case-insensitive LIKE); the prefixes are
 * alphanumeric category codes, for which that range holds exactly the codes that start with them.
 */
function whereCodeIn(q: Knex.QueryBuilder, alias: string, concepts: readonly ConceptRef[]): void {
  q.where((w) => {
    for (const concept of concepts) {
      for (const c of concept.codes) {
        if (!CODE_RE.test(c.code)) continue;
        w.orWhere((x) => {
          x.where(`${alias}.system`, c.system);
          if (c.match === 'exact') {
            x.where(`${alias}.code`, c.code);
            return;
          }
          if (/^[A-Z0-9]+$/.test(c.code)) {
            const last = c.code.charCodeAt(c.code.length - 1);
            x.where(`${alias}.code`, '>=', c.code).where(`${alias}.code`, '<', c.code.slice(0, -1) + String.fromCharCode(last + 1));
          }
          x.where(`${alias}.code`, 'like', `${c.code}%`);
        });
      }
    }
  });
}

/**
 * The date of a Condition: its onset, else its recorded date (the earliest indexed instant of either).
 * The lookup must go through the (resource_type, resource_id) index: written `param || ''` the
 * param test cannot use the (resource_type, param, low, high) index, which SQLite would otherwise
 * pick without statistics and then read every Condition's onset for each Condition.
 */
function conditionDate(knex: Knex, alias: string): Knex.Raw {
  return knex.raw(
    `coalesce((select min(d1.low) from ${DATE} d1 where d1.resource_type = 'Condition' and d1.resource_id = ${alias}.id and d1.param || '' = 'onset-date'),` +
      ` (select min(d2.low) from ${DATE} d2 where d2.resource_type = 'Condition' and d2.resource_id = ${alias}.id and d2.param || '' = 'recorded-date'))`,
  );
}

/** Conditions of a code set that the caller may read: id, patient id and date. */
function conditions(knex: Knex, ctx: ExecutionContext, concepts: readonly ConceptRef[]): Knex.QueryBuilder {
  const q = knex({ c: RESOURCES })
    .join({ cs: REF }, (j) => j.on('cs.resource_id', 'c.id').andOnVal('cs.resource_type', 'Condition').andOnVal('cs.param', 'subject').andOnVal('cs.target_type', 'Patient'))
    .where('c.resource_type', 'Condition')
    .where('c.deleted', 0)
    // Driven by the token index: the Conditions carrying one of the codes, then their rows by primary key.
    .whereIn('c.id', (sub) => {
      sub.select('ct.resource_id').from({ ct: TOKEN }).where('ct.resource_type', 'Condition').where('ct.param', 'code');
      whereCodeIn(sub, 'ct', concepts);
    })
    .whereNotExists((e) =>
      e.select(knex.raw('1')).from({ cv: TOKEN }).whereRaw('cv.resource_id = c.id').where('cv.resource_type', 'Condition').where('cv.param', 'verification-status').whereIn('cv.code', NOT_A_DIAGNOSIS),
    )
    .select({ id: 'c.id', patient_id: 'cs.target_id', at: conditionDate(knex, 'c') });
  return whereVisible(q, 'c.partner_gpid', ctx.view, 'Condition');
}

/** Keep rows whose date column lies in the period. */
function inPeriod(q: Knex.QueryBuilder, column: string, period: StructuredQuery['period']): Knex.QueryBuilder {
  if (!period) return q;
  if (period.start) q.where(column, '>=', `${period.start}T00:00:00.000Z`);
  return q.where(column, '<', dayAfter(period.end));
}

/** The ids of the cohort's patients the caller may read. */
function cohort(knex: Knex, ctx: ExecutionContext, query: StructuredQuery): Knex.QueryBuilder {
  const { gender, age, conditions: named, excluded_conditions: excluded } = query.cohort;
  const q = knex({ p: RESOURCES }).where('p.resource_type', 'Patient').where('p.deleted', 0).select('p.id');
  whereVisible(q, 'p.partner_gpid', ctx.view, 'Patient');
  // Demographics as uncorrelated sets read off the value indexes (gender by code, birth date by range).
  if (gender) {
    q.whereIn('p.id', (sub) => sub.select('g.resource_id').from({ g: TOKEN }).where('g.resource_type', 'Patient').where('g.param', 'gender').where('g.code', gender));
  }
  if (age) {
    q.whereIn('p.id', (sub) => {
      sub.select('b.resource_id').from({ b: DATE }).where('b.resource_type', 'Patient').where('b.param', 'birthdate');
      // min completed years A: born on or before asOf - A years; max M: born after asOf - (M + 1) years.
      if (age.min !== null) sub.where('b.low', '<', dayAfter(yearsBefore(ctx.asOf, age.min)));
      if (age.max !== null) sub.where('b.low', '>=', dayAfter(yearsBefore(ctx.asOf, age.max + 1)));
    });
  }
  // For a count of diagnoses the named conditions are what is counted, not a filter of the cohort.
  if (named && query.measure !== 'condition_count') {
    const dated = query.period_applies_to === 'condition_onset';
    const groups = named.match === 'all' ? named.concepts.map((c) => [c]) : [named.concepts];
    for (const group of groups) {
      const sub = knex.select('x.patient_id').from(conditions(knex, ctx, group).as('x'));
      if (dated) inPeriod(sub, 'x.at', query.period);
      q.whereIn('p.id', sub);
    }
  }
  if (excluded.length > 0) q.whereNotIn('p.id', knex.select('y.patient_id').from(conditions(knex, ctx, excluded).as('y')));
  return q;
}

function bucketOf(knex: Knex, column: string, groupBy: StructuredQuery['group_by']): Knex.Raw {
  if (groupBy === 'month') return knex.raw(`substr(${column}, 1, 7)`);
  if (groupBy === 'year') return knex.raw(`substr(${column}, 1, 4)`);
  return knex.raw('null');
}

const num = (v: unknown): number => (v === null || v === undefined ? 0 : Number(v));

/** Run the query's aggregate: one row, or one row per bucket when it groups. */
export async function runAggregate(em: EntityManager, ctx: ExecutionContext, query: StructuredQuery): Promise<{ rows: AggregateRow[]; otherUnits: number }> {
  const knex = knexOf(em);
  const patients = cohort(knex, ctx, query);
  const grouped = query.group_by !== null;

  if (query.measure === 'patient_count' && !grouped) {
    const row = (await knex.count({ n: '*' }).from(patients.as('pc')).first()) as { n: unknown } | undefined;
    return { rows: [{ bucket: null, value: num(row?.n), patients: num(row?.n), observations: 0 }], otherUnits: 0 };
  }

  if (query.measure === 'patient_count' || query.measure === 'condition_count') {
    // Diagnoses (or the patients who had them) by their date, within the cohort.
    const q = knex
      .from(conditions(knex, ctx, query.cohort.conditions!.concepts).as('x'))
      .whereIn('x.patient_id', patients)
      .select({ bucket: bucketOf(knex, 'x.at', query.group_by) })
      .countDistinct({ pts: 'x.patient_id' });
    if (query.measure === 'condition_count') q.count({ n: '*' });
    else q.countDistinct({ n: 'x.patient_id' });
    if (query.period) inPeriod(q, 'x.at', query.period);
    if (grouped) q.whereNotNull('x.at').groupBy('bucket').orderBy('bucket');
    const rows = (await q) as { bucket: string | null; n: unknown; pts: unknown }[];
    return { rows: rows.map((r) => ({ bucket: r.bucket, value: num(r.n), patients: num(r.pts), observations: 0 })), otherUnits: 0 };
  }

  // observation_average: the mean of the Observation values in the query's unit, within the cohort.
  const obs = query.observation!;
  const base = () => {
    const q = knex({ o: RESOURCES })
      .join({ os: REF }, (j) => j.on('os.resource_id', 'o.id').andOnVal('os.resource_type', 'Observation').andOnVal('os.param', 'subject').andOnVal('os.target_type', 'Patient'))
      .join({ oq: QTY }, (j) => j.on('oq.resource_id', 'o.id').andOnVal('oq.resource_type', 'Observation').andOnVal('oq.param', 'value-quantity'))
      .where('o.resource_type', 'Observation')
      .where('o.deleted', 0)
      .whereIn('o.id', (sub) => sub.select('oc.resource_id').from({ oc: TOKEN }).where('oc.resource_type', 'Observation').where('oc.param', 'code').whereIn('oc.code', obs.loinc).where('oc.system', LOINC))
      .whereNotExists((e) => e.select(knex.raw('1')).from({ ost: TOKEN }).whereRaw('ost.resource_id = o.id').where('ost.resource_type', 'Observation').where('ost.param', 'status').whereIn('ost.code', NOT_A_RESULT))
      .whereIn('os.target_id', patients);
    whereVisible(q, 'o.partner_gpid', ctx.view, 'Observation');
    if (query.period || grouped) {
      q.join({ od: DATE }, (j) => j.on('od.resource_id', 'o.id').andOnVal('od.resource_type', 'Observation').andOnVal('od.param', 'date'));
      inPeriod(q, 'od.low', query.period);
    }
    return q;
  };
  const sameUnit = (q: Knex.QueryBuilder) => q.where((w) => w.where('oq.code', obs.unit).orWhere((x) => x.whereNull('oq.code').where('oq.unit', obs.unit)));
  const q = sameUnit(base()).avg({ v: 'oq.value' }).count({ n: '*' }).countDistinct({ pts: 'os.target_id' });
  if (grouped) q.select({ bucket: bucketOf(knex, 'od.low', query.group_by) }).groupBy('bucket').orderBy('bucket');
  const rows = (await q) as { bucket?: string | null; v: unknown; n: unknown; pts: unknown }[];
  const other = (await base()
    .whereNot((w) => w.where('oq.code', obs.unit).orWhere((x) => x.whereNull('oq.code').where('oq.unit', obs.unit)))
    .count({ n: '*' })
    .first()) as { n: unknown } | undefined;
  return {
    rows: rows.map((r) => ({ bucket: r.bucket ?? null, value: r.v === null || r.v === undefined ? null : Number(r.v), patients: num(r.pts), observations: num(r.n) })),
    otherUnits: num(other?.n),
  };
}

import type { SubgraphBuilder, SubgraphServices } from '@svc/platform';
import { computeScore, executeStored, interpretAndStore, type ExecutionResult, type ScoreResult } from '../domain/analytics/service.js';
import type { CharlsonComponent } from '../domain/analytics/charlson.js';
import type { Reading } from '../domain/analytics/structured-query.js';
import type { StoredAnalyticsQuery } from '../entities/analytics-query-store.js';

/**
 * Analytics over the FHIR store: the two-step natural-language query (read a question into a
 * reviewable structured query, then execute it) and the Charlson Comorbidity Index. REST twins:
 * POST /analytics/v1/query/nl, /query/execute and /analytics-score/compute (and the deprecated
 * /analytics/v1/query and /analytics/v1/risk-score mapped onto them).
 */
export function defineAnalytics(builder: SubgraphBuilder, services: SubgraphServices) {
  // Each field records an audit event (domain/analytics/events.ts): publish it once committed.
  const published = async <T>(work: Promise<T>): Promise<T> => {
    const result = await work;
    services.publishCommitted();
    return result;
  };

  const ReadingType = builder.objectRef<Reading>('AnalyticsReading').implement({
    description: 'One phrase of the question and how it was read.',
    fields: (t) => ({
      text: t.exposeString('text', { description: 'The phrase as written.' }),
      meaning: t.exposeString('meaning', { description: 'What it was read as (field, codes, bounds).' }),
    }),
  });

  const QueryType = builder.objectRef<StoredAnalyticsQuery>('AnalyticsQuery').implement({
    description: 'A question read into a structured query, stored for review and execution until it expires.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'anq_…: pass it to analyticsQueryExecute.' }),
      question: t.exposeString('question'),
      purposeOfUse: t.exposeString('purposeOfUse', { description: 'HL7 v3 PurposeOfUse code stated with the question.' }),
      structuredQuery: t.field({ type: 'JSONObject', description: 'The structured query that executes (snake_case JSON; see the fhir subgraph README, "Analytics").', resolve: (q) => q.query as unknown as Record<string, unknown> }),
      summary: t.exposeString('summary', { description: 'The structured query in one sentence.' }),
      readings: t.field({ type: [ReadingType], description: 'How each phrase of the question was read, in the order written.', resolve: (q) => q.readings }),
      createdAt: t.exposeString('createdAt'),
      expiresAt: t.exposeString('expiresAt', { description: 'After this instant the query can no longer be executed.' }),
    }),
  });

  const Point = builder.objectRef<NonNullable<ExecutionResult['series']>[number]>('AnalyticsSeriesPoint').implement({
    description: 'One bucket of a grouped result.',
    fields: (t) => ({
      period: t.exposeString('period', { description: 'YYYY-MM (by month) or YYYY (by year).' }),
      value: t.exposeFloat('value', { nullable: true, description: 'The count, or the average (null when no value fell in the bucket).' }),
      patients: t.exposeInt('patients', { description: 'Distinct patients contributing to the bucket.' }),
      observations: t.exposeInt('observations', { description: 'Observations averaged in the bucket (0 for counts).' }),
    }),
  });

  const ResultType = builder.objectRef<ExecutionResult>('AnalyticsQueryResult').implement({
    description: "The result of a stored query, computed over the FHIR resources the caller may read.",
    fields: (t) => ({
      queryId: t.id({ resolve: (r) => r.query.id }),
      query: t.field({ type: QueryType, resolve: (r) => r.query }),
      measure: t.string({ resolve: (r) => r.query.query.measure }),
      value: t.exposeFloat('value', { nullable: true, description: 'The count or average; for a grouped count, the total over the buckets; null for a grouped average or an average of nothing.' }),
      unit: t.exposeString('unit', { nullable: true, description: 'UCUM unit of an average.' }),
      series: t.field({ type: [Point], nullable: true, description: 'One point per month or year when the query groups.', resolve: (r) => r.series }),
      patients: t.exposeInt('patients', { description: 'Distinct patients counted or contributing values (summed over buckets when grouped).' }),
      observations: t.exposeInt('observations', { description: 'Observations averaged.' }),
      observationsInOtherUnits: t.exposeInt('observationsInOtherUnits', { description: 'Matching Observations left out because their unit differs from the query unit.' }),
      asOf: t.exposeString('asOf', { description: 'The UTC day ages were computed on.' }),
      executedAt: t.exposeString('executedAt'),
    }),
  });

  const Evidence = builder.objectRef<CharlsonComponent['evidence'][number]>('AnalyticsScoreEvidence').implement({
    description: 'A Condition code that put the patient in a category.',
    fields: (t) => ({
      conditionId: t.string({ resolve: (e) => e.condition_id }),
      system: t.exposeString('system'),
      code: t.exposeString('code'),
      display: t.exposeString('display', { nullable: true }),
    }),
  });

  const Component = builder.objectRef<CharlsonComponent>('AnalyticsScoreComponent').implement({
    description: 'A Charlson category the patient has, with its weight and evidence.',
    fields: (t) => ({
      category: t.exposeString('category'),
      display: t.exposeString('display'),
      weight: t.exposeInt('weight', { description: 'Points it adds (0 when a higher category of the hierarchy replaces it).' }),
      replacedBy: t.string({ nullable: true, resolve: (c) => c.replaced_by }),
      evidence: t.field({ type: [Evidence], resolve: (c) => c.evidence }),
    }),
  });

  const ScoreType = builder.objectRef<ScoreResult>('AnalyticsScore').implement({
    description: 'The Charlson Comorbidity Index of a patient (Quan 2005 ICD-10 coding; Quan 2011 or Charlson 1987 weights).',
    fields: (t) => ({
      patientId: t.exposeID('patientId'),
      algorithm: t.exposeString('algorithm'),
      weights: t.exposeString('weights', { description: 'quan-2011 or charlson-1987.' }),
      version: t.exposeString('version', { description: 'Version of the coding table and scoring rules.' }),
      score: t.exposeInt('score', { description: 'Comorbidity points plus age points.' }),
      comorbidityScore: t.int({ resolve: (s) => s.comorbidity_score }),
      agePoints: t.int({ resolve: (s) => s.age_points }),
      age: t.exposeInt('age', { nullable: true, description: 'Completed years, when age-adjusted.' }),
      components: t.field({ type: [Component], resolve: (s) => s.components }),
      conditionsWithoutCategory: t.int({ description: 'ICD-10 coded Conditions in no Charlson category.', resolve: (s) => s.conditions_without_category }),
      conditionsNotIcd10: t.int({ description: 'Coded Conditions without an ICD-10 code (not scored).', resolve: (s) => s.conditions_not_icd10 }),
      computedAt: t.exposeString('computedAt'),
    }),
  });

  builder.mutationFields((t) => ({
    analyticsQueryInterpret: t.field({
      type: QueryType,
      description: 'Read a natural-language question into a reviewable structured query and store it (step 1 of 2). Needs analytics.query and a purposeOfUse.',
      authScopes: { scope: 'analytics.query' },
      args: {
        question: t.arg.string({ required: true, description: 'The question in English, e.g. "How many female patients over 65 with diabetes?"' }),
        purposeOfUse: t.arg.string({ required: true, description: 'HL7 v3 PurposeOfUse: TREAT, ETREAT, CAREMGT, COC, HPAYMT, HOPERAT, HQUALIMP, POPHLTH, PUBHLTH, HRESCH or CLINTRCH.' }),
      },
      resolve: (_r, a, ctx) => published(interpretAndStore(ctx.em, ctx.principal, { question: a.question, purposeOfUse: a.purposeOfUse }, new Date())),
    }),
  }));

  builder.queryFields((t) => ({
    analyticsQueryExecute: t.field({
      type: ResultType,
      description: "Execute a stored query (step 2 of 2) over the FHIR resources the caller may read; needs analytics.query and FHIR search on the types it reads.",
      authScopes: { scope: 'analytics.query' },
      args: { queryId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => published(executeStored(ctx.em, ctx.principal, String(a.queryId), new Date())),
    }),
    analyticsScore: t.field({
      type: ScoreType,
      description: 'The Charlson Comorbidity Index of a patient from its Conditions; needs analytics.score and FHIR read of Patient and search of Condition.',
      authScopes: { scope: 'analytics.score' },
      args: {
        patientId: t.arg.string({ required: true, description: 'Logical id of the Patient (or Patient/<id>).' }),
        weights: t.arg.string({ description: 'quan-2011 (default) or charlson-1987.' }),
        ageAdjusted: t.arg.boolean({ description: 'Add the age points of Charlson 1994 (needs the patient birthDate). Default false.' }),
      },
      resolve: (_r, a, ctx) => published(computeScore(ctx.em, ctx.principal, { patientId: a.patientId, algorithm: a.weights ?? undefined, ageAdjusted: a.ageAdjusted ?? undefined }, new Date())),
    }),
  }));
}

import { capabilityRoute } from '@svc/platform';
import { SPEC_DEPRECATION } from '../deprecation.js';
import type { GatewayOperation, JsonSchema, LocalOperation, RouteInput, RouteSpec } from './route.js';
import { BodyReader, singleQueryValue } from './body-readers.js';
import { snakeKeys } from './snake-case.js';

/**
 * The analytics routes (spec "Other routes named"; payloads are ours, see the fhir subgraph README,
 * "Analytics"): the two-step natural-language query and the Charlson score, each one gateway
 * operation on the fhir subgraph, and the two deprecated paths mapped onto them (behind their
 * sunset, which answers 410 until the operator moves it with SVC_DEPRECATION_SUNSETS).
 */


const QUERY_FIELDS = 'id question purposeOfUse structuredQuery summary readings { text meaning } createdAt expiresAt';
const RESULT_FIELDS = `queryId measure value unit series { period value patients observations } patients observations observationsInOtherUnits asOf executedAt`;
const SCORE_FIELDS =
  'patientId algorithm weights version score comorbidityScore agePoints age components { category display weight replacedBy evidence { conditionId system code display } } conditionsWithoutCategory conditionsNotIcd10 computedAt';

const PURPOSES = ['TREAT', 'ETREAT', 'CAREMGT', 'COC', 'HPAYMT', 'HOPERAT', 'HQUALIMP', 'POPHLTH', 'PUBHLTH', 'HRESCH', 'CLINTRCH'];
const QUERY_ID: JsonSchema = { type: 'string', pattern: '^anq_[0-9a-z]{26}$' };
const TIMESTAMP: JsonSchema = { type: 'string', format: 'date-time' };

const NL_REQUEST: JsonSchema = {
  type: 'object',
  required: ['question', 'purpose_of_use'],
  properties: {
    question: { type: 'string', maxLength: 500, description: 'An aggregate question in English: counts, averages, trends over a period, cohorts by condition, age, gender.', examples: ['How many female patients over 65 with diabetes?'] },
    purpose_of_use: { type: 'string', enum: PURPOSES, description: 'HL7 v3 PurposeOfUse (terminology.hl7.org CodeSystem v3-ActReason).' },
  },
};

const CODE_SET: JsonSchema = {
  type: 'object',
  properties: {
    concept: { type: 'string' },
    display: { type: 'string' },
    codes: { type: 'array', items: { type: 'object', properties: { system: { type: 'string' }, code: { type: 'string' }, match: { type: 'string', enum: ['exact', 'prefix'] } } } },
    source: { type: 'string', description: 'The published value set the code set follows.' },
  },
};

const STRUCTURED_QUERY: JsonSchema = {
  type: 'object',
  description: 'The reviewable structured query. Every code set is written out in full.',
  properties: {
    version: { type: 'integer', const: 1 },
    measure: { type: 'string', enum: ['patient_count', 'condition_count', 'observation_average'] },
    observation: { type: ['object', 'null'], properties: { concept: { type: 'string' }, display: { type: 'string' }, loinc: { type: 'array', items: { type: 'string' } }, unit: { type: 'string', description: 'UCUM' }, source: { type: 'string' } } },
    cohort: {
      type: 'object',
      properties: {
        gender: { type: ['string', 'null'], enum: ['female', 'male', null] },
        age: { type: ['object', 'null'], description: 'Completed years on the execution day, bounds included.', properties: { min: { type: ['integer', 'null'] }, max: { type: ['integer', 'null'] } } },
        conditions: { type: ['object', 'null'], properties: { match: { type: 'string', enum: ['all', 'any'] }, concepts: { type: 'array', items: CODE_SET } } },
        excluded_conditions: { type: 'array', items: CODE_SET },
      },
    },
    period: { type: ['object', 'null'], description: 'Inclusive UTC dates.', properties: { start: { type: ['string', 'null'], format: 'date' }, end: { type: 'string', format: 'date' } } },
    period_applies_to: { type: ['string', 'null'], enum: ['condition_onset', 'observation_date', null] },
    group_by: { type: ['string', 'null'], enum: ['month', 'year', null] },
  },
};

const QUERY_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['query_id', 'structured_query', 'explanation', 'expires_at'],
  properties: {
    query_id: QUERY_ID,
    question: { type: 'string' },
    purpose_of_use: { type: 'string', enum: PURPOSES },
    structured_query: STRUCTURED_QUERY,
    explanation: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'The structured query in one sentence.' },
        readings: { type: 'array', items: { type: 'object', properties: { text: { type: 'string' }, meaning: { type: 'string' } } }, description: 'How each phrase was read, in order.' },
      },
    },
    created_at: TIMESTAMP,
    expires_at: { ...TIMESTAMP, description: 'After this instant the query can no longer be executed (410).' },
  },
};

const RESULT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    query_id: QUERY_ID,
    measure: { type: 'string', enum: ['patient_count', 'condition_count', 'observation_average'] },
    value: { type: ['number', 'null'], description: 'The count or average; for a grouped count the total; null for a grouped average or an average of nothing.' },
    unit: { type: ['string', 'null'], description: 'UCUM unit of an average.' },
    series: {
      type: ['array', 'null'],
      items: { type: 'object', properties: { period: { type: 'string', description: 'YYYY-MM or YYYY' }, value: { type: ['number', 'null'] }, patients: { type: 'integer' }, observations: { type: 'integer' } } },
    },
    patients: { type: 'integer' },
    observations: { type: 'integer' },
    observations_in_other_units: { type: 'integer' },
    as_of: { type: 'string', format: 'date', description: 'The UTC day ages were computed on.' },
    executed_at: TIMESTAMP,
  },
};

const SCORE_REQUEST: JsonSchema = {
  type: 'object',
  required: ['patient_id'],
  properties: {
    patient_id: { type: 'string', description: 'Logical id of a Patient the caller may read (or Patient/<id>).' },
    algorithm: { type: 'string', enum: ['charlson'], description: 'The score; charlson (Charlson Comorbidity Index) is the one offered.' },
    weights: { type: 'string', enum: ['quan-2011', 'charlson-1987'], description: 'Default quan-2011.' },
    age_adjusted: { type: 'boolean', description: 'Add Charlson 1994 age points (needs birthDate). Default false.' },
  },
};

const SCORE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    patient_id: { type: 'string' },
    algorithm: { type: 'string', const: 'charlson' },
    weights: { type: 'string', enum: ['quan-2011', 'charlson-1987'] },
    version: { type: 'string', description: 'Version of the coding table and scoring rules.' },
    score: { type: 'integer' },
    comorbidity_score: { type: 'integer' },
    age_points: { type: 'integer' },
    age: { type: ['integer', 'null'] },
    components: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          category: { type: 'string' },
          display: { type: 'string' },
          weight: { type: 'integer' },
          replaced_by: { type: ['string', 'null'] },
          evidence: { type: 'array', items: { type: 'object', properties: { condition_id: { type: 'string' }, system: { type: 'string' }, code: { type: 'string' }, display: { type: ['string', 'null'] } } } },
        },
      },
    },
    conditions_without_category: { type: 'integer' },
    conditions_not_icd10: { type: 'integer' },
    computed_at: TIMESTAMP,
  },
};

const NL_DOC = `mutation AnalyticsQueryInterpret($question: String!, $purposeOfUse: String!) { analyticsQueryInterpret(question: $question, purposeOfUse: $purposeOfUse) { ${QUERY_FIELDS} } }`;
const EXECUTE_DOC = `query AnalyticsQueryExecute($queryId: ID!) { analyticsQueryExecute(queryId: $queryId) { ${RESULT_FIELDS} } }`;
const SCORE_DOC = `query AnalyticsScore($patientId: String!, $weights: String, $ageAdjusted: Boolean) { analyticsScore(patientId: $patientId, weights: $weights, ageAdjusted: $ageAdjusted) { ${SCORE_FIELDS} } }`;

/** A stored query as REST answers it. */
function queryBody(q: Record<string, unknown>): Record<string, unknown> {
  return {
    query_id: q['id'],
    question: q['question'],
    purpose_of_use: q['purposeOfUse'],
    structured_query: q['structuredQuery'],
    explanation: { summary: q['summary'], readings: q['readings'] },
    created_at: q['createdAt'],
    expires_at: q['expiresAt'],
  };
}

function nlVariables(body: unknown): Record<string, unknown> {
  const reader = new BodyReader(body);
  // `query` was the legacy one-step route's name for the question.
  const question = reader.string('question') ?? reader.string('query');
  if (question === undefined) reader.fail('question', 'is required: a question in English');
  const purposeOfUse = reader.string('purpose_of_use', true);
  reader.done();
  return { question, purposeOfUse };
}

const nl: GatewayOperation = {
  document: NL_DOC,
  variables: ({ body }) => nlVariables(body),
  result: (data) => queryBody(data['analyticsQueryInterpret'] as Record<string, unknown>),
};

function executeVariables(body: unknown): Record<string, unknown> {
  const reader = new BodyReader(body);
  const queryId = reader.string('query_id', true);
  reader.done();
  return { queryId };
}

const execute: GatewayOperation = {
  document: EXECUTE_DOC,
  variables: ({ body }) => executeVariables(body),
  result: (data) => snakeKeys(data['analyticsQueryExecute']),
};

/** The score's variables from a JSON body (compute) or from query parameters (the legacy GET). */
function scoreVariables(source: Record<string, unknown>, fromQuery: boolean): Record<string, unknown> {
  const reader = new BodyReader(source, { allowEmpty: true });
  const patientId = reader.string('patient_id', true);
  const algorithm = reader.string('algorithm');
  if (algorithm !== undefined && algorithm !== 'charlson') reader.fail('algorithm', 'must be charlson (the Charlson Comorbidity Index)');
  const weights = reader.string('weights');
  let ageAdjusted: boolean | undefined;
  const rawAge = reader.raw('age_adjusted');
  if (rawAge !== undefined && rawAge !== null) {
    if (typeof rawAge === 'boolean') ageAdjusted = rawAge;
    else if (fromQuery && (rawAge === 'true' || rawAge === 'false')) ageAdjusted = rawAge === 'true';
    else reader.fail('age_adjusted', 'must be true or false');
  }
  reader.done();
  return { patientId, weights: weights ?? null, ageAdjusted: ageAdjusted ?? null };
}

const compute: GatewayOperation = {
  document: SCORE_DOC,
  variables: ({ body }) => scoreVariables((body ?? {}) as Record<string, unknown>, false),
  result: (data) => snakeKeys(data['analyticsScore']),
};

function queryParameters(input: RouteInput, names: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of names) {
    const value = singleQueryValue(input.query, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** GET /analytics/v1/risk-score?patient_id=…: the compute operation with query parameters. */
const legacyRiskScore: GatewayOperation = {
  document: SCORE_DOC,
  variables: (input) => scoreVariables(queryParameters(input, ['patient_id', 'algorithm', 'weights', 'age_adjusted']), true),
  result: (data) => snakeKeys(data['analyticsScore']),
};

/**
 * POST /analytics/v1/query: the one-step query as its two successors in turn, nl then execute,
 * each a gateway operation with the caller's own credential (so limits, scopes and tenancy are
 * theirs); the answer carries both the stored query and its result.
 */
const legacyQuery: LocalOperation = {
  documents: [NL_DOC, EXECUTE_DOC],
  async local(input, context) {
    const interpreted = await context.execute(NL_DOC, nlVariables(input.body));
    const query = interpreted['analyticsQueryInterpret'] as Record<string, unknown>;
    const executed = await context.execute(EXECUTE_DOC, { queryId: query['id'] });
    return { body: { query: queryBody(query), result: snakeKeys(executed['analyticsQueryExecute']) } };
  },
};

/** Scopes of the analytics routes (platform/src/auth/scope-catalog.ts; granted by an operator). */
const QUERY_SCOPES = ['analytics.query'];
const SCORE_SCOPES = ['analytics.score'];

export const analyticsRoutes: RouteSpec[] = [
  {
    id: 'analytics.query.nl',
    method: 'POST',
    path: '/analytics/v1/query/nl',
    summary: 'Natural-language query step of a two-step flow; takes a purpose_of_use. Answers the reviewable structured query (query_id, explanation, expiry); an unreadable question is a 422 saying what was and was not understood.',
    auth: 'bearer',
    scopes: QUERY_SCOPES,
    successStatus: 201,
    ...capabilityRoute('analytics.query.nl'),
    operation: nl,
    requestBody: NL_REQUEST,
    responseBody: QUERY_SCHEMA,
  },
  {
    id: 'analytics.query.execute',
    method: 'POST',
    path: '/analytics/v1/query/execute',
    summary: "Execute step of the two-step query flow: runs a stored query_id over the FHIR resources the caller may read (needs FHIR search scopes for the types it reads)",
    auth: 'bearer',
    scopes: QUERY_SCOPES,
    successStatus: 200,
    ...capabilityRoute('analytics.query.execute'),
    operation: execute,
    requestBody: { type: 'object', required: ['query_id'], properties: { query_id: QUERY_ID } },
    responseBody: RESULT_SCHEMA,
  },
  {
    id: 'analytics.score.compute',
    method: 'POST',
    path: '/analytics/v1/analytics-score/compute',
    summary: 'Score computation: the Charlson Comorbidity Index of a patient from its Condition codes, with the contributing conditions',
    auth: 'bearer',
    scopes: SCORE_SCOPES,
    successStatus: 200,
    ...capabilityRoute('analytics.score.compute'),
    operation: compute,
    requestBody: SCORE_REQUEST,
    responseBody: SCORE_SCHEMA,
  },
  {
    id: 'analytics.v1.query',
    method: 'POST',
    path: '/analytics/v1/query',
    product: 'analytics',
    summary: 'Legacy one-step analytics query: nl then execute in one call (body as /query/nl; the question may be sent as query)',
    auth: 'bearer',
    scopes: QUERY_SCOPES,
    successStatus: 200,
    rateLimit: { points: 30, per: 'minute' },
    deprecated: { ...SPEC_DEPRECATION, successors: [{ method: 'POST', path: '/analytics/v1/query/nl' }, { method: 'POST', path: '/analytics/v1/query/execute' }] },
    operation: legacyQuery,
    requestBody: NL_REQUEST,
    responseBody: { type: 'object', properties: { query: QUERY_SCHEMA, result: RESULT_SCHEMA } },
  },
  {
    id: 'analytics.v1.risk-score',
    method: 'GET',
    path: '/analytics/v1/risk-score',
    product: 'analytics',
    summary: 'Legacy risk score: the score computation with query parameters',
    auth: 'bearer',
    scopes: SCORE_SCOPES,
    successStatus: 200,
    rateLimit: { points: 120, per: 'minute' },
    deprecated: { ...SPEC_DEPRECATION, successors: [{ method: 'POST', path: '/analytics/v1/analytics-score/compute' }] },
    operation: legacyRiskScore,
    queryParameters: {
      patient_id: { schema: { type: 'string' }, description: 'Logical id of the Patient.', required: true },
      weights: { schema: { type: 'string', enum: ['quan-2011', 'charlson-1987'] }, description: 'Default quan-2011.' },
      age_adjusted: { schema: { type: 'string', enum: ['true', 'false'] }, description: 'Add age points. Default false.' },
    },
    responseBody: SCORE_SCHEMA,
  },
];

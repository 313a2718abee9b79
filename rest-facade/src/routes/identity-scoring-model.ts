import { capabilityRoute, DomainError, validationError } from '@svc/platform';
import { BodyReader } from './body-readers.js';
import type { JsonSchema, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/*
 * Not in the spec's table (our design): the versions of the identity match scoring model, for
 * operators (cms.admin).
 *
 *   GET  /api/identity/scoring-models/{version}   version number, or `active`
 *                                                 → { version, active, seed, trained_by, created_at, summary, parameters }
 *   GET  /api/identity/scoring-models             → { models: [{ version, active, seed, trained_by, created_at, summary }] }
 *   POST /api/identity/scoring-models             { seed?, labels?: [{ left_record_id, right_record_id, same }] }
 *                                                 → 201, the new version, now active
 *   POST /api/identity/scoring-models/{version}/activate
 *                                                 → the version, now active (a rollback, or forward)
 *
 * `parameters` and `summary` are returned as the model stores them (camelCase keys inside:
 * comparison and level names are part of the model, not of this API's spelling).
 */

const MODEL_FIELDS = 'version active seed trainedBy createdAt summary parameters';

function modelBody(m: Record<string, unknown>) {
  const { summary, parameters, ...rest } = m;
  return { ...(snakeKeys(rest) as Record<string, unknown>), summary, parameters };
}

const MODEL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    version: { type: 'integer', description: '1 is the built-in hand-set model.' },
    active: { type: 'boolean' },
    seed: { type: 'integer' },
    trained_by: { type: ['string', 'null'] },
    created_at: { type: ['string', 'null'], format: 'date-time' },
    summary: { type: ['object', 'null'], description: 'records, observations, randomPairs, blockedPairs, labelledPairs, labelsSkipped, rounds [{ rule, pairs, iterations, converged, matchShare }], estimated { m, u }, prior { exactPairs, recall, pairs, log2Odds } or null' },
    parameters: { type: 'object', description: 'version, m and u per level of given, family, dob, email, phone, sex, address, identifier, memberId; swappedOrderLog2, priorLog2Odds, dependentContactCapLog2, termFrequencies' },
  },
};

/** The `{version}` of a path: a version number, or `active` (null) where the route takes it. */
function versionParam(raw: string | undefined, allowActive: boolean): number | null {
  if (allowActive && raw === 'active') return null;
  if (!/^[1-9][0-9]{0,8}$/.test(raw ?? '')) throw validationError([{ field: 'version', message: allowActive ? 'must be a version number or active' : 'must be a version number' }]);
  return Number(raw);
}

function trainingVariables(body: unknown) {
  const reader = new BodyReader(body, { allowEmpty: true });
  for (const key of Object.keys((body ?? {}) as object)) if (key !== 'seed' && key !== 'labels') reader.fail(key, 'is not a field of this request (expected seed, labels)');
  const seed = reader.integer('seed');
  const raw = reader.raw('labels');
  let labels: Array<{ leftRecordId: unknown; rightRecordId: unknown; same: unknown }> | null = null;
  if (raw !== undefined && raw !== null) {
    if (!Array.isArray(raw)) reader.fail('labels', 'must be an array of { left_record_id, right_record_id, same }');
    else {
      labels = raw.map((item: unknown, i) => {
        const label = (typeof item === 'object' && item !== null && !Array.isArray(item) ? item : {}) as Record<string, unknown>;
        if (typeof label['left_record_id'] !== 'string') reader.fail(`labels.${i}.left_record_id`, 'must be a GPID');
        if (typeof label['right_record_id'] !== 'string') reader.fail(`labels.${i}.right_record_id`, 'must be a GPID');
        if (typeof label['same'] !== 'boolean') reader.fail(`labels.${i}.same`, 'must be true (same person) or false');
        return { leftRecordId: label['left_record_id'], rightRecordId: label['right_record_id'], same: label['same'] };
      });
    }
  }
  reader.done();
  return { seed: seed ?? null, labels };
}

export const identityScoringModelRoutes: RouteSpec[] = [
  {
    id: 'identity.model.list',
    method: 'GET',
    path: '/api/identity/scoring-models',
    ...capabilityRoute('identity.model.get'),
    summary: 'Every version of the identity match scoring model, newest first (operators)',
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 200,
    responseBody: { type: 'object', required: ['models'], properties: { models: { type: 'array', items: { ...MODEL_SCHEMA, description: 'Without parameters: GET /api/identity/scoring-models/{version} has them.' } } } },
    operation: {
      document: 'query IdentityScoringModels { identityScoringModels { version active seed trainedBy createdAt summary } }',
      result: (data) => ({ models: (data['identityScoringModels'] as Record<string, unknown>[]).map(modelBody) }),
    },
  },
  {
    id: 'identity.model.get',
    method: 'GET',
    path: '/api/identity/scoring-models/{version}',
    ...capabilityRoute('identity.model.get'),
    summary: 'A version of the identity match scoring model, or the active one (operators)',
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 200,
    pathParameters: { version: { schema: { type: 'string', pattern: '^([1-9][0-9]{0,8}|active)$' }, description: 'A version number, or active.' } },
    responseBody: MODEL_SCHEMA,
    operation: {
      document: `query IdentityScoringModel($version: Int) { identityScoringModel(version: $version) { ${MODEL_FIELDS} } }`,
      variables: ({ params }) => ({ version: versionParam(params['version'], true) }),
      result: (data, { params }) => {
        const model = data['identityScoringModel'] as Record<string, unknown> | null;
        if (!model) throw new DomainError('NOT_FOUND', `No scoring model has version ${params['version']}.`);
        return modelBody(model);
      },
    },
  },
  {
    id: 'identity.model.train',
    method: 'POST',
    path: '/api/identity/scoring-models',
    ...capabilityRoute('identity.model.train'),
    summary: 'Train a new version of the identity match scoring model on the registry and make it active (operators)',
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 201,
    requestBody: {
      type: 'object',
      description: 'Everything is optional. The same registry, labels and seed give the same model.',
      properties: {
        seed: { type: 'integer', minimum: 0, maximum: 2147483647, description: 'Default 1.' },
        labels: {
          type: 'array',
          maxItems: 10000,
          description: 'Pairs decided by an operator: their answer is fixed in the training.',
          items: { type: 'object', required: ['left_record_id', 'right_record_id', 'same'], properties: { left_record_id: { type: 'string' }, right_record_id: { type: 'string' }, same: { type: 'boolean' } } },
        },
      },
    },
    responseBody: MODEL_SCHEMA,
    operation: {
      document: `mutation TrainIdentityScoringModel($seed: Int, $labels: [IdentityTrainingLabelInput!]) { trainIdentityScoringModel(seed: $seed, labels: $labels) { ${MODEL_FIELDS} } }`,
      variables: ({ body }) => trainingVariables(body),
      result: (data) => modelBody(data['trainIdentityScoringModel'] as Record<string, unknown>),
    },
  },
  {
    id: 'identity.model.activate',
    method: 'POST',
    path: '/api/identity/scoring-models/{version}/activate',
    ...capabilityRoute('identity.model.activate'),
    summary: 'Make a stored version of the identity match scoring model the active one: a rollback, or forward (operators)',
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 200,
    pathParameters: { version: { schema: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' }, description: 'A stored version; 1 is the built-in model.' } },
    responseBody: { ...MODEL_SCHEMA, description: 'The version, now active. Recorded in the audit chain (identity.scoring_model.activated.v1) unless it already was active. 404 for an unknown version.' },
    operation: {
      document: `mutation ActivateIdentityScoringModel($version: Int!) { activateIdentityScoringModel(version: $version) { ${MODEL_FIELDS} } }`,
      variables: ({ params }) => ({ version: versionParam(params['version'], false) }),
      result: (data) => modelBody(data['activateIdentityScoringModel'] as Record<string, unknown>),
    },
  },
];

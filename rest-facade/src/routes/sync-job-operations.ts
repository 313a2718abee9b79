import { capabilityRoute, DomainError, isId, isPartnerGpid, validationError } from '@svc/platform';
import { BodyReader, singleQueryValue } from './body-readers.js';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/**
 * Sync jobs recorded by an external pipeline (kind external), beside /cms/pipeline/health and
 * /cms/pipeline/partners: the pipeline subgraph's createSyncJob, syncJob, Partner.syncJobs,
 * completeSyncJob and failSyncJob. Completing and failing emit pipeline.sync.completed and
 * pipeline.sync.failed. Another partner's job answers 404 exactly like a missing one.
 *
 * Reading one job and recording jobs have no per-route limit on GraphQL either (external pipelines
 * record jobs in bulk): they spend the product's overall and burst limits only.
 */

const JOB_FIELDS = 'jobId partnerGpid resourceTypes status recordsProcessed kind entries attempts createdAt startedAt updatedAt nextAttemptAt completedAt failedAt errorCode message';
const NULLABLE_TIMESTAMP: JsonSchema = { type: ['string', 'null'], format: 'date-time' };
const JOB_ID: JsonSchema = { type: 'string', pattern: '^job_[0-9a-z]{26}$' };
const PARTNER_GPID: JsonSchema = { type: 'string', pattern: '^CMS-[0-9]{8}$' };

const JOB_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['job_id', 'partner_gpid', 'resource_types', 'status', 'records_processed', 'created_at'],
  properties: {
    job_id: JOB_ID,
    partner_gpid: PARTNER_GPID,
    resource_types: { type: 'array', items: { type: 'string' }, description: 'FHIR type names.' },
    status: { type: 'string', enum: ['queued', 'running', 'retrying', 'completed', 'failed'] },
    records_processed: { type: 'integer' },
    kind: { type: ['string', 'null'], description: 'transaction, batch or ndjson (an asynchronous FHIR submission), or external (recorded here).' },
    entries: { type: ['integer', 'null'] },
    attempts: { type: 'integer' },
    created_at: { type: 'string', format: 'date-time' },
    started_at: NULLABLE_TIMESTAMP,
    updated_at: NULLABLE_TIMESTAMP,
    next_attempt_at: NULLABLE_TIMESTAMP,
    completed_at: NULLABLE_TIMESTAMP,
    failed_at: NULLABLE_TIMESTAMP,
    error_code: { type: ['string', 'null'] },
    message: { type: ['string', 'null'] },
  },
};

const JOB_PATH = { job_id: { schema: JOB_ID, description: 'The sync job (job_…).' } };

/** REST spelling of a job: snake_case keys, the status in lower case. */
function jobBody(job: unknown): Record<string, unknown> {
  const body = snakeKeys(job) as Record<string, unknown>;
  if (typeof body['status'] === 'string') body['status'] = body['status'].toLowerCase();
  return body;
}

function jobId(input: RouteInput): string {
  const id = input.params['job_id'] ?? '';
  if (!isId('job', id)) throw validationError([{ field: 'job_id', message: 'must be a sync job id (job_…)' }], 'The sync job id is malformed.');
  return id;
}

/** The partner a request names (`partner_gpid`), else the caller's own; 422 when neither exists. */
function partnerOf(named: string | undefined, input: RouteInput): string {
  if (named !== undefined && !isPartnerGpid(named)) throw validationError([{ field: 'partner_gpid', message: 'must be a CMS GPID (CMS- and 8 digits)' }]);
  const gpid = named ?? input.principal.partnerGpid;
  if (!gpid) throw validationError([{ field: 'partner_gpid', message: 'is required for a credential without a partner' }]);
  return gpid;
}

const createJob: GatewayOperation = {
  document: `mutation CreateSyncJob($partnerGpid: ID!, $resourceTypes: [String!]!) { createSyncJob(partnerGpid: $partnerGpid, resourceTypes: $resourceTypes) { ${JOB_FIELDS} } }`,
  variables: (input) => {
    const reader = new BodyReader(input.body);
    const resourceTypes = reader.stringArray('resource_types', true);
    if (resourceTypes && resourceTypes.length === 0) reader.fail('resource_types', 'must name at least one FHIR resource type');
    const named = reader.string('partner_gpid');
    reader.done();
    return { partnerGpid: partnerOf(named, input), resourceTypes };
  },
  result: (data) => jobBody(data['createSyncJob']),
};

const listJobs: GatewayOperation = {
  document: `query PartnerSyncJobs($gpid: ID!) { partner(gpid: $gpid) { gpid syncJobs { ${JOB_FIELDS} } } }`,
  variables: (input) => {
    const unknown = Object.keys(input.query).filter((k) => k !== 'partner_gpid');
    if (unknown.length > 0) throw validationError(unknown.map((field) => ({ field, message: 'is not a parameter of this route (known: partner_gpid)' })));
    return { gpid: partnerOf(singleQueryValue(input.query, 'partner_gpid'), input) };
  },
  result: (data, input) => {
    const partner = data['partner'] as { syncJobs: unknown[] } | null;
    // Another partner answers like a GPID nobody has.
    if (!partner) throw new DomainError('NOT_FOUND', `Partner ${singleQueryValue(input.query, 'partner_gpid') ?? ''} does not exist.`);
    return { sync_jobs: partner.syncJobs.map(jobBody) };
  },
};

const getJob: GatewayOperation = {
  document: `query SyncJob($jobId: ID!) { syncJob(jobId: $jobId) { ${JOB_FIELDS} } }`,
  variables: (input) => ({ jobId: jobId(input) }),
  result: (data, input) => {
    if (!data['syncJob']) throw new DomainError('NOT_FOUND', `Sync job ${input.params['job_id']} does not exist.`);
    return jobBody(data['syncJob']);
  },
};

const completeJob: GatewayOperation = {
  document: `mutation CompleteSyncJob($jobId: ID!, $recordsProcessed: Int!) { completeSyncJob(jobId: $jobId, recordsProcessed: $recordsProcessed) { ${JOB_FIELDS} } }`,
  variables: (input) => {
    const id = jobId(input);
    const reader = new BodyReader(input.body);
    const recordsProcessed = reader.integer('records_processed');
    if (reader.raw('records_processed') === undefined || reader.raw('records_processed') === null) reader.fail('records_processed', 'is required');
    else if (recordsProcessed !== undefined && recordsProcessed < 0) reader.fail('records_processed', 'must be 0 or more');
    reader.done();
    return { jobId: id, recordsProcessed };
  },
  result: (data) => jobBody(data['completeSyncJob']),
};

const failJob: GatewayOperation = {
  document: `mutation FailSyncJob($jobId: ID!, $errorCode: String!, $message: String!) { failSyncJob(jobId: $jobId, errorCode: $errorCode, message: $message) { ${JOB_FIELDS} } }`,
  variables: (input) => {
    const id = jobId(input);
    const reader = new BodyReader(input.body);
    const errorCode = reader.string('error_code', true);
    const message = reader.string('message', true);
    reader.done();
    return { jobId: id, errorCode, message };
  },
  result: (data) => jobBody(data['failSyncJob']),
};

const READ_SCOPES = ['cms.pipeline.read', 'cms.admin'];

/** The sync job routes. */
export const syncJobRoutes: RouteSpec[] = [
  {
    id: 'pipeline.sync-jobs.create',
    method: 'POST',
    path: '/cms/pipeline/sync-jobs',
    product: 'partner-ecosystem',
    summary: 'Record a sync job run by an external pipeline (queued, kind external)',
    auth: 'bearer',
    scopes: ['cms.fhir.bundle.push', 'cms.admin'],
    successStatus: 201,
    operation: createJob,
    requestBody: {
      type: 'object',
      required: ['resource_types'],
      properties: {
        resource_types: { type: 'array', minItems: 1, items: { type: 'string' }, description: 'FHIR type names the job carries.' },
        partner_gpid: { ...PARTNER_GPID, description: "Operators: the partner the job belongs to (default: the caller's)." },
      },
    },
    responseBody: JOB_SCHEMA,
  },
  {
    id: 'pipeline.sync-jobs.list',
    method: 'GET',
    path: '/cms/pipeline/sync-jobs',
    summary: "The partner's newest sync jobs (up to 20), newest first",
    auth: 'bearer',
    scopes: READ_SCOPES,
    successStatus: 200,
    ...capabilityRoute('pipeline.partners'),
    operation: listJobs,
    queryParameters: { partner_gpid: { schema: PARTNER_GPID, description: "Operators: whose jobs (default: the caller's partner). Another partner's answers 404." } },
    responseBody: { type: 'object', required: ['sync_jobs'], properties: { sync_jobs: { type: 'array', items: JOB_SCHEMA } } },
  },
  {
    id: 'pipeline.sync-jobs.get',
    method: 'GET',
    path: '/cms/pipeline/sync-jobs/{job_id}',
    product: 'partner-ecosystem',
    summary: 'One sync job of your partner',
    auth: 'bearer',
    scopes: READ_SCOPES,
    successStatus: 200,
    operation: getJob,
    pathParameters: JOB_PATH,
    responseBody: JOB_SCHEMA,
  },
  {
    id: 'pipeline.sync-jobs.complete',
    method: 'POST',
    path: '/cms/pipeline/sync-jobs/{job_id}/complete',
    product: 'partner-ecosystem',
    summary: 'Mark an external sync job completed; emits pipeline.sync.completed (operators)',
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 200,
    operation: completeJob,
    pathParameters: JOB_PATH,
    requestBody: { type: 'object', required: ['records_processed'], properties: { records_processed: { type: 'integer', minimum: 0 } } },
    responseBody: JOB_SCHEMA,
  },
  {
    id: 'pipeline.sync-jobs.fail',
    method: 'POST',
    path: '/cms/pipeline/sync-jobs/{job_id}/fail',
    product: 'partner-ecosystem',
    summary: 'Mark an external sync job failed after its retries; emits pipeline.sync.failed (operators)',
    auth: 'bearer',
    scopes: ['cms.admin'],
    successStatus: 200,
    operation: failJob,
    pathParameters: JOB_PATH,
    requestBody: { type: 'object', required: ['error_code', 'message'], properties: { error_code: { type: 'string', description: 'e.g. VALIDATION_ERROR' }, message: { type: 'string' } } },
    responseBody: JOB_SCHEMA,
  },
];

import { DomainError } from '@svc/platform';
import type { GatewayOperation, RouteInput, RouteResult, RouteSpec } from './route.js';
import { assertFhirJsonBody } from './fhir-media-types.js';

/**
 * Asynchronous submissions (sync jobs) on the spec's `POST /fhir/R4` row, and their status URL:
 *
 * - `POST /fhir/R4` with a batch or transaction Bundle and `Prefer: respond-async`, or with an
 *   NDJSON body (`Content-Type: application/fhir+ndjson`, `application/x-ndjson` or
 *   `application/ndjson`; one resource per line, created without `id`, updated with one; an NDJSON
 *   push is always asynchronous) answers **202** at once with `Content-Location:
 *   …/fhir/R4/$sync-status/{jobId}`.
 * - `GET /fhir/R4/$sync-status/{jobId}`: 202 with `X-Progress` and `Retry-After` while the job is
 *   queued, running or waiting for a retry; when it is done, the answer the synchronous request
 *   would have had: 200 with the transaction-response / batch-response Bundle, or the refused
 *   transaction's OperationOutcome with its own status (422 …), or 500 after the retries.
 *   Only the submitting partner's credentials see it; any other gets 404.
 */

export const NDJSON_MEDIA_TYPES = ['application/fhir+ndjson', 'application/x-ndjson', 'application/ndjson'] as const;

function header(input: RouteInput, name: string): string {
  const value = input.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

function preferTokens(input: RouteInput): string[] {
  return header(input, 'prefer')
    .split(/[;,]/)
    .map((p) => p.trim().toLowerCase())
    .filter(Boolean);
}

function isNdjson(input: RouteInput): boolean {
  const type = header(input, 'content-type').split(';')[0]!.trim().toLowerCase();
  return (NDJSON_MEDIA_TYPES as readonly string[]).includes(type);
}

/** True when POST /fhir/R4 asks for a sync job rather than an answer in the same request. */
export function isAsyncSubmission(input: RouteInput): boolean {
  return isNdjson(input) || preferTokens(input).includes('respond-async');
}

const SUBMIT_DOC = `mutation FhirSyncSubmit($bundleText: String, $ndjson: String, $returnResources: Boolean, $source: String) {
  fhirSyncSubmit(bundleText: $bundleText, ndjson: $ndjson, returnResources: $returnResources, source: $source) { jobId statusUrl } }`;

function submitVariables(input: RouteInput): Record<string, unknown> {
  const returnResources = !preferTokens(input).includes('return=minimal');
  const source = header(input, 'x-svc-source').trim() || null;
  if (isNdjson(input)) {
    if (typeof input.body !== 'string' || input.body.trim() === '') {
      throw new DomainError('BAD_REQUEST', 'An NDJSON push needs a body: one FHIR resource in JSON per line.', { fieldErrors: [{ field: 'body', message: 'one JSON resource per line is required' }] });
    }
    return { ndjson: input.body, returnResources, source };
  }
  assertFhirJsonBody(input);
  const body = input.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('BAD_REQUEST', 'The body must be a Bundle in JSON (application/fhir+json).', { fieldErrors: [{ field: 'Bundle', message: 'a JSON object is required' }] });
  }
  return { bundleText: input.rawBody ?? JSON.stringify(body), returnResources, source };
}

function accepted(data: Record<string, unknown>): RouteResult {
  const job = data['fhirSyncSubmit'] as { jobId: string; statusUrl: string };
  return {
    status: 202,
    headers: { 'content-location': job.statusUrl },
    body: { resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational', diagnostics: `Accepted as sync job ${job.jobId}; poll ${job.statusUrl}` }] },
  };
}

/** `POST /fhir/R4`: the synchronous Bundle operation, or a sync job when the request asks for one. */
export function bundleOrSyncJob(synchronous: GatewayOperation): GatewayOperation {
  return {
    document: (principal, input) => (isAsyncSubmission(input) ? SUBMIT_DOC : typeof synchronous.document === 'string' ? synchronous.document : synchronous.document(principal, input)),
    documents: [SUBMIT_DOC, ...(typeof synchronous.document === 'string' ? [synchronous.document] : (synchronous.documents ?? []))],
    variables: (input) => (isAsyncSubmission(input) ? submitVariables(input) : (synchronous.variables?.(input) ?? {})),
    result: (data, input) => (isAsyncSubmission(input) ? data['fhirSyncSubmit'] : synchronous.result(data, input)),
    respond: (data, input) => (isAsyncSubmission(input) ? accepted(data) : synchronous.respond ? synchronous.respond(data, input) : { body: synchronous.result(data, input) }),
  };
}

/** Seconds a client should wait between polls. */
const RETRY_AFTER_SECONDS = '1';

interface StatusData {
  state: 'in-progress' | 'completed' | 'failed';
  progress: string | null;
  httpStatus: number | null;
  bodyText: string | null;
}

const STATUS: GatewayOperation = {
  document: 'query FhirSyncStatus($jobId: ID!) { fhirSyncStatus(jobId: $jobId) { state progress httpStatus bodyText } }',
  variables: (input) => ({ jobId: input.params['jobId'] }),
  result: (data) => data['fhirSyncStatus'],
  respond: (data): RouteResult => {
    const s = data['fhirSyncStatus'] as StatusData;
    if (s.state === 'in-progress') return { status: 202, headers: { 'x-progress': s.progress ?? 'in progress', 'retry-after': RETRY_AFTER_SECONDS }, body: undefined };
    return { status: s.httpStatus ?? 500, headers: { 'cache-control': 'no-store' }, body: s.bodyText ?? undefined };
  },
};

/** The status URL of asynchronous submissions. */
export const fhirSyncJobRoutes: RouteSpec[] = [
  {
    id: 'fhir.sync-status',
    method: 'GET',
    path: '/fhir/R4/$sync-status/{jobId}',
    product: 'fhir',
    format: 'fhir',
    summary: 'Poll an asynchronous Bundle or NDJSON submission: 202 with X-Progress while it runs, then its answer (the submitting partner only)',
    auth: 'bearer',
    scopes: [],
    successStatus: 200,
    operation: STATUS,
  },
];

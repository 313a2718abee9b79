import { Readable } from 'node:stream';
import type { GatewayOperation, LocalOperation, RouteInput, RouteResult, RouteSpec } from './route.js';
import { assertFhirJsonBody } from './fhir-media-types.js';

/**
 * FHIR Bulk Data Access $export (https://hl7.org/fhir/uv/bulkdata/): kick-off at system, Patient
 * and Group level, status polling, cancel, and the NDJSON output files, which the facade streams
 * chunk by chunk from the fhir subgraph (it never holds a whole file).
 */

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

function queryString(query: RouteInput['query']): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (Array.isArray(v)) v.forEach((x) => params.append(k, String(x)));
    else if (v !== undefined && v !== null) params.append(k, String(v));
  }
  return params.toString();
}

const KICKOFF_DOC = `mutation FhirExportKickoff($level: String!, $groupId: ID, $query: String, $requestPath: String!, $respondAsync: Boolean!, $lenient: Boolean, $parameters: JSONObject) {
  fhirExportKickoff(level: $level, groupId: $groupId, query: $query, requestPath: $requestPath, respondAsync: $respondAsync, lenient: $lenient, parameters: $parameters) }`;

/** A POST kick-off's body (a Parameters resource, checked by the subgraph); an empty body is no parameters. */
function postedParameters(input: RouteInput): Record<string, unknown> {
  const body = input.body;
  if (body === undefined || body === null || body === '') return { resourceType: 'Parameters' };
  // A Parameters body in another media type than FHIR JSON is a 415, as for any FHIR write.
  assertFhirJsonBody(input);
  return (typeof body === 'object' && !Array.isArray(body) ? body : { resourceType: typeof body }) as Record<string, unknown>;
}

function kickoff(level: 'system' | 'patient' | 'group', method: 'GET' | 'POST' = 'GET'): GatewayOperation {
  return {
    document: KICKOFF_DOC,
    variables: (input) => {
      const query = queryString(input.query);
      const path = level === 'system' ? '$export' : level === 'patient' ? 'Patient/$export' : `Group/${input.params['id'] ?? ''}/$export`;
      const prefer = preferTokens(input);
      return {
        level,
        groupId: input.params['id'] ?? null,
        query,
        requestPath: query ? `${path}?${query}` : path,
        respondAsync: prefer.includes('respond-async'),
        lenient: prefer.includes('handling=lenient'),
        parameters: method === 'POST' ? postedParameters(input) : null,
      };
    },
    result: (data) => data['fhirExportKickoff'],
    respond: (data): RouteResult => ({
      status: 202,
      headers: { 'content-location': String(data['fhirExportKickoff']) },
      body: { resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational', diagnostics: `Export accepted; poll ${String(data['fhirExportKickoff'])}` }] },
    }),
  };
}

interface StatusData {
  state: 'in-progress' | 'completed' | 'failed';
  progress: string | null;
  manifest: Record<string, unknown> | null;
  error: string | null;
}

/** Seconds a client should wait between polls. */
const RETRY_AFTER_SECONDS = '2';

const STATUS: GatewayOperation = {
  document: 'query FhirExportStatus($jobId: ID!) { fhirExportStatus(jobId: $jobId) { state progress manifest error } }',
  variables: (input) => ({ jobId: input.params['jobId'] }),
  result: (data) => data['fhirExportStatus'],
  respond: (data): RouteResult => {
    const s = data['fhirExportStatus'] as StatusData;
    if (s.state === 'in-progress') return { status: 202, headers: { 'x-progress': s.progress ?? 'in progress', 'retry-after': RETRY_AFTER_SECONDS }, body: undefined };
    if (s.state === 'failed') {
      return { status: 500, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'exception', diagnostics: s.error ?? 'The export failed.' }] } };
    }
    return { status: 200, contentType: 'application/json', headers: { 'cache-control': 'no-store' }, body: s.manifest };
  },
};

const CANCEL: GatewayOperation = {
  document: 'mutation FhirExportCancel($jobId: ID!) { fhirExportCancel(jobId: $jobId) }',
  variables: (input) => ({ jobId: input.params['jobId'] }),
  result: () => undefined,
  respond: (): RouteResult => ({ status: 202, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational', diagnostics: 'Export cancelled; its files are deleted.' }] } }),
};

const CHUNK_DOC = 'query FhirExportChunk($jobId: ID!, $file: String!, $afterSeq: Int!) { fhirExportChunk(jobId: $jobId, file: $file, afterSeq: $afterSeq) { seq data } }';

/** The NDJSON file, streamed: the first chunk is fetched before answering (so 404s are real), the rest as the client reads. */
const FILE: LocalOperation = {
  documents: [CHUNK_DOC],
  async local(input, context): Promise<RouteResult> {
    const variables = { jobId: input.params['jobId'], file: input.params['file'] };
    const fetchAfter = async (afterSeq: number) => (await context.execute(CHUNK_DOC, { ...variables, afterSeq }))['fhirExportChunk'] as { seq: number; data: string } | null;
    const first = await fetchAfter(-1);
    async function* chunks(): AsyncGenerator<string> {
      let chunk = first;
      while (chunk) {
        yield chunk.data;
        chunk = await fetchAfter(chunk.seq);
      }
    }
    return { body: Readable.from(chunks()), contentType: 'application/fhir+ndjson', headers: { 'cache-control': 'no-store' } };
  },
};

const fhir = (spec: Omit<RouteSpec, 'product' | 'format'>): RouteSpec => ({ product: 'fhir', format: 'fhir', ...spec });
const KICKOFF_SCOPES = ['system/*.read', 'system/Patient.read'];

/** The Bulk Data routes; kick-offs need Prefer: respond-async. */
export const fhirBulkExportRoutes: RouteSpec[] = [
  fhir({ id: 'fhir.export', method: 'GET', path: '/fhir/R4/$export', summary: 'Bulk data export of every type, an asynchronous job (Prefer: respond-async; system/*.read scope)', auth: 'bearer', scopes: KICKOFF_SCOPES, successStatus: 202, operation: kickoff('system') }),
  fhir({ id: 'fhir.export-patient', method: 'GET', path: '/fhir/R4/Patient/$export', summary: 'Bulk data export of the Patient compartment of every patient', auth: 'bearer', scopes: KICKOFF_SCOPES, successStatus: 202, operation: kickoff('patient') }),
  fhir({ id: 'fhir.export-group', method: 'GET', path: '/fhir/R4/Group/{id}/$export', summary: 'Bulk data export of the Patient compartment of a Group’s patients', auth: 'bearer', scopes: KICKOFF_SCOPES, successStatus: 202, operation: kickoff('group') }),
  fhir({ id: 'fhir.export-post', method: 'POST', path: '/fhir/R4/$export', summary: 'Bulk data export kick-off with a Parameters body (_type, _since, _outputFormat, _typeFilter)', auth: 'bearer', scopes: KICKOFF_SCOPES, successStatus: 202, operation: kickoff('system', 'POST') }),
  fhir({ id: 'fhir.export-patient-post', method: 'POST', path: '/fhir/R4/Patient/$export', summary: 'Patient-level bulk data export kick-off with a Parameters body', auth: 'bearer', scopes: KICKOFF_SCOPES, successStatus: 202, operation: kickoff('patient', 'POST') }),
  fhir({ id: 'fhir.export-group-post', method: 'POST', path: '/fhir/R4/Group/{id}/$export', summary: 'Group-level bulk data export kick-off with a Parameters body', auth: 'bearer', scopes: KICKOFF_SCOPES, successStatus: 202, operation: kickoff('group', 'POST') }),
  fhir({ id: 'fhir.export-status', method: 'GET', path: '/fhir/R4/$export-status/{jobId}', summary: 'Poll an export: 202 with X-Progress and Retry-After, then 200 with the manifest', auth: 'bearer', scopes: [], successStatus: 200, operation: STATUS }),
  fhir({ id: 'fhir.export-cancel', method: 'DELETE', path: '/fhir/R4/$export-status/{jobId}', summary: 'Cancel an export and delete its files', auth: 'bearer', scopes: [], successStatus: 202, operation: CANCEL }),
  fhir({ id: 'fhir.export-file', method: 'GET', path: '/fhir/R4/$export-file/{jobId}/{file}', summary: 'Download an NDJSON output file of a completed export (the partner that asked only)', auth: 'bearer', scopes: [], successStatus: 200, responseContentType: 'application/fhir+ndjson', operation: FILE }),
];

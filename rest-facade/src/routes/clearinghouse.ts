import { capabilityRoute, CLEARINGHOUSE_JSON_LIMITS, describeX12Limits, DomainError, X12_LIMITS, type X12Limits } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput, RouteResult, RouteSpec } from './route.js';

/**
 * The clearinghouse (the spec's `any /velocity/v1/clearinghouse/*` row, release v2.1.0), run by the
 * fhir subgraph's clearinghouse fields against the sandbox payer:
 *
 * | Route | X12 | GraphQL twin |
 * |---|---|---|
 * | `POST /velocity/v1/clearinghouse/eligibility` | 270 → 271 | `Mutation.clearinghouseEligibility` |
 * | `POST /velocity/v1/clearinghouse/claim-status` | 276 → 277 | `Query.clearinghouseClaimStatus` |
 * | `POST /velocity/v1/clearinghouse/claims` | 837P → 999 (+ TA1) | `Mutation.clearinghouseSubmitClaims` |
 * | `GET /velocity/v1/clearinghouse/claims/{claimId}` | | `Query.clearinghouseClaim` |
 *
 * Request bodies are ASC X12 005010 text (`Content-Type: application/edi-x12` or `text/plain`) or
 * the JSON form (`application/json`). The answer is X12 (`application/edi-x12`) or JSON as the
 * `Accept` header asks; without a preference it is in the request's own format. A bad interchange
 * is a 422 problem with code X12_INVALID and `x12_errors` naming segment, element and position
 * (for an 837P also `acknowledgement_999`, the rejecting 999).
 */

export const X12_MEDIA_TYPE = 'application/edi-x12';
/** Request media types read as X12 text. */
export const X12_REQUEST_TYPES = [X12_MEDIA_TYPE, 'text/plain'] as const;

function header(input: RouteInput, name: string): string {
  const value = input.headers[name];
  return Array.isArray(value) ? value.join(',') : (value ?? '');
}

function isX12Request(input: RouteInput): boolean {
  const type = header(input, 'content-type').split(';')[0]!.trim().toLowerCase();
  return (X12_REQUEST_TYPES as readonly string[]).includes(type);
}

/** The variables every clearinghouse transaction takes: `x12` text or the JSON `request`. */
function transactionVariables(input: RouteInput): Record<string, unknown> {
  // An unacceptable Accept is refused before the transaction runs (and is stored).
  answerFormat(input);
  if (isX12Request(input)) {
    if (typeof input.body !== 'string' || input.body.trim() === '') {
      throw new DomainError('BAD_REQUEST', 'The body must be an ASC X12 005010 interchange.', { fieldErrors: [{ field: 'body', message: 'an X12 interchange (ISA … IEA) is required' }] });
    }
    return { x12: input.body, request: null };
  }
  const body = input.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('VALIDATION_ERROR', 'The body must be a JSON object, or X12 sent as application/edi-x12.', { fieldErrors: [{ field: '', message: 'must be a JSON object' }] });
  }
  return { x12: null, request: body };
}

/**
 * Which format to answer in: the Accept header's preferred of X12 and JSON (q-values honoured),
 * else the request's format; 406 when Accept allows neither.
 */
export function answerFormat(input: RouteInput): 'x12' | 'json' {
  const own = isX12Request(input) ? 'x12' : 'json';
  const accept = header(input, 'accept').trim();
  if (accept === '') return own;
  let best: { format: 'x12' | 'json'; q: number; exact: boolean } | undefined;
  for (const part of accept.split(',')) {
    const [typeRaw, ...params] = part.split(';');
    const type = typeRaw!.trim().toLowerCase();
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q) || q <= 0) continue;
    const format = type === X12_MEDIA_TYPE || type === 'text/plain' ? 'x12' : type === 'application/json' || type === 'application/problem+json' ? 'json' : type === '*/*' || type === 'application/*' || type === 'text/*' ? own : undefined;
    if (!format) continue;
    const exact = type !== '*/*' && type !== 'application/*' && type !== 'text/*';
    if (!best || q > best.q || (q === best.q && exact && !best.exact)) best = { format, q, exact };
  }
  if (!best) throw new DomainError('NOT_ACCEPTABLE', `This route answers ${X12_MEDIA_TYPE} or application/json.`, { details: { available: [X12_MEDIA_TYPE, 'application/json'] } });
  return best.format;
}

function x12Answer(text: string): RouteResult {
  return { body: text, contentType: X12_MEDIA_TYPE };
}

const ELIGIBILITY_DOC = `mutation ClearinghouseEligibility($x12: String, $request: JSONObject) {
  clearinghouseEligibility(x12: $x12, request: $request) { x12 document } }`;

const CLAIM_STATUS_DOC = `query ClearinghouseClaimStatus($x12: String, $request: JSONObject) {
  clearinghouseClaimStatus(x12: $x12, request: $request) { x12 document } }`;

const SUBMIT_DOC = `mutation ClearinghouseSubmitClaims($x12: String, $request: JSONObject) {
  clearinghouseSubmitClaims(x12: $x12, request: $request) { acknowledgement999 ta1 replayed document claims { claimId } } }`;

const CLAIM_DOC = 'query ClearinghouseClaim($id: ID!) { clearinghouseClaim(id: $id) { document } }';

/** An inquiry route: the answer's X12 or its JSON document. */
function inquiry(document: string, field: string): GatewayOperation {
  return {
    document,
    variables: transactionVariables,
    result: (data) => (data[field] as { document: unknown }).document,
    respond: (data, input) => {
      const answer = data[field] as { x12: string; document: unknown };
      // Decide the format before anything else could fail late.
      return answerFormat(input) === 'x12' ? x12Answer(answer.x12) : { body: answer.document };
    },
  };
}

const SUBMIT: GatewayOperation = {
  document: SUBMIT_DOC,
  variables: transactionVariables,
  result: (data) => (data['clearinghouseSubmitClaims'] as { document: unknown }).document,
  respond: (data, input) => {
    const answer = data['clearinghouseSubmitClaims'] as { acknowledgement999: string; ta1: string | null; replayed: boolean; document: unknown; claims: { claimId: string }[] };
    const headers: Record<string, string> = answer.claims.length === 1 ? { location: `/velocity/v1/clearinghouse/claims/${answer.claims[0]!.claimId}` } : {};
    // A resubmitted interchange stored nothing new: 200 instead of 201.
    const status = answer.replayed ? 200 : 201;
    // X12: the TA1 interchange (when asked for) and the 999 interchange, one after the other.
    if (answerFormat(input) === 'x12') return { ...x12Answer([answer.ta1, answer.acknowledgement999].filter(Boolean).join('\n')), headers, status };
    return { body: answer.document, headers, status };
  },
};

const GET_CLAIM: GatewayOperation = {
  document: CLAIM_DOC,
  variables: (input) => ({ id: input.params['claimId'] }),
  result: (data) => (data['clearinghouseClaim'] as { document: unknown }).document,
};

// OpenAPI schemas (JSON Schema 2020-12).
const MONEY: JsonSchema = { type: 'string', pattern: '^\\d{1,8}(\\.\\d{1,2})?$', examples: ['150.00'] };
const PAYER: JsonSchema = { type: 'object', required: ['id', 'name'], properties: { id: { type: 'string', description: 'Payer id (NM109, qualifier PI).' }, name: { type: 'string' } } };
const PROVIDER: JsonSchema = {
  type: 'object',
  required: ['npi', 'name'],
  properties: { npi: { type: 'string', pattern: '^\\d{10}$', description: 'NPI with a valid check digit.' }, name: { type: 'string', description: 'Organisation name, or last name with first_name.' }, first_name: { type: 'string' } },
};
const SUBSCRIBER: JsonSchema = {
  type: 'object',
  required: ['member_id', 'last_name'],
  properties: {
    member_id: { type: 'string', description: 'Sandbox payer: NF… not found, IN… inactive, PD… claims pending, anything else active.' },
    last_name: { type: 'string' },
    first_name: { type: 'string' },
    birth_date: { type: 'string', format: 'date' },
    gender: { type: 'string', enum: ['F', 'M', 'U'] },
  },
};
const X12_BODY: JsonSchema = { type: 'string', contentMediaType: X12_MEDIA_TYPE, description: 'An ASC X12 005010 interchange (ISA … IEA) with one functional group and one transaction set.' };
const ERRORS_NOTE = 'Send as application/edi-x12 (or text/plain) for X12, or application/json for this JSON form.';

const ELIGIBILITY_REQUEST: JsonSchema = {
  description: `The 270 in JSON. ${ERRORS_NOTE}`,
  type: 'object',
  required: ['payer', 'provider', 'subscriber'],
  properties: {
    payer: PAYER,
    provider: PROVIDER,
    subscriber: SUBSCRIBER,
    service_type_codes: { type: 'array', items: { type: 'string' }, maxItems: CLEARINGHOUSE_JSON_LIMITS.serviceTypeCodes, default: ['30'], description: 'X12 service type codes (EQ01, which repeats at most 99 times).' },
    service_date: { type: 'string', format: 'date' },
    reference: { type: 'string', description: 'BHT03.' },
    trace_number: { type: 'string', description: 'TRN02, echoed in the 271.' },
  },
};
const BENEFIT: JsonSchema = {
  type: 'object',
  properties: {
    eligibility_code: { type: 'string', description: 'EB01.' },
    meaning: { type: 'string' },
    coverage_level: { type: 'string' },
    service_type_codes: { type: 'array', items: { type: 'string' } },
    insurance_type: { type: 'string' },
    plan_description: { type: 'string' },
    time_period: { type: 'string', enum: ['calendar_year', 'visit', 'remaining'] },
    amount: MONEY,
    percent: { type: 'string' },
    in_network: { type: 'boolean' },
  },
};
const ELIGIBILITY_RESPONSE: JsonSchema = {
  description: 'The 271 in JSON (or the 271 itself with Accept: application/edi-x12).',
  type: 'object',
  properties: {
    transaction: { const: '271' },
    eligibility_request_id: { type: 'string', description: 'The stored CoverageEligibilityRequest.' },
    eligibility_response_id: { type: 'string', description: 'The stored CoverageEligibilityResponse.' },
    coverage_status: { type: 'string', enum: ['active', 'inactive', 'not_found'] },
    payer: PAYER,
    provider: PROVIDER,
    subscriber: SUBSCRIBER,
    plan: { type: ['object', 'null'], properties: { name: { type: 'string' }, group_number: { type: 'string' }, begin_date: { type: 'string' }, end_date: { type: 'string' } } },
    benefits: { type: 'array', items: BENEFIT },
    rejections: { type: 'array', items: { type: 'object', properties: { code: { type: 'string', description: 'AAA03 (75: subscriber not found).' }, meaning: { type: 'string' }, follow_up: { type: 'string' } } } },
  },
};
const STANDING: JsonSchema = {
  type: 'object',
  properties: {
    category_code: { type: 'string', description: 'STC01-1: A1, A2, A3, A4, P1, F1, F2.' },
    category: { type: 'string' },
    status_code: { type: 'string', description: 'STC01-2.' },
    status: { type: 'string' },
    total_charge: MONEY,
    paid_amount: { type: ['string', 'null'] },
    payer_claim_number: { type: ['string', 'null'] },
  },
};
const CLAIM_STATUS_REQUEST: JsonSchema = {
  description: `The 276 in JSON; identify the claim by patient_control_number (CLM01) or payer_claim_number. ${ERRORS_NOTE}`,
  type: 'object',
  required: ['payer', 'receiver', 'provider', 'subscriber'],
  properties: {
    payer: PAYER,
    receiver: { type: 'object', required: ['name', 'id'], properties: { name: { type: 'string' }, id: { type: 'string', description: 'ETIN (NM1*41, qualifier 46).' } } },
    provider: PROVIDER,
    subscriber: SUBSCRIBER,
    patient_control_number: { type: 'string' },
    payer_claim_number: { type: 'string' },
    total_charge: MONEY,
    service_date: { type: 'string', format: 'date' },
    trace_number: { type: 'string' },
  },
};
const CLAIM_STATUS_RESPONSE: JsonSchema = {
  description: 'The 277 in JSON (or the 277 itself with Accept: application/edi-x12).',
  type: 'object',
  properties: { transaction: { const: '277' }, claim_id: { type: ['string', 'null'] }, patient_control_number: { type: ['string', 'null'] }, trace_number: { type: 'string' }, status: { ...STANDING, properties: { ...(STANDING['properties'] as object), effective_date: { type: 'string' } } } },
};
const CLAIM: JsonSchema = {
  type: 'object',
  properties: { claim_id: { type: 'string', description: 'The stored FHIR Claim id.' }, patient_control_number: { type: 'string' }, member_id: { type: 'string' }, submitted_at: { type: 'string', format: 'date-time' }, status: STANDING },
};
const SUBMIT_REQUEST: JsonSchema = {
  description: `The 837P in JSON. ${ERRORS_NOTE}`,
  type: 'object',
  required: ['submitter', 'receiver', 'billing_provider', 'claims'],
  properties: {
    submitter: { type: 'object', required: ['name', 'id'], properties: { name: { type: 'string' }, id: { type: 'string' } } },
    receiver: { type: 'object', required: ['name', 'id'], properties: { name: { type: 'string' }, id: { type: 'string' } } },
    billing_provider: { ...PROVIDER, required: ['npi', 'name', 'tax_id'], properties: { ...(PROVIDER['properties'] as object), tax_id: { type: 'string', pattern: '^\\d{9}$' } } },
    claims: {
      type: 'array',
      minItems: 1,
      maxItems: CLEARINGHOUSE_JSON_LIMITS.claims,
      items: {
        type: 'object',
        required: ['patient_control_number', 'total_charge', 'diagnosis_codes', 'subscriber', 'payer', 'service_lines'],
        properties: {
          patient_control_number: { type: 'string', description: 'CLM01.' },
          total_charge: { ...MONEY, description: 'CLM02: must equal the sum of the line charges.' },
          place_of_service: { type: 'string', default: '11' },
          frequency_code: { type: 'string', enum: ['1', '7', '8'], default: '1' },
          diagnosis_codes: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: CLEARINGHOUSE_JSON_LIMITS.diagnosisCodes, description: 'ICD-10-CM, principal first (one HI segment: at most 12).' },
          subscriber: SUBSCRIBER,
          payer: PAYER,
          service_lines: {
            type: 'array',
            minItems: 1,
            maxItems: CLEARINGHOUSE_JSON_LIMITS.serviceLines,
            description: 'Loop 2400: at most 50 per claim.',
            items: {
              type: 'object',
              required: ['procedure_code', 'charge', 'service_date'],
              properties: { procedure_code: { type: 'string', description: 'CPT/HCPCS.' }, modifiers: { type: 'array', items: { type: 'string' }, maxItems: CLEARINGHOUSE_JSON_LIMITS.modifiers }, charge: MONEY, units: { type: 'string', default: '1' }, service_date: { type: 'string', format: 'date' } },
            },
          },
        },
      },
    },
  },
};
const SUBMIT_RESPONSE: JsonSchema = {
  description: 'The accepted claims with the 999 (and TA1) as text; with Accept: application/edi-x12 the body is the TA1 (when ISA14 = 1) and the 999 interchanges.',
  type: 'object',
  properties: { transaction: { const: '837P' }, reference: { type: 'string' }, accepted: { type: 'boolean' }, replayed: { type: 'boolean', description: 'The same interchange (ISA05/ISA06/ISA13) was submitted before: these are the claims stored then (status 200).' }, claims: { type: 'array', items: CLAIM }, acknowledgement_999: { type: 'string' }, ta1: { type: ['string', 'null'] } },
};

/**
 * A transaction route's limits (platform's payload-limits.ts): those of its X12, checked by the fhir
 * subgraph before a segment is built (and by its GraphQL twin alike), and its size, which is also the
 * route's body limit so a larger body is refused before it is read; then those of the JSON form.
 */
function transactionLimits(x12: X12Limits, json: readonly string[]): Pick<RouteSpec, 'payloadLimits' | 'bodyLimit'> {
  const jsonForm = [...json, `every text field at most ${CLEARINGHOUSE_JSON_LIMITS.textLength} characters`].join(', ');
  return { payloadLimits: [`${describeX12Limits(x12)}.`, `The JSON form: ${jsonForm} (422 VALIDATION_ERROR naming the field).`], bodyLimit: { bytes: x12.maxBytes, name: 'x12.bytes' } };
}

/** The X12 forms of a route's bodies, beside its JSON ones. */
const X12_FORMS: NonNullable<RouteSpec['alternateMediaTypes']> = { request: { [X12_MEDIA_TYPE]: X12_BODY, 'text/plain': X12_BODY }, response: { [X12_MEDIA_TYPE]: X12_BODY } };

export const clearinghouseRoutes: RouteSpec[] = [
  {
    id: 'clearinghouse.eligibility',
    method: 'POST',
    path: '/velocity/v1/clearinghouse/eligibility',
    ...capabilityRoute('clearinghouse.eligibility'),
    summary: 'Eligibility and benefit inquiry (X12 270 → 271) against the sandbox payer; X12 or JSON both ways',
    auth: 'bearer',
    scopes: ['velocity.clearinghouse.eligibility'],
    successStatus: 200,
    operation: inquiry(ELIGIBILITY_DOC, 'clearinghouseEligibility'),
    ...transactionLimits(X12_LIMITS['270'], [`at most ${CLEARINGHOUSE_JSON_LIMITS.serviceTypeCodes} service_type_codes`]),
    requestBody: ELIGIBILITY_REQUEST,
    responseBody: ELIGIBILITY_RESPONSE,
    alternateMediaTypes: X12_FORMS,
  },
  {
    id: 'clearinghouse.claim-status',
    method: 'POST',
    path: '/velocity/v1/clearinghouse/claim-status',
    ...capabilityRoute('clearinghouse.claim-status'),
    summary: 'Claim status inquiry (X12 276 → 277); claims submitted here are answered from their stored status',
    auth: 'bearer',
    scopes: ['velocity.clearinghouse.claim-status'],
    successStatus: 200,
    operation: inquiry(CLAIM_STATUS_DOC, 'clearinghouseClaimStatus'),
    ...transactionLimits(X12_LIMITS['276'], []),
    requestBody: CLAIM_STATUS_REQUEST,
    responseBody: CLAIM_STATUS_RESPONSE,
    alternateMediaTypes: X12_FORMS,
  },
  {
    id: 'clearinghouse.claims.submit',
    method: 'POST',
    path: '/velocity/v1/clearinghouse/claims',
    ...capabilityRoute('clearinghouse.claims.submit'),
    summary: 'Professional claim submission (X12 837P), acknowledged with a 999 and, when ISA14 = 1, a TA1; claims stored as FHIR Claim/ClaimResponse; a resubmitted interchange answers its stored claims (200)',
    auth: 'bearer',
    scopes: ['velocity.clearinghouse.claims'],
    successStatus: 201,
    operation: SUBMIT,
    ...transactionLimits(X12_LIMITS['837'], [
      `at most ${CLEARINGHOUSE_JSON_LIMITS.claims} claims (larger batches go as X12)`,
      `${CLEARINGHOUSE_JSON_LIMITS.serviceLines} service_lines and ${CLEARINGHOUSE_JSON_LIMITS.diagnosisCodes} diagnosis_codes a claim`,
      `${CLEARINGHOUSE_JSON_LIMITS.modifiers} modifiers a line`,
    ]),
    requestBody: SUBMIT_REQUEST,
    responseBody: SUBMIT_RESPONSE,
    alternateMediaTypes: X12_FORMS,
  },
  {
    id: 'clearinghouse.claims.get',
    method: 'GET',
    path: '/velocity/v1/clearinghouse/claims/{claimId}',
    ...capabilityRoute('clearinghouse.claims.get'),
    summary: "One of the partner's submitted claims with its current status",
    auth: 'bearer',
    scopes: ['velocity.clearinghouse.claims', 'velocity.clearinghouse.claim-status'],
    successStatus: 200,
    operation: GET_CLAIM,
    responseBody: CLAIM,
  },
];

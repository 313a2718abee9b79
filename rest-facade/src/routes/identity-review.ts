import { capabilityRoute, decodeOptionalCursor, DomainError, invalidCursor, isId, readSourceHeader, SOURCE_HEADER, validationError, type FieldError } from '@svc/platform';
import { changeRequestBody, REQUEST_FIELDS, type ChangeRequestData } from './identity.js';
import type { JsonSchema, RouteInput, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/*
 * The identity review queue (ours; the spec has no such route): records a resolve created and
 * linked for review instead of linking them to an existing record, with the explanation.
 *
 *   GET  /api/identity/review?status=open|closed&limit=20&cursor=…  → { items: [item], next_cursor }
 *   GET  /api/identity/review/{id}                                  → item
 *   POST /api/identity/review/{id}/decision  { candidate_gpid, same, note? } + X-Svc-Source
 *                                            → { item, decision, merge_request }
 *
 * item = { id, status, subject_gpid, source, created_at, closed_at,
 *          candidates: [{ gpid, pair_confidence, confidence, match_type, agreement, decision }] }
 * GraphQL twins: identityReviewQueue, identityReviewItem, decideIdentityReview.
 */

const ITEM_FIELDS =
  'id status subjectGpid source createdAt closedAt candidates { gpid pairConfidence confidence matchType agreement decision { candidateGpid same decidedBy decidedSource decidedAt note mergeRequestId } }';
const DECISION_FIELDS = 'candidateGpid same decidedBy decidedSource decidedAt note mergeRequestId';
const LIST_PARAMS = new Set(['status', 'limit', 'cursor']);

interface DecisionData {
  candidateGpid: string;
  same: boolean;
  decidedBy: Record<string, unknown>;
  decidedSource: string;
  decidedAt: string;
  note: string | null;
  mergeRequestId: string | null;
}

interface ItemData {
  id: string;
  status: string;
  subjectGpid: string;
  source: string;
  createdAt: string;
  closedAt: string | null;
  candidates: Array<{ gpid: string; pairConfidence: number; confidence: number; matchType: string; agreement: Record<string, unknown>; decision: DecisionData | null }>;
}

function decisionBody(d: DecisionData) {
  return {
    candidate_gpid: d.candidateGpid,
    same: d.same,
    decided_by: snakeKeys(d.decidedBy),
    decided_source: d.decidedSource,
    decided_at: d.decidedAt,
    note: d.note,
    merge_request_id: d.mergeRequestId,
  };
}

function itemBody(item: ItemData) {
  return {
    id: item.id,
    status: item.status,
    subject_gpid: item.subjectGpid,
    source: item.source,
    created_at: item.createdAt,
    closed_at: item.closedAt,
    candidates: item.candidates.map((c) => ({
      gpid: c.gpid,
      pair_confidence: c.pairConfidence,
      confidence: c.confidence,
      match_type: c.matchType,
      agreement: snakeKeys(c.agreement),
      decision: c.decision ? decisionBody(c.decision) : null,
    })),
  };
}

function itemId(input: RouteInput): string {
  const id = input.params['id'] ?? '';
  if (!isId('rvw', id)) throw validationError([{ field: 'id', message: 'must be the id of a review item (rvw_…)' }], 'The review item id is malformed.');
  return id;
}

function listVariables({ query }: RouteInput): Record<string, unknown> {
  const errors: FieldError[] = [];
  for (const key of Object.keys(query)) if (!LIST_PARAMS.has(key)) errors.push({ field: key, message: `is not a parameter of this route (known: ${[...LIST_PARAMS].join(', ')})` });
  const single = (key: string): string | undefined => {
    const value = query[key];
    if (Array.isArray(value)) {
      errors.push({ field: key, message: 'must be given once' });
      return undefined;
    }
    return value;
  };
  const rawStatus = single('status');
  let status = 'OPEN';
  if (rawStatus !== undefined) {
    if (!['open', 'closed'].includes(rawStatus.toLowerCase())) errors.push({ field: 'status', message: 'must be open or closed' });
    else status = rawStatus.toUpperCase();
  }
  const rawLimit = single('limit');
  const first = rawLimit === undefined ? 20 : Number(rawLimit);
  // 50, not the usual 100: an item holds up to 10 candidates with their explanation, and a partner's operation cost budget must fit a full page.
  if (!Number.isInteger(first) || first < 1 || first > 50) errors.push({ field: 'limit', message: 'must be an integer from 1 to 50' });
  const rawCursor = query['cursor'];
  if (rawCursor !== undefined && typeof rawCursor !== 'string') throw invalidCursor('cursor');
  if (errors.length > 0) throw validationError(errors, 'The query is invalid.');
  const cursor = rawCursor ?? null;
  decodeOptionalCursor(cursor, { argument: 'cursor', isKey: (key) => isId('rvw', key) });
  return { status, first, after: cursor };
}

function decisionVariables(input: RouteInput): Record<string, unknown> {
  const source = readSourceHeader(input.headers);
  const id = itemId(input);
  const body = input.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw validationError([{ field: 'body', message: 'must be a JSON object' }], 'The request body must be a JSON object.');
  const raw = body as Record<string, unknown>;
  const errors: FieldError[] = [];
  for (const key of Object.keys(raw)) if (!['candidate_gpid', 'same', 'note'].includes(key)) errors.push({ field: key, message: 'is not a field of this request (expected candidate_gpid, same, note)' });
  const gpid = raw['candidate_gpid'];
  if (gpid === undefined || gpid === null || gpid === '') errors.push({ field: 'candidate_gpid', message: 'is required: the candidate of the item this decision is about' });
  else if (typeof gpid !== 'string') errors.push({ field: 'candidate_gpid', message: 'must be a string' });
  const same = raw['same'];
  if (same === undefined || same === null) errors.push({ field: 'same', message: 'is required: true (the same person) or false (not the same)' });
  else if (typeof same !== 'boolean') errors.push({ field: 'same', message: 'must be true or false' });
  const note = raw['note'];
  if (note !== undefined && note !== null && typeof note !== 'string') errors.push({ field: 'note', message: 'must be a string' });
  if (errors.length > 0) throw validationError(errors, 'The review decision has invalid fields.');
  return { itemId: id, candidateGpid: gpid, same, note: note ?? null, source };
}

const DECISION_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    candidate_gpid: { type: 'string' },
    same: { type: 'boolean' },
    decided_by: { type: 'object', description: '{ kind, partner_gpid, credential_id, operator }' },
    decided_source: { type: 'string' },
    decided_at: { type: 'string', format: 'date-time' },
    note: { type: ['string', 'null'] },
    merge_request_id: { type: ['string', 'null'], description: 'The merge request a "same" decision opened (mrg_…), decided on POST /api/identity/merge' },
  },
};
const ITEM_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'rvw_…' },
    status: { enum: ['OPEN', 'CLOSED'] },
    subject_gpid: { type: 'string', description: 'The record the resolve created and linked for review' },
    source: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    closed_at: { type: ['string', 'null'], format: 'date-time' },
    candidates: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          gpid: { type: 'string' },
          pair_confidence: { type: 'number', description: 'This candidate alone, compared with the review (0.2) and automatic-link (0.9) thresholds' },
          confidence: { type: 'number', description: 'Competing with the other candidates' },
          match_type: { enum: ['DETERMINISTIC', 'PARTIAL', 'NONE'] },
          agreement: { type: 'object', description: 'The explanation: each comparison\'s level (given, family, name_order, dob, email, phone, sex, address, identifier, member_id), weights in bits, blocked_by' },
          decision: { oneOf: [DECISION_SCHEMA, { type: 'null' }] },
        },
      },
    },
  },
};

export const identityReviewRoutes: RouteSpec[] = [
  {
    id: 'identity.review.list',
    method: 'GET',
    path: '/api/identity/review',
    ...capabilityRoute('identity.review.read'),
    summary: 'The review queue: records linked for review, with the candidates and the explanation',
    auth: 'bearer',
    scopes: ['identity.merge', 'identity.approve', 'cms.admin'],
    successStatus: 200,
    queryParameters: {
      status: { schema: { type: 'string', enum: ['open', 'closed'], default: 'open' }, description: 'Open items (a candidate is undecided) or closed ones.' },
      limit: { schema: { type: 'integer', minimum: 1, maximum: 50, default: 20 }, description: 'Items per page (a partner\'s page may hold fewer: follow next_cursor).' },
      cursor: { schema: { type: 'string' }, description: 'next_cursor of the previous page.' },
    },
    responseBody: { type: 'object', properties: { items: { type: 'array', items: ITEM_SCHEMA }, next_cursor: { type: ['string', 'null'] } } },
    operation: {
      document: `query IdentityReviewQueue($status: IdentityReviewStatus, $first: Int, $after: String) { identityReviewQueue(status: $status, first: $first, after: $after) { edges { node { ${ITEM_FIELDS} } } pageInfo { hasNextPage endCursor } } }`,
      variables: listVariables,
      result: (data) => {
        const c = data['identityReviewQueue'] as { edges: { node: ItemData }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
        return { items: c.edges.map((e) => itemBody(e.node)), next_cursor: c.pageInfo.hasNextPage ? c.pageInfo.endCursor : null };
      },
    },
  },
  {
    id: 'identity.review.get',
    method: 'GET',
    path: '/api/identity/review/{id}',
    ...capabilityRoute('identity.review.read'),
    summary: 'One review item with its candidates, scores, agreement pattern and decisions',
    auth: 'bearer',
    scopes: ['identity.merge', 'identity.approve', 'cms.admin'],
    successStatus: 200,
    responseBody: ITEM_SCHEMA,
    operation: {
      document: `query IdentityReviewItem($id: ID!) { identityReviewItem(id: $id) { ${ITEM_FIELDS} } }`,
      variables: (input) => ({ id: itemId(input) }),
      result: (data, { params }) => {
        const item = data['identityReviewItem'] as ItemData | null;
        if (!item) throw new DomainError('NOT_FOUND', `No review item has id ${params['id']}.`);
        return itemBody(item);
      },
    },
  },
  {
    id: 'identity.review.decide',
    method: 'POST',
    path: '/api/identity/review/{id}/decision',
    ...capabilityRoute('identity.review.decide'),
    summary: 'Decide one candidate of a review item: the same person (a merge request) or not (separated for good)',
    auth: 'bearer',
    scopes: ['identity.merge'],
    successStatus: 200,
    requestBody: {
      type: 'object',
      required: ['candidate_gpid', 'same'],
      additionalProperties: false,
      description: `Needs the ${SOURCE_HEADER} header. same: true requests the merge of the item's record into the candidate (reason manual_review; a different principal approves it on POST /api/identity/merge); same: false removes the pair's review links (a record left without any becomes ACTIVE). Each decision is kept as a training label.`,
      properties: { candidate_gpid: { type: 'string' }, same: { type: 'boolean' }, note: { type: 'string', maxLength: 1000 } },
    },
    responseBody: { type: 'object', properties: { item: ITEM_SCHEMA, decision: DECISION_SCHEMA, merge_request: { type: ['object', 'null'] } } },
    operation: {
      document: `mutation DecideIdentityReview($itemId: ID!, $candidateGpid: ID!, $same: Boolean!, $note: String, $source: String!) { decideIdentityReview(itemId: $itemId, candidateGpid: $candidateGpid, same: $same, note: $note, source: $source) { item { ${ITEM_FIELDS} } decision { ${DECISION_FIELDS} } mergeRequest { ${REQUEST_FIELDS} } } }`,
      variables: decisionVariables,
      result: (data) => {
        const d = data['decideIdentityReview'] as { item: ItemData; decision: DecisionData; mergeRequest: ChangeRequestData | null };
        return { item: itemBody(d.item), decision: decisionBody(d.decision), merge_request: d.mergeRequest ? changeRequestBody(d.mergeRequest, null) : null };
      },
    },
  },
];

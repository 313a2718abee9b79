import { isPartnerGpid, readTefcaPatient, validationError } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput } from './route.js';
import { BodyReader, singleQueryValue } from './body-readers.js';
import { snakeKeys } from './snake-case.js';

/**
 * The TEFCA exchange routes (IHE XCPD ITI-55 and XCA ITI-38/39, carried as JSON), each one gateway
 * operation:
 *
 * | Route | Direction | GraphQL twin (subgraph) |
 * |---|---|---|
 * | POST /tefca/xcpd/discover | inbound (a peer asks us) | Mutation.tefcaDiscoverPatients (identity) |
 * | POST /tefca/xcpd/search | outbound (we ask the peers) | Mutation.tefcaSearchPatients (pipeline) |
 * | POST /tefca/xca/query | inbound | Mutation.tefcaQueryDocuments (fhir) |
 * | POST /tefca/xca/search | outbound | Mutation.tefcaSearchDocuments (pipeline) |
 * | POST /tefca/xca/retrieve | inbound when home_community_id is ours, else outbound | Mutation.tefcaRetrieveDocument (fhir) / tefcaRetrieveRemoteDocument (pipeline) |
 * | GET /tefca/exchanges | audit log | Query.tefcaExchanges (pipeline) |
 *
 * The facade checks shapes only. `purpose_of_use` goes to the subgraph as sent, so that a missing
 * or unknown purpose is refused there (422 naming `purpose_of_use`) and audited like every exchange.
 *
 * The deprecated POST /tefca/v1/patient-discovery and /tefca/v1/document-query (served only while
 * the operator has moved their sunset) run the successor their body names: a request carrying
 * `requesting_community_id` comes from a peer community (our outbound requests always send it, as
 * ITI-55/38 carry the sender's home community), so it is the inbound successor; without it, the
 * caller is one of our partners asking the network: the outbound one.
 */

export const COMMUNITY_ID: JsonSchema = { type: 'string', pattern: '^urn:oid:[0-2](\\.(0|[1-9][0-9]*))+$', description: 'Home community id (urn:oid:…).' };
const PURPOSE: JsonSchema = {
  type: 'string',
  description: 'Required. A TEFCA exchange purpose code: T-TREAT, T-TRTMNT, T-PYMNT, T-HCO (and T-HCO-CC, T-HCO-HED, T-HCO-QM), T-PH, T-IAS, T-GOVDTRM (and T-GOVDTRM-DISABILITY).',
};
const PATIENT: JsonSchema = {
  type: 'object',
  description: 'The demographics to match (ITI-55 query parameters). A name is required.',
  properties: {
    given: { oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' }, maxItems: 5 }] },
    family: { type: 'string', maxLength: 200 },
    birth_date: { type: 'string', format: 'date' },
    gender: { type: 'string', enum: ['male', 'female', 'other', 'unknown'] },
    email: { type: 'string' },
    phone: { type: 'string' },
  },
};
const COMMUNITY_OUTCOME: JsonSchema = {
  type: 'object',
  properties: {
    home_community_id: COMMUNITY_ID,
    name: { type: ['string', 'null'] },
    status: { type: 'string', enum: ['ok', 'error', 'timeout'] },
    duration_ms: { type: 'integer' },
    result_count: { type: 'integer' },
    error: { type: ['string', 'null'], description: 'Why it failed: connection refused, no answer within N ms, HTTP 403 INSUFFICIENT_SCOPE, …' },
  },
};
export const EXCHANGE_ID: JsonSchema = { type: 'string', pattern: '^xch_[0-9a-z]{26}$', description: 'The audit log entry of this exchange.' };
const TIMEOUT_MS: JsonSchema = { type: 'integer', minimum: 100, description: 'Answer within this many ms (at most SVC_TEFCA_TIMEOUT_MS, default 10000).' };

function patientOf(reader: BodyReader): Record<string, unknown> | undefined {
  const raw = reader.object('patient');
  if (raw === undefined) {
    reader.fail('patient', 'is required: the demographics to match');
    return undefined;
  }
  const p = readTefcaPatient({ ...raw, birthDate: raw['birth_date'] });
  return { given: p.given, family: p.family, birthDate: p.birthDate, gender: p.gender, email: p.email, phone: p.phone };
}

/** purpose_of_use as sent (validated by the subgraph, which audits a refusal); only its type is checked here. */
function purposeOf(reader: BodyReader): string | null {
  return reader.string('purpose_of_use') ?? null;
}

function timeoutOf(reader: BodyReader): number | null {
  return reader.integer('timeout_ms') ?? null;
}

// --- XCPD -----------------------------------------------------------------------------------

const DISCOVER_DOCUMENT = `mutation TefcaDiscover($purposeOfUse: String, $requestingCommunityId: String, $patient: TefcaPatientInput!) {
  tefcaDiscoverPatients(purposeOfUse: $purposeOfUse, requestingCommunityId: $requestingCommunityId, patient: $patient) {
    exchangeId purposeOfUse homeCommunityId matches { patientId homeCommunityId matchQuality matchGrade }
  }
}`;

export const xcpdDiscover: GatewayOperation = {
  document: DISCOVER_DOCUMENT,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const purposeOfUse = purposeOf(reader);
    const requestingCommunityId = reader.string('requesting_community_id') ?? null;
    const patient = patientOf(reader);
    reader.done();
    return { purposeOfUse, requestingCommunityId, patient };
  },
  result: (data) => snakeKeys(data['tefcaDiscoverPatients']),
};

export const xcpdDiscoverSchemas = {
  requestBody: { type: 'object', required: ['purpose_of_use', 'patient'], properties: { purpose_of_use: PURPOSE, requesting_community_id: COMMUNITY_ID, patient: PATIENT } },
  responseBody: {
    type: 'object',
    required: ['exchange_id', 'home_community_id', 'matches'],
    properties: {
      exchange_id: EXCHANGE_ID,
      purpose_of_use: { type: 'string' },
      home_community_id: COMMUNITY_ID,
      matches: {
        type: 'array',
        description: 'Certain and probable matches, best first; nothing is created. patient_id is the id to use in a document query here.',
        items: { type: 'object', properties: { patient_id: { type: 'string' }, home_community_id: COMMUNITY_ID, match_quality: { type: 'number' }, match_grade: { type: 'string', enum: ['certain', 'probable'] } } },
      },
    },
  },
} satisfies Record<string, JsonSchema>;

const SEARCH_PATIENTS_DOCUMENT = `mutation TefcaSearchPatients($purposeOfUse: String, $patient: TefcaPatientInput!, $communities: [String!], $timeoutMs: Int) {
  tefcaSearchPatients(purposeOfUse: $purposeOfUse, patient: $patient, communities: $communities, timeoutMs: $timeoutMs) {
    exchangeId purposeOfUse outcome
    matches { homeCommunityId communityName patientId matchQuality matchGrade }
    communities { homeCommunityId name status durationMs resultCount error }
  }
}`;

export const xcpdSearch: GatewayOperation = {
  document: SEARCH_PATIENTS_DOCUMENT,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const purposeOfUse = purposeOf(reader);
    const patient = patientOf(reader);
    const communities = reader.stringArray('communities') ?? null;
    const timeoutMs = timeoutOf(reader);
    reader.done();
    return { purposeOfUse, patient, communities, timeoutMs };
  },
  result: (data) => snakeKeys(data['tefcaSearchPatients']),
};

export const xcpdSearchSchemas = {
  requestBody: {
    type: 'object',
    required: ['purpose_of_use', 'patient'],
    properties: { purpose_of_use: PURPOSE, patient: PATIENT, communities: { type: 'array', items: COMMUNITY_ID, description: 'Only these peers (default: every peer offering xcpd).' }, timeout_ms: TIMEOUT_MS },
  },
  responseBody: {
    type: 'object',
    required: ['exchange_id', 'outcome', 'matches', 'communities'],
    properties: {
      exchange_id: EXCHANGE_ID,
      purpose_of_use: { type: 'string' },
      outcome: { type: 'string', enum: ['success', 'partial', 'failure'] },
      matches: {
        type: 'array',
        items: { type: 'object', properties: { home_community_id: COMMUNITY_ID, community_name: { type: 'string' }, patient_id: { type: 'string' }, match_quality: { type: 'number' }, match_grade: { type: ['string', 'null'] } } },
      },
      communities: { type: 'array', items: COMMUNITY_OUTCOME, description: 'Every peer asked, with its status: a slow or failing peer is named here.' },
    },
  },
} satisfies Record<string, JsonSchema>;

// --- XCA query ------------------------------------------------------------------------------

const DOCUMENT_FIELDS = 'homeCommunityId repositoryId documentId patientId title typeCode typeSystem typeDisplay contentType created size hash';

export const xcaQuery: GatewayOperation = {
  document: `mutation TefcaQueryDocuments($purposeOfUse: String, $requestingCommunityId: String, $patientId: String, $typeCodes: [String!]) {
  tefcaQueryDocuments(purposeOfUse: $purposeOfUse, requestingCommunityId: $requestingCommunityId, patientId: $patientId, typeCodes: $typeCodes) {
    exchangeId purposeOfUse homeCommunityId documents { ${DOCUMENT_FIELDS} status }
  }
}`,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const purposeOfUse = purposeOf(reader);
    const requestingCommunityId = reader.string('requesting_community_id') ?? null;
    const patientId = reader.string('patient_id', true);
    const typeCodes = reader.stringArray('type_codes') ?? null;
    reader.done();
    return { purposeOfUse, requestingCommunityId, patientId, typeCodes };
  },
  result: (data) => snakeKeys(data['tefcaQueryDocuments']),
};

const DOCUMENT_ENTRY: JsonSchema = {
  type: 'object',
  properties: {
    home_community_id: COMMUNITY_ID,
    repository_id: { type: 'string' },
    document_id: { type: 'string' },
    patient_id: { type: 'string' },
    title: { type: ['string', 'null'] },
    type_code: { type: ['string', 'null'] },
    type_system: { type: ['string', 'null'] },
    type_display: { type: ['string', 'null'] },
    content_type: { type: ['string', 'null'] },
    created: { type: ['string', 'null'] },
    size: { type: ['integer', 'null'] },
    hash: { type: ['string', 'null'] },
  },
};

export const xcaQuerySchemas = {
  requestBody: {
    type: 'object',
    required: ['purpose_of_use', 'patient_id'],
    properties: { purpose_of_use: PURPOSE, requesting_community_id: COMMUNITY_ID, patient_id: { type: 'string', description: 'The patient id a discovery here answered (GPID).' }, type_codes: { type: 'array', items: { type: 'string' } } },
  },
  responseBody: { type: 'object', required: ['exchange_id', 'home_community_id', 'documents'], properties: { exchange_id: EXCHANGE_ID, purpose_of_use: { type: 'string' }, home_community_id: COMMUNITY_ID, documents: { type: 'array', items: DOCUMENT_ENTRY } } },
} satisfies Record<string, JsonSchema>;

export const xcaSearch: GatewayOperation = {
  document: `mutation TefcaSearchDocuments($purposeOfUse: String, $patients: [TefcaCommunityPatientInput!]!, $typeCodes: [String!], $timeoutMs: Int) {
  tefcaSearchDocuments(purposeOfUse: $purposeOfUse, patients: $patients, typeCodes: $typeCodes, timeoutMs: $timeoutMs) {
    exchangeId purposeOfUse outcome documents { ${DOCUMENT_FIELDS} communityName }
    communities { homeCommunityId name status durationMs resultCount error }
  }
}`,
  variables: ({ body }) => {
    const reader = new BodyReader(body);
    const purposeOfUse = purposeOf(reader);
    const raw = reader.raw('patients');
    const patients: { homeCommunityId: string; patientId: string }[] = [];
    if (!Array.isArray(raw)) reader.fail('patients', 'is required: a list of { home_community_id, patient_id } from a patient discovery');
    else
      raw.forEach((p: unknown, i) => {
        const entry = (typeof p === 'object' && p !== null ? p : {}) as Record<string, unknown>;
        const home = entry['home_community_id'];
        const id = entry['patient_id'];
        if (typeof home !== 'string') reader.fail(`patients.${i}.home_community_id`, 'is required (a string)');
        if (typeof id !== 'string') reader.fail(`patients.${i}.patient_id`, 'is required (a string)');
        if (typeof home === 'string' && typeof id === 'string') patients.push({ homeCommunityId: home, patientId: id });
      });
    const typeCodes = reader.stringArray('type_codes') ?? null;
    const timeoutMs = timeoutOf(reader);
    reader.done();
    return { purposeOfUse, patients, typeCodes, timeoutMs };
  },
  result: (data) => snakeKeys(data['tefcaSearchDocuments']),
};

export const xcaSearchSchemas = {
  requestBody: {
    type: 'object',
    required: ['purpose_of_use', 'patients'],
    properties: {
      purpose_of_use: PURPOSE,
      patients: { type: 'array', minItems: 1, maxItems: 50, items: { type: 'object', required: ['home_community_id', 'patient_id'], properties: { home_community_id: COMMUNITY_ID, patient_id: { type: 'string' } } } },
      type_codes: { type: 'array', items: { type: 'string' } },
      timeout_ms: TIMEOUT_MS,
    },
  },
  responseBody: {
    type: 'object',
    required: ['exchange_id', 'outcome', 'documents', 'communities'],
    properties: {
      exchange_id: EXCHANGE_ID,
      purpose_of_use: { type: 'string' },
      outcome: { type: 'string', enum: ['success', 'partial', 'failure'] },
      documents: { type: 'array', items: { ...DOCUMENT_ENTRY, properties: { ...(DOCUMENT_ENTRY['properties'] as Record<string, JsonSchema>), community_name: { type: 'string' } } } },
      communities: { type: 'array', items: COMMUNITY_OUTCOME },
    },
  },
} satisfies Record<string, JsonSchema>;

// --- XCA retrieve ---------------------------------------------------------------------------

const CONTENT_FIELDS = 'exchangeId purposeOfUse homeCommunityId repositoryId documentId contentType data size';

function retrieveInput({ body }: RouteInput) {
  const reader = new BodyReader(body);
  const purposeOfUse = purposeOf(reader);
  const requestingCommunityId = reader.string('requesting_community_id') ?? null;
  const homeCommunityId = reader.string('home_community_id', true);
  const repositoryId = reader.string('repository_id', true);
  const documentId = reader.string('document_id', true);
  const timeoutMs = timeoutOf(reader);
  reader.done();
  return { purposeOfUse, requestingCommunityId, homeCommunityId, repositoryId, documentId, timeoutMs };
}

const isLocal = (input: RouteInput): boolean => {
  const body = input.body as Record<string, unknown> | null;
  return typeof body === 'object' && body !== null && body['home_community_id'] === input.homeCommunityId;
};

const RETRIEVE_LOCAL_DOC = `mutation TefcaRetrieve($purposeOfUse: String, $requestingCommunityId: String, $homeCommunityId: String!, $repositoryId: String!, $documentId: String!) {
  document: tefcaRetrieveDocument(purposeOfUse: $purposeOfUse, requestingCommunityId: $requestingCommunityId, homeCommunityId: $homeCommunityId, repositoryId: $repositoryId, documentId: $documentId) { ${CONTENT_FIELDS} }
}`;
const RETRIEVE_REMOTE_DOC = `mutation TefcaRetrieveRemote($purposeOfUse: String, $homeCommunityId: String!, $repositoryId: String!, $documentId: String!, $timeoutMs: Int) {
  document: tefcaRetrieveRemoteDocument(purposeOfUse: $purposeOfUse, homeCommunityId: $homeCommunityId, repositoryId: $repositoryId, documentId: $documentId, timeoutMs: $timeoutMs) { ${CONTENT_FIELDS} }
}`;

export const xcaRetrieve: GatewayOperation = {
  document: (_principal, input) => (isLocal(input) ? RETRIEVE_LOCAL_DOC : RETRIEVE_REMOTE_DOC),
  documents: [RETRIEVE_LOCAL_DOC, RETRIEVE_REMOTE_DOC],
  variables: (input) => {
    const { timeoutMs, requestingCommunityId, ...rest } = retrieveInput(input);
    return isLocal(input) ? { ...rest, requestingCommunityId } : { ...rest, timeoutMs };
  },
  result: (data) => snakeKeys(data['document']),
};

export const xcaRetrieveSchemas = {
  requestBody: {
    type: 'object',
    required: ['purpose_of_use', 'home_community_id', 'repository_id', 'document_id'],
    description: "When home_community_id is this community's, the document is read here (inbound ITI-39); otherwise it is retrieved from that peer community (outbound).",
    properties: { purpose_of_use: PURPOSE, requesting_community_id: COMMUNITY_ID, home_community_id: COMMUNITY_ID, repository_id: { type: 'string' }, document_id: { type: 'string' }, timeout_ms: TIMEOUT_MS },
  },
  responseBody: {
    type: 'object',
    required: ['exchange_id', 'home_community_id', 'repository_id', 'document_id', 'content_type', 'data'],
    properties: {
      exchange_id: EXCHANGE_ID,
      purpose_of_use: { type: 'string' },
      home_community_id: COMMUNITY_ID,
      repository_id: { type: 'string' },
      document_id: { type: 'string' },
      content_type: { type: 'string' },
      data: { type: 'string', contentEncoding: 'base64' },
      size: { type: 'integer' },
    },
  },
} satisfies Record<string, JsonSchema>;

// --- Audit log ------------------------------------------------------------------------------

/** The fields of an audit log entry (Query.tefcaExchanges and Query.tefcaExchange). */
export const EXCHANGE_FIELDS =
  'exchangeId eventType partnerGpid credentialId kind direction purposeOfUse requestingCommunityId respondingCommunityIds ' +
  'communities { homeCommunityId status durationMs resultCount error } outcome resultCount errorCode requestId startedAt durationMs';

export const listExchanges: GatewayOperation = {
  document: `query TefcaExchanges($first: Int, $after: String, $direction: String, $partnerGpid: ID) {
  tefcaExchanges(first: $first, after: $after, direction: $direction, partnerGpid: $partnerGpid) {
    edges { node { ${EXCHANGE_FIELDS} } }
    pageInfo { hasNextPage endCursor }
  }
}`,
  variables: ({ query }) => {
    const limit = singleQueryValue(query, 'limit');
    const cursor = singleQueryValue(query, 'cursor');
    const direction = singleQueryValue(query, 'direction');
    const partnerGpid = singleQueryValue(query, 'partner_gpid');
    const errors = [];
    if (limit !== undefined && !/^\d{1,3}$/.test(limit)) errors.push({ field: 'limit', message: 'must be an integer from 1 to 100' });
    if (direction !== undefined && direction !== 'inbound' && direction !== 'outbound') errors.push({ field: 'direction', message: 'must be inbound or outbound' });
    if (partnerGpid !== undefined && !isPartnerGpid(partnerGpid)) errors.push({ field: 'partner_gpid', message: 'must be a CMS GPID (CMS- and 8 digits)' });
    if (errors.length > 0) throw validationError(errors);
    return { first: limit === undefined ? null : Number(limit), after: cursor ?? null, direction: direction ?? null, partnerGpid: partnerGpid ?? null };
  },
  result: (data) => {
    const page = data['tefcaExchanges'] as { edges: { node: unknown }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    return { exchanges: snakeKeys(page.edges.map((e) => e.node)), next_cursor: page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null };
  },
};

/** One audit log entry as REST shows it. */
export const EXCHANGE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    exchange_id: EXCHANGE_ID,
    event_type: { type: 'string' },
    partner_gpid: { type: ['string', 'null'] },
    credential_id: { type: ['string', 'null'] },
    kind: { type: 'string', enum: ['xcpd', 'xca.query', 'xca.retrieve'] },
    direction: { type: 'string', enum: ['inbound', 'outbound'] },
    purpose_of_use: { type: ['string', 'null'] },
    requesting_community_id: { type: ['string', 'null'] },
    responding_community_ids: { type: 'array', items: { type: 'string' } },
    communities: { type: 'array', items: COMMUNITY_OUTCOME },
    outcome: { type: 'string', enum: ['success', 'partial', 'failure'] },
    result_count: { type: 'integer' },
    error_code: { type: ['string', 'null'] },
    request_id: { type: 'string' },
    started_at: { type: 'string', format: 'date-time' },
    duration_ms: { type: 'integer' },
  },
};

export const listExchangesSchemas = {
  queryParameters: {
    limit: { schema: { type: 'integer', minimum: 1, maximum: 100 }, description: 'Page size (default 20).' },
    cursor: { schema: { type: 'string' }, description: 'next_cursor of the previous page.' },
    direction: { schema: { type: 'string', enum: ['inbound', 'outbound'] }, description: 'Only inbound or outbound exchanges.' },
    partner_gpid: { schema: { type: 'string', pattern: '^CMS-[0-9]{8}$' }, description: "Operators: one partner's exchanges." },
  },
  responseBody: {
    type: 'object',
    required: ['exchanges', 'next_cursor'],
    description: "The partner's TEFCA exchanges, newest first; immutable. An exchange appears within moments of its answer (it is recorded from its event).",
    properties: {
      exchanges: { type: 'array', items: EXCHANGE_SCHEMA },
      next_cursor: { type: ['string', 'null'] },
    },
  },
};

// --- Legacy routes --------------------------------------------------------------------------

const isInbound = (input: RouteInput): boolean => {
  const body = input.body as Record<string, unknown> | null;
  return typeof body === 'object' && body !== null && body['requesting_community_id'] !== undefined && body['requesting_community_id'] !== null;
};

/** Either successor's operation, chosen by the body (see the header comment). */
function legacy(inbound: GatewayOperation, outbound: GatewayOperation): GatewayOperation {
  const pick = (input: RouteInput) => (isInbound(input) ? inbound : outbound);
  return {
    document: (principal, input) => {
      const op = pick(input);
      return typeof op.document === 'string' ? op.document : op.document(principal, input);
    },
    documents: [inbound, outbound].flatMap((op) => (typeof op.document === 'string' ? [op.document] : (op.documents ?? []))),
    variables: (input) => pick(input).variables?.(input) ?? {},
    result: (data, input) => pick(input).result(data, input),
  };
}

export const legacyPatientDiscovery = legacy(xcpdDiscover, xcpdSearch);
export const legacyDocumentQuery = legacy(xcaQuery, xcaSearch);

const LEGACY_NOTE = 'A body with requesting_community_id is a peer community asking us (inbound successor); without it, an outbound request to the peers.';
export const legacyPatientDiscoverySchemas = {
  requestBody: { description: `${LEGACY_NOTE} Same fields as the successor.`, oneOf: [xcpdDiscoverSchemas.requestBody, xcpdSearchSchemas.requestBody] },
  responseBody: { oneOf: [xcpdDiscoverSchemas.responseBody, xcpdSearchSchemas.responseBody] },
} satisfies Record<string, JsonSchema>;
export const legacyDocumentQuerySchemas = {
  requestBody: { description: `${LEGACY_NOTE} Same fields as the successor.`, oneOf: [xcaQuerySchemas.requestBody, xcaSearchSchemas.requestBody] },
  responseBody: { oneOf: [xcaQuerySchemas.responseBody, xcaSearchSchemas.responseBody] },
} satisfies Record<string, JsonSchema>;


import { capabilityRoute, DomainError, isId, isPatientGpid, isSystemGpid, readSourceHeader, SOURCE_HEADER, SOURCE_ORIGINS, validationError, type FieldError } from '@svc/platform';
import type { JsonSchema, RouteInput, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/*
 * The spec's "Identity" table. Payloads are ours (the spec shows none); see the subgraph README for
 * the full contract. In short:
 *
 *   POST /api/identity/match     { name, dob, email?, phone?, emails?, phones?, sex?, previous_names?, address?, addresses?,
 *                                  identifiers?: [{ system, value, assigner? }], entity_type?, strict? }
 *                                → { match_type, candidates: [{ gpid, confidence, match_type, identity_status, sources }], warnings }
 *   POST /api/identity/resolve   same body, X-Svc-Source required
 *                                → { gpid, identity_status, match_type, confidence, created, decision, entity_type, subject_gpid, links, sources, candidates, warnings }
 *                                (warnings: [{ field, code, message }] of an invalid optional field that was dropped; strict: true refuses it)
 *   GET  /api/identity/{gpid}    → the record: status, entity type, sources with confirmation times, merged_into and
 *                                  survivor_gpid, lineage, related GPIDs, match history summary
 *   POST /api/identity/merge     { survivor_gpid, merged_gpids, reason, note? }  → a PENDING request mrg_…
 *                                { approve: "mrg_…", note? }                    → APPLIED (audit identity.merged.v1)
 *                                { reject: "mrg_…", note? }                     → REJECTED (or withdrawn)
 *   POST /api/identity/split     { gpid, reason, note? } / { approve: "spl_…" } / { reject: "spl_…" }
 *
 * Write paths (resolve, merge, split) need X-Svc-Source with one of the 8 origins: missing → 400
 * MISSING_SOURCE_HEADER, anything else → 400 INVALID_SOURCE_HEADER.
 */

const NAME_PARTS = ['given', 'middle', 'family'] as const;
const DEMOGRAPHIC_FIELDS = ['name', 'dob', 'email', 'phone', 'emails', 'phones', 'sex', 'previous_names', 'address', 'addresses', 'identifiers', 'entity_type', 'strict'] as const;
const ADDRESS_FIELDS = ['lines', 'city', 'state', 'postal_code', 'country'] as const;
const IDENTIFIER_FIELDS = ['system', 'value', 'assigner', 'type', 'verified'] as const;

function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw validationError([{ field: 'body', message: 'must be a JSON object' }], 'The request body must be a JSON object.');
  }
  return body as Record<string, unknown>;
}

function unknownKeys(body: Record<string, unknown>, allowed: readonly string[], errors: FieldError[]): void {
  for (const key of Object.keys(body)) if (!allowed.includes(key)) errors.push({ field: key, message: `is not a field of this request (expected ${allowed.join(', ')})` });
}

function optionalString(body: Record<string, unknown>, key: string, errors: FieldError[]): string | null {
  const value = body[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.push({ field: key, message: 'must be a string' });
    return null;
  }
  return value;
}

/** A list of strings (null when absent); each entry's problem names it (`emails.1`). */
function optionalStringList(value: unknown, field: string, errors: FieldError[]): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    errors.push({ field, message: 'must be a list' });
    return null;
  }
  value.forEach((entry: unknown, i) => {
    if (typeof entry !== 'string') errors.push({ field: `${field}.${i}`, message: 'must be a string' });
  });
  return value as string[];
}

/** An object whose members are checked for their shape only (the subgraph validates values). */
function shapedObject(value: unknown, field: string, allowed: readonly string[], what: string, errors: FieldError[]): Record<string, unknown> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push({ field, message: `must be an object with ${allowed.join(', ')}` });
    return null;
  }
  const raw = value as Record<string, unknown>;
  for (const key of Object.keys(raw)) if (!allowed.includes(key)) errors.push({ field: `${field}.${key}`, message: `is not ${what} (use ${allowed.join(', ')})` });
  return raw;
}

/** A string member of a nested object (null when absent); a problem names `field.key`. */
function stringMember(raw: Record<string, unknown>, key: string, field: string, errors: FieldError[]): string | null {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.push({ field: `${field}.${key}`, message: 'must be a string' });
    return null;
  }
  return value;
}

/** The body's address as `IdentityAddressInput`. */
function addressInput(value: unknown, field: string, errors: FieldError[]): Record<string, unknown> | null {
  const raw = shapedObject(value, field, ADDRESS_FIELDS, 'an address field', errors);
  if (!raw) return null;
  return {
    lines: optionalStringList(raw['lines'], `${field}.lines`, errors),
    city: stringMember(raw, 'city', field, errors),
    state: stringMember(raw, 'state', field, errors),
    postalCode: stringMember(raw, 'postal_code', field, errors),
    country: stringMember(raw, 'country', field, errors),
  };
}

function listOf(raw: Record<string, unknown>, key: string, errors: FieldError[], each: (entry: unknown, field: string) => unknown): unknown[] | null {
  const value = raw[key];
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) {
    errors.push({ field: key, message: 'must be a list' });
    return null;
  }
  return value.map((entry: unknown, i) => each(entry, `${key}.${i}`));
}

/** The body's newer fields (emails, phones, sex, previous_names, address, addresses, identifiers) as GraphQL input fields. */
function listInputs(raw: Record<string, unknown>, input: Record<string, unknown>, errors: FieldError[]): void {
  input['emails'] = optionalStringList(raw['emails'], 'emails', errors);
  input['phones'] = optionalStringList(raw['phones'], 'phones', errors);
  input['previousNames'] = optionalStringList(raw['previous_names'], 'previous_names', errors);
  input['sex'] = optionalString(raw, 'sex', errors);
  input['address'] = raw['address'] === undefined || raw['address'] === null ? null : addressInput(raw['address'], 'address', errors);
  input['addresses'] = listOf(raw, 'addresses', errors, (entry, field) => addressInput(entry, field, errors));
  input['identifiers'] = listOf(raw, 'identifiers', errors, (entry, field) => {
    const id = shapedObject(entry, field, IDENTIFIER_FIELDS, 'an identifier field', errors);
    if (!id) return null;
    const verified = id['verified'];
    if (verified !== undefined && verified !== null && typeof verified !== 'boolean') errors.push({ field: `${field}.verified`, message: 'must be true or false' });
    return {
      system: stringMember(id, 'system', field, errors),
      value: stringMember(id, 'value', field, errors),
      assigner: stringMember(id, 'assigner', field, errors),
      type: stringMember(id, 'type', field, errors),
      verified: typeof verified === 'boolean' ? verified : null,
    };
  });
}

/** The demographics body as the GraphQL `IdentityDemographicsInput` (the subgraph validates values). */
function demographicsInput(body: unknown): Record<string, unknown> {
  const raw = bodyObject(body);
  const errors: FieldError[] = [];
  unknownKeys(raw, DEMOGRAPHIC_FIELDS, errors);
  const input: Record<string, unknown> = {};
  const name = raw['name'];
  if (typeof name === 'string') input['name'] = name;
  else if (typeof name === 'object' && name !== null && !Array.isArray(name)) {
    const parts: Record<string, string> = {};
    for (const [key, value] of Object.entries(name)) {
      if (!(NAME_PARTS as readonly string[]).includes(key)) errors.push({ field: `name.${key}`, message: 'is not a name part (use given, middle, family)' });
      else if (value !== null && value !== undefined && typeof value !== 'string') errors.push({ field: `name.${key}`, message: 'must be a string' });
      else if (typeof value === 'string') parts[key] = value;
    }
    input['nameParts'] = parts;
  } else if (name !== undefined && name !== null) errors.push({ field: 'name', message: 'must be a string or an object with given, middle and family' });
  input['dob'] = optionalString(raw, 'dob', errors);
  // `strict` is read by strictFlag; the rest are the GraphQL input's fields.
  input['email'] = optionalString(raw, 'email', errors);
  input['phone'] = optionalString(raw, 'phone', errors);
  input['entityType'] = optionalString(raw, 'entity_type', errors);
  listInputs(raw, input, errors);
  if (errors.length > 0) throw validationError(errors, 'The demographics have invalid fields.');
  return input;
}

/** The body's `strict` flag (default false): refuse an invalid email or phone instead of dropping it. */
function strictFlag(body: unknown): boolean {
  const value = bodyObject(body)['strict'];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw validationError([{ field: 'strict', message: 'must be true or false' }], 'The demographics have invalid fields.');
  return value;
}

const WARNING_FIELDS = 'warnings { field code message }';

function requireGpid(value: unknown, field: string, errors: FieldError[]): string {
  if (value === undefined || value === null || value === '') errors.push({ field, message: 'is required' });
  else if (typeof value !== 'string') errors.push({ field, message: 'must be a string' });
  else return value;
  return '';
}

function requireString(raw: Record<string, unknown>, key: string, errors: FieldError[]): string {
  const value = raw[key];
  if (value === undefined || value === null) errors.push({ field: key, message: 'is required' });
  else if (typeof value !== 'string') errors.push({ field: key, message: 'must be a string' });
  else return value;
  return '';
}

/** Which of the three forms a merge or split body has. */
type ChangeForm = { form: 'request'; raw: Record<string, unknown> } | { form: 'approve' | 'reject'; requestId: string; note: string | null };

function changeForm(body: unknown, kind: 'merge' | 'split'): ChangeForm {
  const raw = bodyObject(body);
  const prefix = kind === 'merge' ? 'mrg' : 'spl';
  const decision = (['approve', 'reject'] as const).filter((k) => raw[k] !== undefined);
  if (decision.length === 0) return { form: 'request', raw };
  const errors: FieldError[] = [];
  if (decision.length > 1) errors.push({ field: 'approve', message: 'approve and reject cannot be combined' });
  const form = decision[0]!;
  unknownKeys(raw, [form, 'note'], errors);
  const requestId = raw[form];
  if (typeof requestId !== 'string' || !isId(prefix, requestId)) {
    errors.push({ field: form, message: `must be the id of a pending ${kind} request (${prefix}_…)${kind === 'merge' ? '; split requests are decided on /api/identity/split' : '; merge requests are decided on /api/identity/merge'}` });
  }
  const note = optionalString(raw, 'note', errors);
  if (errors.length > 0) throw validationError(errors, `The ${kind} decision has invalid fields.`);
  return { form, requestId: requestId as string, note };
}

export const REQUEST_FIELDS = 'id kind status reason note survivorGpid gpids requestedBy { kind partnerGpid credentialId operator } requestedSource requestedAt expiresAt decidedBy { kind partnerGpid credentialId operator } decidedSource decidedAt decisionNote auditSeq';
const AUDIT_FIELDS = 'seq eventId type hash prevHash';

export interface ChangeRequestData {
  id: string;
  /** MERGE or SPLIT (the GraphQL enum). */
  kind: string;
  status: string;
  reason: string;
  note: string | null;
  survivorGpid: string | null;
  gpids: string[];
  requestedBy: Record<string, unknown>;
  requestedSource: string;
  requestedAt: string;
  expiresAt: string;
  decidedBy: Record<string, unknown> | null;
  decidedSource: string | null;
  decidedAt: string | null;
  decisionNote: string | null;
  auditSeq: number | null;
}

/** The REST shape of a merge or split request (and, once applied, of its audit entry). */
export function changeRequestBody(request: ChangeRequestData, audit: Record<string, unknown> | null) {
  const kind = request.kind.toLowerCase() as 'merge' | 'split';
  const base = kind === 'merge' ? { survivor_gpid: request.survivorGpid, merged_gpids: request.gpids } : { gpid: request.gpids[0], split_from_gpid: request.survivorGpid };
  const path = `/api/identity/${kind}`;
  return {
    request_id: request.id,
    kind,
    status: request.status,
    ...base,
    reason: request.reason,
    note: request.note,
    requested_by: snakeKeys(request.requestedBy),
    requested_source: request.requestedSource,
    requested_at: request.requestedAt,
    expires_at: request.expiresAt,
    decided_by: request.decidedBy ? snakeKeys(request.decidedBy) : null,
    decided_source: request.decidedSource,
    decided_at: request.decidedAt,
    decision_note: request.decisionNote,
    ...(request.status === 'PENDING'
      ? {
          approval: {
            required: true,
            how: `POST ${path} with {"approve": "${request.id}"} and an ${SOURCE_HEADER} header, by a different principal holding identity.approve (another credential; another partner unless an operator).`,
          },
        }
      : {}),
    audit: audit ? { event: audit['type'], seq: audit['seq'], event_id: audit['eventId'], hash: audit['hash'], prev_hash: audit['prevHash'] } : null,
  };
}

const CHANGE_DOCUMENTS = {
  approve: `mutation ApproveIdentityChange($id: ID!, $source: String!, $note: String) { approveIdentityChange(requestId: $id, source: $source, note: $note) { request { ${REQUEST_FIELDS} } audit { ${AUDIT_FIELDS} } } }`,
  reject: `mutation RejectIdentityChange($id: ID!, $source: String!, $note: String) { rejectIdentityChange(requestId: $id, source: $source, note: $note) { ${REQUEST_FIELDS} } }`,
  merge: `mutation RequestIdentityMerge($input: RequestIdentityMergeInput!, $source: String!) { requestIdentityMerge(input: $input, source: $source) { ${REQUEST_FIELDS} } }`,
  split: `mutation RequestIdentitySplit($input: RequestIdentitySplitInput!, $source: String!) { requestIdentitySplit(input: $input, source: $source) { ${REQUEST_FIELDS} } }`,
};

function changeDocument(kind: 'merge' | 'split', input: RouteInput): string {
  const form = changeForm(input.body, kind);
  if (form.form === 'approve') return CHANGE_DOCUMENTS.approve;
  if (form.form === 'reject') return CHANGE_DOCUMENTS.reject;
  return CHANGE_DOCUMENTS[kind];
}

function changeVariables(kind: 'merge' | 'split', input: RouteInput): Record<string, unknown> {
  const source = readSourceHeader(input.headers);
  const form = changeForm(input.body, kind);
  if (form.form !== 'request') return { id: form.requestId, source, note: form.note };
  const errors: FieldError[] = [];
  if (kind === 'merge') {
    unknownKeys(form.raw, ['survivor_gpid', 'merged_gpids', 'reason', 'note'], errors);
    const survivorGpid = requireGpid(form.raw['survivor_gpid'], 'survivor_gpid', errors);
    const merged = form.raw['merged_gpids'];
    if (!Array.isArray(merged)) errors.push({ field: 'merged_gpids', message: 'is required: an array of GPIDs' });
    else merged.forEach((g, i) => typeof g !== 'string' && errors.push({ field: `merged_gpids.${i}`, message: 'must be a string' }));
    const reason = requireString(form.raw, 'reason', errors);
    const note = optionalString(form.raw, 'note', errors);
    if (errors.length > 0) throw validationError(errors, 'The merge request has invalid fields.');
    return { source, input: { survivorGpid, mergedGpids: merged, reason, note } };
  }
  unknownKeys(form.raw, ['gpid', 'reason', 'note'], errors);
  const gpid = requireGpid(form.raw['gpid'], 'gpid', errors);
  const reason = requireString(form.raw, 'reason', errors);
  const note = optionalString(form.raw, 'note', errors);
  if (errors.length > 0) throw validationError(errors, 'The split request has invalid fields.');
  return { source, input: { gpid, reason, note } };
}

function changeResult(data: Record<string, unknown>) {
  if (data['approveIdentityChange']) {
    const decision = data['approveIdentityChange'] as { request: ChangeRequestData; audit: Record<string, unknown> | null };
    return changeRequestBody(decision.request, decision.audit);
  }
  const request = (data['rejectIdentityChange'] ?? data['requestIdentityMerge'] ?? data['requestIdentitySplit']) as ChangeRequestData;
  return changeRequestBody(request, null);
}

const CANDIDATE_FIELDS = 'gpid confidence matchType status sources agreement';

function candidateBody(c: { gpid: string; confidence: number; matchType: string; status: string; sources: string[]; agreement: Record<string, unknown> }) {
  return { gpid: c.gpid, confidence: c.confidence, match_type: c.matchType, identity_status: c.status, sources: c.sources, agreement: snakeKeys(c.agreement) };
}

// ---------------------------------------------------------------------------------------------
// OpenAPI schemas
// ---------------------------------------------------------------------------------------------

const NAME_SCHEMA: JsonSchema = {
  oneOf: [
    { type: 'string', description: '"Given Middle Family" or "Family, Given Middle"', maxLength: 200 },
    { type: 'object', additionalProperties: false, properties: { given: { type: 'string' }, middle: { type: 'string' }, family: { type: 'string' } } },
  ],
};
const ADDRESS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['lines'],
  description:
    'Postal address, compared in USPS standard form (Publication 28: street suffixes and unit designators abbreviated, directionals N/S/E/W; the unit compared by its identifier, so "Apt 4B" = "# 4B"); US ZIP compared on 5 digits. postal_code is required unless city (and, in the US, state) are given. An invalid address is dropped with a warning unless strict.',
  properties: {
    lines: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', maxLength: 100 }, examples: [['123 North Main Street', 'Apartment 4B']] },
    city: { type: 'string', maxLength: 100 },
    state: { type: 'string', maxLength: 100, description: 'US: the USPS code (MA) or the state name' },
    postal_code: { type: 'string', maxLength: 100, examples: ['02134-1234'] },
    country: { type: 'string', description: 'ISO 3166-1 alpha-2; default US', examples: ['US'] },
  },
};
const IDENTIFIER_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['value'],
  description:
    'An identifier with its system (or a v2-0203 type). An equal value of the same system (and assigner) is strong evidence; a value one substitution or transposition away (or an NPI failing its check digit) is a probable keying error and still links; any other value of the same system, or a keying error on a verified identifier, forbids an automatic link (the record is linked for review). An invalid identifier is dropped with a warning unless strict.',
  properties: {
    system: {
      type: 'string',
      maxLength: 100,
      description:
        'ssn, mrn, drivers_license, insurance_member_id, passport, national_id, npi; or a system URI: http://hl7.org/fhir/sid/us-ssn, http://hl7.org/fhir/sid/us-npi, urn:oid:2.16.840.1.113883.4.3.<state FIPS> (a driver\'s licence), http://hl7.org/fhir/sid/passport-<alpha-3>; with type, the number space (an MRN\'s). Any other URI is kept as an opaque system: equal values of that very system agree, nothing else is compared',
    },
    type: { type: 'string', description: 'a v2-0203 identifier type code (SS, NPI, DL, MR, MB, SN, PPN, NI) when system is a URI the registry does not know, or absent' },
    verified: { type: 'boolean', description: 'true: the source checked the value against a document or an authority; a different value of that system then never links automatically, even one keystroke away' },
    value: { type: 'string', maxLength: 64, description: 'compared as letters and digits (spaces, dashes, dots, slashes ignored); ssn: 9 digits, issuable' },
    assigner: { type: 'string', maxLength: 100, description: 'mrn: the assigning authority; drivers_license: the issuing US state; insurance_member_id: the payer; passport and national_id: the issuing country (ISO alpha-3: USA, CAN; a US national number is an ssn); not used for ssn' },
  },
};
const DEMOGRAPHICS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: NAME_SCHEMA,
    dob: { type: 'string', description: 'ISO 8601 date (1980-03-04) or a common written form; ambiguous numeric dates are MM/DD/YYYY', examples: ['1980-03-04'] },
    email: { type: 'string', description: 'internationalized addresses (RFC 6531: UTF-8 local part, IDN domain as U-label or A-label) are accepted; an invalid one is dropped with a warning unless strict' },
    phone: { type: 'string', description: 'any common format; national numbers are read as US; an invalid one is dropped with a warning unless strict' },
    emails: { type: 'array', maxItems: 5, items: { type: 'string' }, description: 'more e-mail addresses (with email, at most 5); each invalid one is dropped with a warning unless strict' },
    phones: { type: 'array', maxItems: 5, items: { type: 'string' }, description: 'more phone numbers (with phone, at most 5)' },
    sex: { enum: ['male', 'female', 'other', 'unknown'], description: 'administrative sex (FHIR AdministrativeGender); unknown is not compared' },
    previous_names: { type: 'array', maxItems: 5, items: { type: 'string', maxLength: 200 }, description: 'earlier names (maiden name, name before a change), written like name; a record is found under any of them' },
    address: ADDRESS_SCHEMA,
    addresses: { type: 'array', maxItems: 5, items: ADDRESS_SCHEMA, description: 'more addresses (with address, at most 5)' },
    identifiers: { type: 'array', maxItems: 10, items: IDENTIFIER_SCHEMA },
    entity_type: { type: 'string', description: 'one of the 22 entity types (patient, practitioner, practitioner_role, organization, …, service); default patient' },
    strict: { type: 'boolean', default: false, description: 'true: refuse an invalid optional field (email, phone, sex, address, identifier) with 422 naming the field instead of dropping it with a warning' },
  },
};
const WARNINGS_SCHEMA: JsonSchema = {
  type: 'array',
  description: 'Optional fields (email, phone, sex, address, identifier) whose value was invalid and was dropped; the record was matched or resolved on the other fields. Empty when strict.',
  items: {
    type: 'object',
    required: ['field', 'code', 'message'],
    properties: { field: { type: 'string', description: 'the field: email, phones.1, sex, address.postal_code, identifiers.0.value …' }, code: { enum: ['INVALID_FIELD_DROPPED'] }, message: { type: 'string', description: 'why (never the value)' } },
  },
};
const CANDIDATE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    gpid: { type: 'string' },
    confidence: { type: 'number', minimum: 0, maximum: 1 },
    match_type: { enum: ['DETERMINISTIC', 'PARTIAL', 'NONE'] },
    identity_status: { enum: ['ACTIVE', 'SHADOW', 'PROVISIONAL', 'CONFLICT', 'MERGED', 'SPLIT'] },
    sources: { type: 'array', items: { enum: [...SOURCE_ORIGINS] } },
    agreement: {
      type: 'object',
      description:
        'Why: the level each comparison landed on (given, family, name_order, dob, email, phone, sex, address, identifier, member_id), weights (bits per comparison; with prior_log2_odds they add up to log2_odds), term_frequency (bits taken off a common value), pair_confidence (this candidate alone), model_version, blocked_by (twins, identifier_conflict, verified_identifier_conflict, different_family_name or null; identifier: exact, typo (a probable keying error: one substitution, transposition, insertion or deletion), typo2 (two keying errors), conflict or missing).',
    },
  },
};
const DECISION_SCHEMA = (prefix: string): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  properties: { note: { type: 'string', maxLength: 1000 } },
  description: `Approve (a different principal with identity.approve) or reject a pending ${prefix}_… request.`,
});
export const CHANGE_RESPONSE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    request_id: { type: 'string' },
    kind: { enum: ['merge', 'split'] },
    status: { enum: ['PENDING', 'APPLIED', 'REJECTED', 'EXPIRED'] },
    reason: { type: 'string' },
    requested_by: { type: 'object' },
    decided_by: { type: ['object', 'null'] },
    audit: { type: ['object', 'null'], description: 'identity.merged.v1 / identity.split.v1 entry of the hash chain (seq, event_id, hash, prev_hash) once APPLIED' },
  },
};

/** The spec's "Identity" table. */
export const identityRoutes: RouteSpec[] = [
  {
    id: 'identity.match',
    method: 'POST',
    path: '/api/identity/match',
    ...capabilityRoute('identity.match'),
    summary: 'Match demographics; returns candidates with confidence scores and a match type',
    auth: 'service',
    scopes: ['identity.match'],
    successStatus: 200,
    latency: ['85ms', '220ms'],
    requestBody: DEMOGRAPHICS_SCHEMA,
    responseBody: { type: 'object', properties: { match_type: { enum: ['DETERMINISTIC', 'PARTIAL', 'NONE'] }, candidates: { type: 'array', items: CANDIDATE_SCHEMA }, warnings: WARNINGS_SCHEMA } },
    operation: {
      document: `query IdentityMatch($input: IdentityDemographicsInput!, $strict: Boolean) { identityMatch(input: $input, strict: $strict) { matchType candidates { ${CANDIDATE_FIELDS} } ${WARNING_FIELDS} } }`,
      variables: ({ body }) => ({ input: demographicsInput(body), strict: strictFlag(body) }),
      result: (data) => {
        const match = data['identityMatch'] as { matchType: string; candidates: Parameters<typeof candidateBody>[0][]; warnings: unknown[] };
        return { match_type: match.matchType, candidates: match.candidates.map(candidateBody), warnings: match.warnings };
      },
    },
  },
  {
    id: 'identity.resolve',
    method: 'POST',
    path: '/api/identity/resolve',
    ...capabilityRoute('identity.resolve'),
    summary: 'Resolve or create a GPID',
    auth: 'service',
    scopes: ['identity.resolve'],
    successStatus: 200,
    latency: ['120ms', '350ms'],
    requestBody: {
      ...DEMOGRAPHICS_SCHEMA,
      description: `Send the caller's source origin in ${SOURCE_HEADER} (${SOURCE_ORIGINS.join(', ')}). A name is required unless an identifier, or dob with an email, phone or address, is given.`,
    },
    responseBody: {
      type: 'object',
      properties: {
        gpid: { type: 'string' },
        identity_status: { enum: ['ACTIVE', 'SHADOW', 'PROVISIONAL', 'CONFLICT', 'MERGED', 'SPLIT'] },
        match_type: { enum: ['DETERMINISTIC', 'PARTIAL', 'NONE'] },
        confidence: { type: 'number' },
        created: { type: 'boolean' },
        decision: { enum: ['EXISTING', 'NEW_SHADOW', 'NEW_PROVISIONAL', 'NEW_CONFLICT'] },
        entity_type: { type: 'string' },
        subject_gpid: { type: ['string', 'null'] },
        links: { type: 'array', items: { type: 'string' } },
        sources: { type: 'array', items: { type: 'string' } },
        candidates: { type: 'array', items: CANDIDATE_SCHEMA },
        warnings: WARNINGS_SCHEMA,
      },
    },
    operation: {
      document: `mutation ResolveIdentity($input: IdentityDemographicsInput!, $source: String!, $strict: Boolean) { resolveIdentity(input: $input, source: $source, strict: $strict) { gpid entityType status matchType confidence created decision subjectGpid links sources candidates { ${CANDIDATE_FIELDS} } ${WARNING_FIELDS} } }`,
      variables: (input) => {
        const source = readSourceHeader(input.headers);
        return { input: demographicsInput(input.body), source, strict: strictFlag(input.body) };
      },
      result: (data) => {
        const r = data['resolveIdentity'] as Record<string, unknown> & { candidates: Parameters<typeof candidateBody>[0][] };
        return {
          gpid: r['gpid'],
          identity_status: r['status'],
          match_type: r['matchType'],
          confidence: r['confidence'],
          created: r['created'],
          decision: r['decision'],
          entity_type: r['entityType'],
          subject_gpid: r['subjectGpid'],
          links: r['links'],
          sources: r['sources'],
          candidates: r.candidates.map(candidateBody),
          warnings: r['warnings'],
        };
      },
    },
  },
  {
    id: 'identity.get',
    method: 'GET',
    path: '/api/identity/{gpid}',
    ...capabilityRoute('identity.get'),
    summary: 'Get identity record',
    auth: 'bearer',
    scopes: ['identity.read', 'cms.admin'],
    successStatus: 200,
    latency: ['55ms', '150ms'],
    operation: {
      document:
        'query GetIdentity($gpid: ID!) { identity(gpid: $gpid) { gpid entityType status mergedInto survivor { gpid status } ' +
        'sources { source firstConfirmedAt lastConfirmedAt confirmations } relatedGpids lineage { kind gpid requestId reason at } mergedFrom splitFrom ' +
        'matchHistory(last: 10) { total firstAt lastAt recent { at decision matchType confidence status source subjectGpid } } version createdAt updatedAt } }',
      variables: ({ params }) => {
        const gpid = params['gpid'] ?? '';
        if (!isPatientGpid(gpid) && !isSystemGpid(gpid)) {
          throw new DomainError('VALIDATION_ERROR', 'The GPID is malformed.', { fieldErrors: [{ field: 'gpid', message: 'must be SVC- and 8 uppercase hex characters, or {PRD}-{TYPE}-{N}' }] });
        }
        return { gpid };
      },
      result: (data, { params }) => {
        const record = data['identity'] as Record<string, unknown> | null;
        if (!record) throw new DomainError('NOT_FOUND', `No identity record has GPID ${params['gpid']}.`);
        const survivor = record['survivor'] as { gpid: string; status: string } | null;
        const history = record['matchHistory'] as { total: number; firstAt: string | null; lastAt: string | null; recent: Record<string, unknown>[] };
        const lineage = record['lineage'] as Array<{ kind: string; gpid: string; requestId: string; reason: string; at: string }>;
        return {
          gpid: record['gpid'],
          entity_type: record['entityType'],
          identity_status: record['status'],
          merged_into: record['mergedInto'],
          survivor_gpid: survivor?.gpid ?? null,
          survivor_status: survivor?.status ?? null,
          sources: snakeKeys(record['sources']),
          related_gpids: record['relatedGpids'],
          lineage: {
            merged_from: record['mergedFrom'],
            split_from: record['splitFrom'],
            events: lineage.map((l) => ({ kind: l.kind.toLowerCase(), gpid: l.gpid, request_id: l.requestId, reason: l.reason, at: l.at })),
          },
          match_history: {
            total: history.total,
            first_at: history.firstAt,
            last_at: history.lastAt,
            recent: history.recent.map((h) => ({
              at: h['at'],
              decision: h['decision'],
              match_type: h['matchType'],
              confidence: h['confidence'],
              identity_status: h['status'],
              source: h['source'],
              subject_gpid: h['subjectGpid'],
            })),
          },
          version: record['version'],
          created_at: record['createdAt'],
          updated_at: record['updatedAt'],
        };
      },
    },
  },
  {
    id: 'identity.merge',
    method: 'POST',
    path: '/api/identity/merge',
    ...capabilityRoute('identity.merge'),
    summary: 'Merge GPIDs into a survivor; needs a merge reason; approval required',
    auth: 'bearer',
    scopes: ['identity.merge', 'identity.approve'],
    successStatus: 200,
    latency: ['300ms', '800ms'],
    requestBody: {
      oneOf: [
        {
          type: 'object',
          required: ['survivor_gpid', 'merged_gpids', 'reason'],
          additionalProperties: false,
          description: 'Request a merge (identity.merge). Creates a PENDING mrg_… request; nothing changes until another principal approves it.',
          properties: {
            survivor_gpid: { type: 'string' },
            merged_gpids: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 20 },
            reason: { enum: ['deterministic_exact', 'manual_review', 'probabilistic'] },
            note: { type: 'string', maxLength: 1000 },
          },
        },
        { ...DECISION_SCHEMA('mrg'), required: ['approve'], properties: { approve: { type: 'string', pattern: '^mrg_' }, note: { type: 'string' } } },
        { ...DECISION_SCHEMA('mrg'), required: ['reject'], properties: { reject: { type: 'string', pattern: '^mrg_' }, note: { type: 'string' } } },
      ],
      description: `Every form needs the ${SOURCE_HEADER} header.`,
    },
    responseBody: CHANGE_RESPONSE_SCHEMA,
    operation: {
      document: (_principal, input) => changeDocument('merge', input),
      documents: [CHANGE_DOCUMENTS.merge, CHANGE_DOCUMENTS.approve, CHANGE_DOCUMENTS.reject],
      variables: (input) => changeVariables('merge', input),
      result: (data) => changeResult(data),
    },
  },
  {
    id: 'identity.split',
    method: 'POST',
    path: '/api/identity/split',
    ...capabilityRoute('identity.split'),
    summary: 'Split a falsely merged GPID; needs a split reason; approval required',
    auth: 'bearer',
    scopes: ['identity.split', 'identity.approve'],
    successStatus: 200,
    latency: ['350ms', '900ms'],
    requestBody: {
      oneOf: [
        {
          type: 'object',
          required: ['gpid', 'reason'],
          additionalProperties: false,
          description: 'Request the split of a MERGED GPID from its survivor (identity.split). Creates a PENDING spl_… request.',
          properties: { gpid: { type: 'string' }, reason: { enum: ['false_merge_detected', 'manual_correction', 'legal_request'] }, note: { type: 'string', maxLength: 1000 } },
        },
        { ...DECISION_SCHEMA('spl'), required: ['approve'], properties: { approve: { type: 'string', pattern: '^spl_' }, note: { type: 'string' } } },
        { ...DECISION_SCHEMA('spl'), required: ['reject'], properties: { reject: { type: 'string', pattern: '^spl_' }, note: { type: 'string' } } },
      ],
      description: `Every form needs the ${SOURCE_HEADER} header.`,
    },
    responseBody: CHANGE_RESPONSE_SCHEMA,
    operation: {
      document: (_principal, input) => changeDocument('split', input),
      documents: [CHANGE_DOCUMENTS.split, CHANGE_DOCUMENTS.approve, CHANGE_DOCUMENTS.reject],
      variables: (input) => changeVariables('split', input),
      result: (data) => changeResult(data),
    },
  },
];

import { createHash } from 'node:crypto';
import { capabilityRoute, DomainError, type FieldError } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteInput, RouteSpec } from './route.js';
import { snakeKeys } from './snake-case.js';

/**
 * Legal documents (catalog, downloads, BAA e-signatures) and certification. The spec documents
 * downloads and the BAA e-signature only as portal features; these paths are our design, served
 * from the partner subgraph like every other route.
 */

const DOCUMENT_FIELDS = 'id kind title version fileName sections term governingLaw summary sha256 byteLength mediaType';
const SIGNATURE_FIELDS = 'id partnerGpid documentId documentVersion documentSha256 signerName signerTitle signerEmail clientIp principalKind credentialId signedAt';
const CERTIFICATION_FIELDS = `partnerGpid status checklists { id title complete requiredTotal requiredCompleted incompleteItemIds submittedAt
  items { id title evidenceKind required complete checked observedAt incompleteReason evidence { itemId observedAt detail } } }`;

/** The request body as an object. @throws DomainError `VALIDATION_ERROR` for anything else. */
function objectBody(input: RouteInput): Record<string, unknown> {
  const body = input.body;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new DomainError('VALIDATION_ERROR', 'The request body must be a JSON object.', { fieldErrors: [{ field: '', message: 'must be a JSON object' }] });
  }
  return body as Record<string, unknown>;
}

/** Optional string fields of a body; a present non-string is a field error. */
function stringFields(body: Record<string, unknown>, names: readonly string[]): Record<string, string | null> {
  const errors: FieldError[] = [];
  const out: Record<string, string | null> = {};
  for (const name of names) {
    const value = body[name];
    if (value === undefined || value === null) out[name] = null;
    else if (typeof value === 'string') out[name] = value;
    else errors.push({ field: name, message: 'must be a string' });
  }
  if (errors.length > 0) throw new DomainError('VALIDATION_ERROR', 'The request has invalid fields.', { fieldErrors: errors });
  return out;
}

/** REST spelling of GraphQL enum values: lower-case (`IN_PROGRESS` → `in_progress`). */
function lowerEnums(certification: Record<string, unknown>): unknown {
  const body = snakeKeys(certification) as Record<string, unknown> & { checklists: { items: Record<string, unknown>[] }[] };
  body['status'] = String(body['status']).toLowerCase();
  for (const checklist of body.checklists) for (const item of checklist.items) item['evidence_kind'] = String(item['evidence_kind']).toLowerCase();
  return body;
}

function partnerOf(data: Record<string, unknown>): Record<string, unknown> {
  const partner = data['partner'] as Record<string, unknown> | null | undefined;
  if (!partner) throw new DomainError('NOT_FOUND', 'The credential belongs to no partner.');
  return partner;
}

const CHECKLIST_ID = { type: 'string', enum: ['partner_ecosystem', 'identity'] };

/** JSON Schema of a partner's certification body. */
export const CERTIFICATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['partner_gpid', 'status', 'checklists'],
  properties: {
    partner_gpid: { type: 'string' },
    status: { type: 'string', enum: ['in_progress', 'ready', 'submitted'] },
    checklists: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: CHECKLIST_ID,
          title: { type: 'string' },
          complete: { type: 'boolean' },
          required_total: { type: 'integer' },
          required_completed: { type: 'integer' },
          incomplete_item_ids: { type: 'array', items: { type: 'string' } },
          submitted_at: { type: ['string', 'null'], format: 'date-time' },
          items: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                title: { type: 'string' },
                evidence_kind: { type: 'string', enum: ['observed', 'attested'] },
                required: { type: 'boolean' },
                complete: { type: 'boolean' },
                checked: { type: ['boolean', 'null'], description: 'The checkbox of an attested item; null for observed items.' },
                observed_at: { type: ['string', 'null'], format: 'date-time' },
                incomplete_reason: { type: ['string', 'null'], enum: ['not_attested', 'no_evidence', null] },
                evidence: { type: 'array', items: { type: 'object', properties: { item_id: { type: 'string' }, observed_at: { type: 'string' }, detail: { type: ['string', 'null'] } } } },
              },
            },
          },
        },
      },
    },
  },
};

/** `PUT /api/partner/certification/progress`: sync the checkboxes of attested items. */
export const certificationProgressOperation: GatewayOperation = {
  document: `mutation CertificationProgress($checklistId: ID!, $items: JSONObject!) { updateCertificationProgress(checklistId: $checklistId, items: $items) { ${CERTIFICATION_FIELDS} } }`,
  variables: (input) => {
    const body = objectBody(input);
    const errors: FieldError[] = [];
    if (typeof body['checklist_id'] !== 'string') errors.push({ field: 'checklist_id', message: 'is required: partner_ecosystem or identity' });
    const items = body['items'];
    if (typeof items !== 'object' || items === null || Array.isArray(items)) errors.push({ field: 'items', message: 'must be an object mapping item ids to true or false' });
    if (errors.length > 0) throw new DomainError('VALIDATION_ERROR', 'The progress update is invalid.', { fieldErrors: errors });
    return { checklistId: body['checklist_id'], items };
  },
  result: (data) => lowerEnums(data['updateCertificationProgress'] as Record<string, unknown>),
};

/** `POST /api/partner/certification`: submit one checklist; 422 lists the incomplete required items. */
export const certificationSubmitOperation: GatewayOperation = {
  document: `mutation SubmitCertification($checklistId: ID!) { submitCertification(checklistId: $checklistId) { ${CERTIFICATION_FIELDS} } }`,
  variables: (input) => {
    const body = objectBody(input);
    if (typeof body['checklist_id'] !== 'string') {
      throw new DomainError('VALIDATION_ERROR', 'The submission is invalid.', { fieldErrors: [{ field: 'checklist_id', message: 'is required: partner_ecosystem or identity' }] });
    }
    return { checklistId: body['checklist_id'] };
  },
  result: (data) => lowerEnums(data['submitCertification'] as Record<string, unknown>),
};

/** Request schema of the progress sync. */
export const CERTIFICATION_PROGRESS_REQUEST: JsonSchema = {
  type: 'object',
  required: ['checklist_id', 'items'],
  properties: {
    checklist_id: CHECKLIST_ID,
    items: { type: 'object', description: 'Attested item id → checked. Observed items cannot be set.', additionalProperties: { type: 'boolean' } },
  },
};

/** Request schema of the submission. */
export const CERTIFICATION_SUBMIT_REQUEST: JsonSchema = { type: 'object', required: ['checklist_id'], properties: { checklist_id: CHECKLIST_ID } };

const DOCUMENT_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['cms_mnda_v2026_03'] },
    kind: { type: 'string', enum: ['mnda', 'baa', 'consent'] },
    title: { type: 'string' },
    version: { type: 'string', examples: ['v2026-03'] },
    file_name: { type: 'string' },
    sections: { type: 'integer' },
    term: { type: ['string', 'null'] },
    governing_law: { type: ['string', 'null'] },
    summary: { type: 'string' },
    sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
    byte_length: { type: 'integer' },
    media_type: { type: 'string' },
    download_path: { type: 'string' },
  },
};

const SIGNATURE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', examples: ['sig_01j9z3k4m5n6p7q8r9s0t1v2w3'] },
    partner_gpid: { type: 'string' },
    document_id: { type: 'string' },
    document_version: { type: 'string' },
    document_sha256: { type: 'string', description: 'SHA-256 of the exact text signed.' },
    signer_name: { type: 'string' },
    signer_title: { type: 'string' },
    signer_email: { type: 'string', format: 'email' },
    client_ip: { type: ['string', 'null'] },
    principal_kind: { type: 'string' },
    credential_id: { type: ['string', 'null'] },
    signed_at: { type: 'string', format: 'date-time' },
  },
};

function documentRow(document: Record<string, unknown>): unknown {
  return { ...(snakeKeys(document) as Record<string, unknown>), kind: String(document['kind']).toLowerCase(), download_path: `/cms/legal/documents/${String(document['fileName'])}` };
}

/** The legal and certification routes we add to the documented ones. */
export const legalAndCertificationRoutes: RouteSpec[] = [
  {
    id: 'legal.documents.list',
    method: 'GET',
    path: '/cms/legal/documents',
    ...capabilityRoute('legal.documents.list'),
    summary: 'Legal document catalog (MNDA, BAA, consent forms) with SHA-256 digests',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    responseBody: { type: 'object', required: ['documents'], properties: { documents: { type: 'array', items: DOCUMENT_SCHEMA } } },
    operation: {
      document: `query LegalDocuments { legalDocuments { ${DOCUMENT_FIELDS} } }`,
      result: (data) => ({ documents: (data['legalDocuments'] as Record<string, unknown>[]).map(documentRow) }),
    },
  },
  {
    id: 'legal.documents.download',
    method: 'GET',
    path: '/cms/legal/documents/{file_name}',
    ...capabilityRoute('legal.documents.download'),
    summary: 'Download a legal document as text/plain; the ETag is its SHA-256',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    responseContentType: 'text/plain',
    responseBody: { type: 'string' },
    operation: {
      document: 'query LegalDocument($id: ID!) { legalDocument(id: $id) { fileName sha256 content } }',
      variables: ({ params }) => ({ id: params['file_name'] ?? '' }),
      result: () => undefined,
      respond: (data, input) => {
        const document = data['legalDocument'] as { fileName: string; sha256: string; content: string } | null;
        if (!document) {
          throw new DomainError('NOT_FOUND', `No legal document is named "${input.params['file_name'] ?? ''}"; GET /cms/legal/documents lists them.`);
        }
        const etag = `"${document.sha256}"`;
        const headers = {
          etag,
          'content-disposition': `attachment; filename="${document.fileName}"`,
          'repr-digest': `sha-256=:${createHash('sha256').update(document.content, 'utf8').digest('base64')}:`,
          'cache-control': 'public, max-age=86400',
        };
        const ifNoneMatch = input.headers['if-none-match'];
        if (typeof ifNoneMatch === 'string' && ifNoneMatch.split(',').some((tag) => tag.trim() === etag)) return { status: 304, body: '', headers };
        return { body: document.content, headers, contentType: 'text/plain; charset=utf-8' };
      },
    },
  },
  {
    id: 'legal.baa.sign',
    method: 'POST',
    path: '/cms/legal/baa/signatures',
    ...capabilityRoute('legal.baa.sign'),
    summary: 'E-sign the Business Associate Agreement (immutable; a second signature of the same version is 409)',
    auth: 'bearer',
    scopes: ['cms.partner.write'],
    successStatus: 201,
    requestBody: {
      type: 'object',
      required: ['signer_name', 'signer_title', 'signer_email'],
      properties: {
        document_id: { type: 'string', description: 'The BAA to sign; defaults to the one in force.', examples: ['cms_hipaa_baa_v2026_03'] },
        signer_name: { type: 'string', minLength: 2, maxLength: 200 },
        signer_title: { type: 'string', minLength: 2, maxLength: 120 },
        signer_email: { type: 'string', format: 'email' },
      },
    },
    responseBody: SIGNATURE_SCHEMA,
    operation: {
      document: `mutation SignBaa($documentId: ID, $signerName: String!, $signerTitle: String!, $signerEmail: String!, $clientIp: String) {
        signBaa(documentId: $documentId, signerName: $signerName, signerTitle: $signerTitle, signerEmail: $signerEmail, clientIp: $clientIp) { ${SIGNATURE_FIELDS} } }`,
      variables: (input) => {
        const fields = stringFields(objectBody(input), ['document_id', 'signer_name', 'signer_title', 'signer_email']);
        return {
          documentId: fields['document_id'],
          signerName: fields['signer_name'] ?? '',
          signerTitle: fields['signer_title'] ?? '',
          signerEmail: fields['signer_email'] ?? '',
          // The address the facade saw (X-Forwarded-For's first entry behind a proxy), never one the body claims.
          clientIp: input.clientIp ?? null,
        };
      },
      result: (data) => snakeKeys(data['signBaa']),
    },
  },
  {
    id: 'legal.baa.list',
    method: 'GET',
    path: '/cms/legal/baa/signatures',
    ...capabilityRoute('legal.baa.list'),
    summary: "The caller's partner's BAA e-signatures",
    auth: 'bearer',
    scopes: ['cms.partner.read', 'cms.partner.write'],
    successStatus: 200,
    responseBody: { type: 'object', required: ['signatures'], properties: { signatures: { type: 'array', items: SIGNATURE_SCHEMA } } },
    operation: {
      document: `query BaaSignatures($gpid: ID!) { partner(gpid: $gpid) { baaSignatures { ${SIGNATURE_FIELDS} } } }`,
      variables: ({ principal }) => ({ gpid: principal.partnerGpid }),
      result: (data) => ({ signatures: snakeKeys(partnerOf(data)['baaSignatures']) }),
    },
  },
  {
    id: 'certification.status',
    method: 'GET',
    path: '/api/partner/certification',
    ...capabilityRoute('certification.status'),
    summary: "The caller's certification: both checklists, items, evidence and status",
    auth: 'bearer',
    scopes: ['cms.partner.read', 'cms.partner.write'],
    successStatus: 200,
    responseBody: CERTIFICATION_SCHEMA,
    operation: {
      document: `query Certification($gpid: ID!) { partner(gpid: $gpid) { certification { ${CERTIFICATION_FIELDS} } } }`,
      variables: ({ principal }) => ({ gpid: principal.partnerGpid }),
      result: (data) => lowerEnums(partnerOf(data)['certification'] as Record<string, unknown>),
    },
  },
];

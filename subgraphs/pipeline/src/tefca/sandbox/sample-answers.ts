import { timingSafeEqual, createHash } from 'node:crypto';
import {
  DomainError,
  isHomeCommunityId,
  newExchangeId,
  readPurposeOfUse,
  readTefcaPatient,
  SANDBOX_PEER_COMMUNITY_ID,
  tefcaPatientFromJson,
  validationError,
  type TefcaPatient,
} from '@svc/platform';
import { SAMPLE_DOCUMENTS, SAMPLE_PATIENTS, type SamplePatient } from './sample-community.js';

/**
 * What the sandbox peer answers to the three TEFCA requests our outbound client sends (the JSON
 * forms of ITI-55, ITI-38 and ITI-39, as POST /tefca/xcpd/discover, /tefca/xca/query and
 * /tefca/xca/retrieve answer them), from the sample data set. Plain functions of the request body:
 * the HTTP server around them only carries bytes. Bad input is a DomainError naming the field, as
 * a real community's problem document would.
 */

export type SandboxPath = '/tefca/xcpd/discover' | '/tefca/xca/query' | '/tefca/xca/retrieve';
export const SANDBOX_PATHS: readonly SandboxPath[] = ['/tefca/xcpd/discover', '/tefca/xca/query', '/tefca/xca/retrieve'];

/** Accents and case do not matter to a match ("Sámple" finds "Sample"). */
const fold = (s: string): string => s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().trim();

/** A deterministic score: family 0.4, first given name 0.25, birth date 0.3, sex 0.05. */
function score(q: TefcaPatient, p: SamplePatient): number {
  let s = 0;
  if (q.family !== null && fold(q.family) === fold(p.family)) s += 0.4;
  if (q.given.length > 0 && p.given.some((g) => fold(g) === fold(q.given[0]!))) s += 0.25;
  if (q.birthDate !== null && q.birthDate === p.birthDate) s += 0.3;
  if (q.gender !== null && q.gender === p.gender) s += 0.05;
  return Math.round(s * 100) / 100;
}

function common(body: Record<string, unknown>): void {
  readPurposeOfUse(body['purpose_of_use']);
  const from = body['requesting_community_id'];
  if (from !== undefined && from !== null && !isHomeCommunityId(from)) throw validationError([{ field: 'requesting_community_id', message: 'must be a home community id (urn:oid:…)' }]);
}

const text = (body: Record<string, unknown>, field: string): string => {
  const v = body[field];
  if (typeof v !== 'string' || v === '' || v.length > 200) throw validationError([{ field, message: 'is required (a string of at most 200 characters)' }]);
  return v;
};

export function discover(body: Record<string, unknown>): Record<string, unknown> {
  common(body);
  const raw = body['patient'];
  const query = readTefcaPatient(typeof raw === 'object' && raw !== null ? tefcaPatientFromJson(raw as Record<string, unknown>) : null);
  const matches = SAMPLE_PATIENTS.map((p) => ({ p, quality: score(query, p) }))
    .filter((m) => m.quality >= 0.65)
    .sort((a, b) => b.quality - a.quality || a.p.id.localeCompare(b.p.id))
    .map(({ p, quality }) => ({ patient_id: p.id, home_community_id: SANDBOX_PEER_COMMUNITY_ID, match_quality: quality, match_grade: quality >= 0.95 ? 'certain' : 'probable' }));
  return { exchange_id: newExchangeId(), purpose_of_use: body['purpose_of_use'], home_community_id: SANDBOX_PEER_COMMUNITY_ID, matches };
}

export function query(body: Record<string, unknown>): Record<string, unknown> {
  common(body);
  const patientId = text(body, 'patient_id');
  const types = body['type_codes'];
  if (types !== undefined && (!Array.isArray(types) || types.some((t) => typeof t !== 'string'))) throw validationError([{ field: 'type_codes', message: 'must be a list of strings' }]);
  const documents = SAMPLE_DOCUMENTS.filter((d) => d.patientId === patientId && (!Array.isArray(types) || types.length === 0 || types.includes(d.typeCode)));
  return {
    exchange_id: newExchangeId(),
    purpose_of_use: body['purpose_of_use'],
    home_community_id: SANDBOX_PEER_COMMUNITY_ID,
    documents: documents.map(({ text: _text, ...d }) => ({
      home_community_id: d.homeCommunityId,
      repository_id: d.repositoryId,
      document_id: d.documentId,
      patient_id: d.patientId,
      title: d.title,
      type_code: d.typeCode,
      type_system: d.typeSystem,
      type_display: d.typeDisplay,
      content_type: d.contentType,
      created: d.created,
      size: d.size,
      hash: d.hash,
      status: 'current',
    })),
  };
}

export function retrieve(body: Record<string, unknown>): Record<string, unknown> {
  common(body);
  const home = text(body, 'home_community_id');
  const repositoryId = text(body, 'repository_id');
  const documentId = text(body, 'document_id');
  const doc = home === SANDBOX_PEER_COMMUNITY_ID ? SAMPLE_DOCUMENTS.find((d) => d.repositoryId === repositoryId && d.documentId === documentId) : undefined;
  if (!doc) throw new DomainError('NOT_FOUND', `No document ${documentId.slice(0, 64)} in repository ${repositoryId.slice(0, 80)}.`);
  const data = Buffer.from(doc.text, 'utf8');
  return {
    exchange_id: newExchangeId(),
    purpose_of_use: body['purpose_of_use'],
    home_community_id: SANDBOX_PEER_COMMUNITY_ID,
    repository_id: doc.repositoryId,
    document_id: doc.documentId,
    content_type: doc.contentType,
    data: data.toString('base64'),
    size: data.length,
  };
}

export const SANDBOX_ANSWERS: Readonly<Record<SandboxPath, (body: Record<string, unknown>) => Record<string, unknown>>> = {
  '/tefca/xcpd/discover': discover,
  '/tefca/xca/query': query,
  '/tefca/xca/retrieve': retrieve,
};

/** A bearer credential check in constant time (the peer issued `expected` to us at start). */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  if (!header?.startsWith('Bearer ')) return false;
  const a = createHash('sha256').update(header.slice(7)).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

import { DomainError, type FieldError } from '@svc/platform';
import type { LocalOperation, RouteInput, RouteSpec } from './route.js';
import { assertFhirJsonBody } from './fhir-media-types.js';

/**
 * `POST /fhir/R4/Patient/$match` (FHIR R4 Patient-match operation), answered by identity
 * resolution: the identity subgraph's `fhirPatientMatch` scores the Patient's demographics against
 * the GPID registry (query only), and each candidate's `patients` (the FHIR subgraph, through the
 * federation) are the caller's own Patients carrying that GPID. The answer is a `searchset` Bundle,
 * best first, each entry with `search.mode: match`, `search.score` and the `match-grade` extension.
 * `count` bounds the entries; `onlyCertainMatches` keeps the one certain match (none when several).
 */

export const MATCH_GRADE_URL = 'http://hl7.org/fhir/StructureDefinition/match-grade';
const MAX_COUNT = 100;

const MATCH_DOC = `query FhirPatientMatch($resource: JSONObject!, $onlyCertainMatches: Boolean, $count: Int) {
  fhirPatientMatch(resource: $resource, onlyCertainMatches: $onlyCertainMatches, count: $count) { gpid score grade patients { resource } } }`;

interface MatchInput {
  resource: Record<string, unknown>;
  onlyCertainMatches: boolean;
  count: number | null;
}

interface MatchCandidate {
  gpid: string;
  score: number;
  grade: string;
  patients: { resource: Record<string, unknown> }[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function bad(field: string, message: string): DomainError {
  const errors: FieldError[] = [{ field, message }];
  return new DomainError('BAD_REQUEST', `${field}: ${message}`, { fieldErrors: errors });
}

/** The operation's Parameters: `resource` (a Patient, required), `onlyCertainMatches` (boolean), `count` (1–100). */
export function readMatchParameters(body: unknown): MatchInput {
  if (!isObject(body) || body['resourceType'] !== 'Parameters') throw bad('Parameters', 'the body must be a Parameters resource');
  const parameters = body['parameter'] === undefined ? [] : body['parameter'];
  if (!Array.isArray(parameters)) throw bad('Parameters.parameter', 'must be an array');
  const seen = new Set<string>();
  const input: MatchInput = { resource: {}, onlyCertainMatches: false, count: null };
  let resource: Record<string, unknown> | null = null;
  for (const [i, p] of parameters.entries()) {
    const name = isObject(p) ? p['name'] : undefined;
    if (typeof name !== 'string') throw bad(`Parameters.parameter[${i}].name`, 'is required');
    if (seen.has(name)) throw bad(name, 'is given more than once');
    seen.add(name);
    if (name === 'resource') {
      const r = (p as Record<string, unknown>)['resource'];
      if (!isObject(r) || r['resourceType'] !== 'Patient') throw bad('resource', 'must be a Patient resource');
      resource = r;
    } else if (name === 'onlyCertainMatches') {
      const v = (p as Record<string, unknown>)['valueBoolean'];
      if (typeof v !== 'boolean') throw bad('onlyCertainMatches', 'must be a valueBoolean');
      input.onlyCertainMatches = v;
    } else if (name === 'count') {
      const v = (p as Record<string, unknown>)['valueInteger'];
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > MAX_COUNT) throw bad('count', `must be a valueInteger from 1 to ${MAX_COUNT}`);
      input.count = v;
    } else {
      throw bad(name, 'is not a parameter of Patient/$match (resource, onlyCertainMatches, count)');
    }
  }
  if (!resource) throw bad('resource', 'is required: the Patient to match');
  return { ...input, resource };
}

const PATIENT_MATCH: LocalOperation = {
  documents: [MATCH_DOC],
  async local(input: RouteInput, { execute, publicUrl }) {
    assertFhirJsonBody(input);
    const params = readMatchParameters(input.body);
    const data = await execute(MATCH_DOC, { resource: params.resource, onlyCertainMatches: params.onlyCertainMatches, count: null });
    const candidates = data['fhirPatientMatch'] as MatchCandidate[];
    const base = `${publicUrl}/fhir/R4`;
    const entry = candidates
      .flatMap((c) =>
        c.patients.map(({ resource }) => ({
          fullUrl: `${base}/Patient/${String(resource['id'])}`,
          resource,
          search: { extension: [{ url: MATCH_GRADE_URL, valueCode: c.grade.toLowerCase() }], mode: 'match', score: c.score },
        })),
      )
      .slice(0, params.count ?? MAX_COUNT);
    return { body: { resourceType: 'Bundle', type: 'searchset', total: entry.length, entry } };
  },
};

export const fhirPatientMatchRoutes: RouteSpec[] = [
  {
    id: 'fhir.patient-match',
    method: 'POST',
    path: '/fhir/R4/Patient/$match',
    product: 'fhir',
    format: 'fhir',
    summary: 'Patient $match by identity resolution: the caller’s Patients whose GPID matches, with search.score and match-grade (needs Patient search: cms.fhir.r4.read or a SMART Patient .read/.s scope)',
    auth: 'bearer',
    scopes: [],
    successStatus: 200,
    operation: PATIENT_MATCH,
  },
];

import { DomainError, hasAnyScope, hasMatchableDemographics, patientDemographics, type SubgraphBuilder } from '@svc/platform';
import { fhirMatchCandidates, matchGrade, type MatchCandidate, type MatchGrade } from '../domain/index.js';
import type { IdentityService } from '../identity-service.js';
import type { IdentityEnums } from './identity.js';

/** The FHIR Patient search scopes: `Patient/$match` is a search (spec's FHIR scope table, SMART v1/v2). */
const PATIENT_SEARCH_SCOPES = ['cms.fhir.r4.read', 'patient/Patient.s'];
const MAX_COUNT = 100;

/** Where the registry's field errors sit in the Patient. */
/** Where a registry field came from in the Patient, by the field's first segment (`addresses.0.state` → address). */
const PATIENT_PATHS: Record<string, string> = {
  name: 'resource.name',
  previous_names: 'resource.name',
  dob: 'resource.birthDate',
  email: 'resource.telecom',
  phone: 'resource.telecom',
  emails: 'resource.telecom',
  phones: 'resource.telecom',
  sex: 'resource.gender',
  addresses: 'resource.address',
  identifiers: 'resource.identifier',
};

interface FhirMatch {
  gpid: string;
  score: number;
  grade: MatchGrade;
  candidate: MatchCandidate;
}

/**
 * `fhirPatientMatch`, what `POST /fhir/R4/Patient/$match` runs: the registry's Match (query only)
 * on a FHIR Patient's demographics. Unlike `identityMatch` it needs no Service credential but a FHIR
 * Patient search scope, so partners reach it with their FHIR credentials; like it, a partner sees
 * only the GPIDs it links to. Each candidate is a `PatientMatchCandidate` entity (key gpid) whose
 * `patients` the FHIR subgraph contributes, in the caller's FHIR view.
 */
export function defineFhirPatientMatch(builder: SubgraphBuilder, service: IdentityService, enums: IdentityEnums) {
  const Grade = builder.enumType('PatientMatchGrade', {
    description: 'The FHIR match-grade code, upper-cased: certain (DETERMINISTIC or confidence ≥ 0.9), probable (≥ 0.5), possible (the rest).',
    values: { CERTAIN: { value: 'certain' }, PROBABLE: { value: 'probable' }, POSSIBLE: { value: 'possible' } } as const,
  });
  const Candidate = builder.objectRef<FhirMatch>('PatientMatchCandidate').implement({
    description: 'A GPID whose identity matches the Patient given to $match, with its score and grade.',
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      score: t.exposeFloat('score', { description: 'Confidence in [0, 1] (Bundle.entry.search.score).' }),
      grade: t.field({ type: Grade, resolve: (m) => m.grade }),
      matchType: t.field({ type: enums.Match, resolve: (m) => m.candidate.matchType }),
    }),
  });
  // Not resolvable by key here: a candidate exists only in a match's answer (the FHIR subgraph adds `patients` to it).
  builder.asEntity(Candidate, { key: builder.keyDirective(builder.selection<{ gpid: string }>('gpid'), false), resolveReference: () => null });

  builder.queryFields((t) => ({
    fhirPatientMatch: t.field({
      type: [Candidate],
      description:
        'FHIR Patient/$match by identity resolution: the GPIDs whose identities match the Patient, best first, without creating or changing anything. Needs a FHIR Patient search scope (cms.fhir.r4.read, patient/Patient.read or .s); a partner sees only GPIDs it links to.',
      args: {
        resource: t.arg({ type: 'JSONObject', required: true, description: 'The Patient to match (name, birthDate, telecom email and phone are compared).' }),
        onlyCertainMatches: t.arg.boolean({ defaultValue: false, description: 'Only the one certain match (none when several are certain).' }),
        count: t.arg.int({ description: `At most this many candidates (1–${MAX_COUNT}).` }),
      },
      authScopes: { authenticated: true },
      resolve: async (_root, args, ctx) => {
        if (!hasAnyScope(ctx.principal.scopes, PATIENT_SEARCH_SCOPES)) {
          throw new DomainError('INSUFFICIENT_SCOPE', `The credential may not search Patient resources (needs one of: ${PATIENT_SEARCH_SCOPES.join(', ')}, or a wider SMART scope).`, {
            details: { required_scopes: PATIENT_SEARCH_SCOPES },
          });
        }
        const resource = args.resource as Record<string, unknown>;
        if (resource['resourceType'] !== 'Patient') {
          throw new DomainError('BAD_REQUEST', 'The resource parameter must be a Patient.', { fieldErrors: [{ field: 'resource', message: 'must be a Patient resource' }] });
        }
        const count = args.count ?? MAX_COUNT;
        if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) {
          throw new DomainError('BAD_REQUEST', `count must be from 1 to ${MAX_COUNT}.`, { fieldErrors: [{ field: 'count', message: `must be from 1 to ${MAX_COUNT}` }] });
        }
        const demographics = patientDemographics(resource);
        if (!hasMatchableDemographics(demographics)) {
          throw new DomainError('BAD_REQUEST', 'The Patient has nothing to match on: give a name, birthDate, an email or phone telecom, an address or an identifier.', {
            fieldErrors: [{ field: 'resource', message: 'needs name, birthDate, telecom, address or identifier' }],
          });
        }
        let result;
        try {
          result = await service.match(ctx.principal, demographics, { entityType: 'patient' });
        } catch (err) {
          if (err instanceof DomainError && err.code === 'VALIDATION_ERROR') {
            throw new DomainError('BAD_REQUEST', err.message, { fieldErrors: err.fieldErrors.map((f) => ({ field: PATIENT_PATHS[f.field.split('.')[0]!] ?? 'resource', message: f.message })) });
          }
          throw err;
        }
        return fhirMatchCandidates(result.candidates, { onlyCertainMatches: args.onlyCertainMatches ?? false, count }).map((c) => ({ gpid: c.gpid, score: c.confidence, grade: matchGrade(c), candidate: c }));
      },
    }),
  }));
}

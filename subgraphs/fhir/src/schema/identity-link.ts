import { loaderFor, type SubgraphBuilder, type SubgraphContext, type SubgraphServices } from '@svc/platform';
import { GPID_SYSTEM, gpidOf } from '../domain/identity-link.js';
import { requestCall, search, type FhirCall } from '../domain/interactions.js';
import type { FhirResource } from '../domain/validation.js';
import type { TypedResourceRef } from './fhir-typed.js';
import { readEventLogOf } from './read-event-log.js';

type Json = Record<string, unknown>;
/** Patients per GPID read at once (one search, comma-separated GPIDs). */
const MAX_PATIENTS = 1000;

/**
 * The identity link in GraphQL, both ways: `FhirPatient.identity` (the identity subgraph's
 * `Identity`, by the GPID identifier, resolved there with its own tenancy rules), and the
 * `patients` this subgraph adds to `Identity` and to `$match`'s `PatientMatchCandidate`: the
 * current Patients carrying that GPID that the caller may see, found through the token search
 * index (one Patient search per request, so the FHIR search scopes and tenancy apply).
 */
export function defineIdentityLink(builder: SubgraphBuilder, services: SubgraphServices, FhirPatient: TypedResourceRef) {
  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const reads = readEventLogOf(services);
  const call = (ctx: SubgraphContext): FhirCall => requestCall(ctx, { principal: ctx.principal, requestId: ctx.requestId, source: null, fhirBase, reads });

  const patientsByGpid = (ctx: SubgraphContext) =>
    loaderFor<string, Json[]>(ctx, 'fhir.patientsByGpid', async (gpids) => {
      const query = { identifier: [gpids.map((g) => `${GPID_SYSTEM}|${g}`).join(',')], _count: [String(MAX_PATIENTS)], _sort: ['_lastUpdated'] };
      const bundle = (await search(call(ctx), 'Patient', query, false)).resource as { entry?: { resource: FhirResource }[] };
      const byGpid = new Map<string, Json[]>();
      for (const { resource } of bundle.entry ?? []) {
        const gpid = gpidOf(resource);
        if (gpid) byGpid.set(gpid, [...(byGpid.get(gpid) ?? []), resource as Json]);
      }
      return gpids.map((g) => byGpid.get(g) ?? []);
    });

  const IdentityRef = builder.externalRef('Identity', builder.selection<{ gpid: string }>('gpid'));
  IdentityRef.implement({
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      patients: t.field({
        type: [FhirPatient],
        description: "The FHIR Patients carrying this GPID (identifier system urn:svc:gpid) that the caller may see: its own, or everyone's for an operator. Needs a FHIR Patient search scope.",
        resolve: (identity, _args, ctx) => patientsByGpid(ctx).load(identity.gpid),
      }),
    }),
  });
  builder.externalRef('PatientMatchCandidate', builder.selection<{ gpid: string }>('gpid')).implement({
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      patients: t.field({
        type: [FhirPatient],
        description: 'The FHIR Patients carrying this GPID that the caller may see.',
        resolve: (candidate, _args, ctx) => patientsByGpid(ctx).load(candidate.gpid),
      }),
    }),
  });

  builder.objectField(FhirPatient, 'identity', (t) =>
    t.field({
      type: IdentityRef,
      nullable: true,
      description: 'The GPID identity of this Patient (from its urn:svc:gpid identifier), read from the identity registry under its rules (identity.read; null when not linked or not visible).',
      resolve: (patient) => {
        const gpid = gpidOf(patient as FhirResource);
        return gpid ? { gpid } : null;
      },
    }),
  );
}

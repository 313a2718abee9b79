import { type EventEnvelope, type SubgraphServices } from '@svc/platform';
import { FHIR_PATIENT_LINKED, linkPatientGpid, relinkMergedGpids, requestIdentityAgain } from './domain/identity-link.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The event types {@link identityLinkConsumer} handles. */
export const IDENTITY_LINK_EVENT_TYPES: ReadonlySet<string> = new Set([FHIR_PATIENT_LINKED, 'identity.merge', 'identity.split.v1']);

/**
 * The FHIR side of the identity link (see domain/identity-link.ts), as one event handler:
 *
 * - `identity.internal.fhir_patient_linked`: the Patient gets its GPID identifier (a new version);
 * - `identity.merge`: Patients carrying a merged GPID carry the survivor's;
 * - `identity.split.v1`: Patients carrying the former survivor's GPID are resolved again.
 *
 * Idempotent by outcome, so by event id: a Patient that already carries the GPID is not written
 * again, and a repeated split only asks again. Throws when the work did not commit (redelivery).
 */
export function identityLinkConsumer(services: SubgraphServices) {
  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  return async (event: EventEnvelope): Promise<void> => {
    const data = event.data;
    if (event.type === FHIR_PATIENT_LINKED) {
      const id = str(data['resource_id']);
      const gpid = str(data['gpid']);
      if (!id || !gpid) return;
      if (await linkPatientGpid(services.orm.em.fork(), fhirBase, id, gpid, event.id, event.partner_gpid)) services.publishCommitted();
    } else if (event.type === 'identity.merge') {
      const survivor = str(data['survivor_gpid']);
      const merged = Array.isArray(data['merged_gpids']) ? data['merged_gpids'].filter((g): g is string => typeof g === 'string') : [];
      if (!survivor || merged.length === 0) return;
      if ((await relinkMergedGpids(services.orm.em.fork(), fhirBase, merged, survivor, event.id)) > 0) services.publishCommitted();
    } else if (event.type === 'identity.split.v1') {
      const formerSurvivor = str(data['split_from_gpid']);
      if (!formerSurvivor) return;
      if ((await requestIdentityAgain(services.orm.em.fork(), formerSurvivor)) > 0) services.publishCommitted();
    }
  };
}

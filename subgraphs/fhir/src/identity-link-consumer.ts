import { type EventEnvelope, type SubgraphServices } from '@svc/platform';
import { FHIR_PATIENT_LINKED, linkPatientGpid, relinkMergedGpids, requestIdentityAgain } from './domain/identity-link.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** The event types {@link identityLinkConsumer} handles. */
export const IDENTITY_LINK_EVENT_TYPES: ReadonlySet<string> = new Set([FHIR_PATIENT_LINKED, 'identity.merge', 'identity.split.v1']);

/**
 * The FHIR side of the identity link (see domain/identity-link.ts), as one event handler:
 *
 * - `identity.internal.fhir_patient_linked`: the Patient is linked to its GPID (no new version: the
 *   link is projected on reads);
 * - `identity.merge`: Patients linked to a merged GPID are linked to the survivor's;
 * - `identity.split.v1`: Patients linked to the former survivor's GPID are resolved again.
 *
 * Idempotent by outcome, so by event id: a Patient already linked to the GPID is left alone, and
 * a repeated split only asks again. Throws when the work did not commit (redelivery).
 */
export function identityLinkConsumer(services: SubgraphServices): (event: EventEnvelope) => Promise<void> {
  return async (event: EventEnvelope): Promise<void> => {
    const data = event.data;
    if (event.type === FHIR_PATIENT_LINKED) {
      const id = str(data['resource_id']);
      const gpid = str(data['gpid']);
      if (!id || !gpid) return;
      await linkPatientGpid(services.orm.em.fork(), id, gpid, event.id, event.partner_gpid);
    } else if (event.type === 'identity.merge') {
      const survivor = str(data['survivor_gpid']);
      const merged = Array.isArray(data['merged_gpids']) ? data['merged_gpids'].filter((g): g is string => typeof g === 'string') : [];
      if (!survivor || merged.length === 0) return;
      await relinkMergedGpids(services.orm.em.fork(), merged, survivor, event.id);
    } else if (event.type === 'identity.split.v1') {
      const formerSurvivor = str(data['split_from_gpid']);
      if (!formerSurvivor) return;
      if ((await requestIdentityAgain(services.orm.em.fork(), formerSurvivor)) > 0) services.publishCommitted();
    }
  };
}

/**
 * {@link identityLinkConsumer} over the events of one read (`consume(name, { batch })`): consecutive
 * links are written in one transaction (the identity subgraph answers a batch of Patients at once),
 * merges and splits as before, all in stream order. When a batch's transaction fails, its events are
 * handled one at a time, so the links before a failing one commit and it is retried on its own.
 */
export function identityLinkBatchConsumer(services: SubgraphServices): { batch: (events: EventEnvelope[]) => Promise<void> } {
  const one = identityLinkConsumer(services);
  const linkAll = async (links: readonly EventEnvelope[]) => {
    try {
      await services.orm.em.fork().transactional(async (tx) => {
        for (const event of links) {
          const id = str(event.data['resource_id']);
          const gpid = str(event.data['gpid']);
          if (id && gpid) await linkPatientGpid(tx, id, gpid, event.id, event.partner_gpid);
        }
      });
    } catch {
      for (const event of links) await one(event);
    }
  };
  return {
    batch: async (events) => {
      let links: EventEnvelope[] = [];
      for (const event of events) {
        if (event.type === FHIR_PATIENT_LINKED) {
          links.push(event);
          continue;
        }
        if (links.length > 0) await linkAll(links);
        links = [];
        await one(event);
      }
      if (links.length > 0) await linkAll(links);
    },
  };
}

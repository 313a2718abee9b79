/**
 * The identity link of FHIR Patients: each stored Patient shows its GPID (from the identity
 * subgraph's registry) as an identifier. The FHIR subgraph never calls the identity subgraph:
 *
 * 1. a Patient write whose identity-relevant demographics changed, declared with `X-Svc-Source`,
 *    records the internal event `fhir.internal.patient_identity_requested` in the same transaction;
 * 2. the identity subgraph resolves the demographics and answers with the internal event
 *    `identity.internal.fhir_patient_linked` (resource id, GPID);
 * 3. `linkPatientGpid` records the link in its own table (`fhir_patient_gpid_links`) with its
 *    search-index row: no new version, the client's ETag stays current. Every read projects the
 *    link onto the Patient (gpid-identifier.ts); merges and splits in the registry move it
 *    (`relinkMergedGpids`, `requestIdentityAgain`).
 *
 * The write never waits for the registry: when the identity subgraph is down or slow, the request
 * waits in the outbox and the link appears when it answers. The GPID identifier is the server's: a
 * client cannot set, change or remove it (a GPID identifier in a body is dropped before storing).
 */
import type { EntityManager } from '@mikro-orm/core';
import { hasMatchableDemographics, demographicsDiffer, makeEvent, patientDemographics, recordEvent, type EventEnvelope } from '@svc/platform';
import { resourceStore } from '../entities/resource-store.js';
import { gpidLinkStore } from '../entities/gpid-link-store.js';
import { gpidOf } from './gpid-identifier.js';
import { parseStoredResource } from './stored-content.js';
import { inTransaction, type FhirCall } from './interactions.js';
import type { FhirResource } from './validation.js';
import type { StoredResource } from '../entities/resource-store.js';

export { GPID_SYSTEM, gpidOf } from './gpid-identifier.js';
/** Internal events (never logged, never sent to webhooks or subscriptions; see platform envelope.ts). */
export const PATIENT_IDENTITY_REQUESTED = 'fhir.internal.patient_identity_requested';
export const FHIR_PATIENT_LINKED = 'identity.internal.fhir_patient_linked';

/**
 * The request for this Patient's GPID when its demographics changed (or it is new) and the write
 * declared its source origin; null when there is nothing to ask. Without `X-Svc-Source` there is no
 * identity claim: the registry counts source origins as confirmations (two independent origins
 * make an identity ACTIVE), so one is never invented.
 */
export function identityRequestIfChanged(call: FhirCall, stored: StoredResource, resource: FhirResource, previous: FhirResource | null): EventEnvelope | null {
  if (stored.resourceType !== 'Patient' || call.source === null) return null;
  const demographics = patientDemographics(resource);
  if (!hasMatchableDemographics(demographics)) return null; // the registry resolves nothing from nothing
  if (previous && !demographicsDiffer(demographics, patientDemographics(previous)) && gpidOf(previous) !== null) return null;
  return makeEvent(PATIENT_IDENTITY_REQUESTED, stored.partnerGpid, {
    event: PATIENT_IDENTITY_REQUESTED,
    resource_type: 'Patient',
    resource_id: stored.id,
    version_id: String(stored.versionId),
    partner_gpid: stored.partnerGpid,
    source: call.source,
    demographics: { ...demographics },
  });
}

/** In the write's transaction: record {@link identityRequestIfChanged}'s request, if any. */
export function requestIdentityIfChanged(call: FhirCall, em: EntityManager, stored: StoredResource, resource: FhirResource, previous: FhirResource | null): void {
  const event = identityRequestIfChanged(call, stored, resource, previous);
  if (event) recordEvent(em, event);
}

/**
 * Link Patient `id` to `gpid`: the link row and its search-index row, in one transaction, without
 * a new version of the Patient. Idempotent: a Patient already linked to `gpid`, a deleted or
 * missing one, or one of another partner than `partnerGpid` (when given) is left alone. Answers
 * whether the link changed.
 */
export async function linkPatientGpid(em: EntityManager, id: string, gpid: string, eventId: string, partnerGpid?: string | null): Promise<boolean> {
  return inTransaction(em, async (tx) => {
    const current = await resourceStore.current(tx, 'Patient', id);
    if (!current || current.deleted) return false;
    if (partnerGpid !== undefined && current.partnerGpid !== partnerGpid) return false;
    if (current.linkedGpid === gpid) return false;
    await gpidLinkStore.set(tx, { resourceId: id, partnerGpid: current.partnerGpid, gpid, eventId }, new Date().toISOString());
    return true;
  });
}

/** A merge in the registry: every Patient linked to a merged GPID is linked to the survivor's. */
export async function relinkMergedGpids(em: EntityManager, mergedGpids: readonly string[], survivorGpid: string, eventId: string): Promise<number> {
  let changed = 0;
  for (const id of await gpidLinkStore.idsWithGpid(em, mergedGpids)) {
    if (await linkPatientGpid(em.fork(), id, survivorGpid, eventId)) changed++;
  }
  return changed;
}

/**
 * A split in the registry: the Patients carrying the former survivor's GPID may belong to the
 * restored record, which only the registry can tell; each is asked about again (a new
 * `fhir.internal.patient_identity_requested` for its current version, without a source: the
 * registry resolves it under the origin it last used for it) and relinked by the answer.
 */
export async function requestIdentityAgain(em: EntityManager, survivorGpid: string): Promise<number> {
  const ids = await gpidLinkStore.idsWithGpid(em, [survivorGpid]);
  for (const id of ids) {
    const current = await resourceStore.current(em, 'Patient', id);
    if (!current || current.deleted || !current.content) continue;
    const resource = parseStoredResource(current.content);
    const demographics = patientDemographics(resource);
    if (!hasMatchableDemographics(demographics)) continue;
    recordEvent(
      em,
      makeEvent(PATIENT_IDENTITY_REQUESTED, current.partnerGpid, {
        event: PATIENT_IDENTITY_REQUESTED,
        resource_type: 'Patient',
        resource_id: id,
        version_id: String(current.versionId),
        partner_gpid: current.partnerGpid,
        source: null, // the registry uses the origin it last resolved this Patient under
        reason: 'split',
        demographics: { ...demographics },
      }),
    );
  }
  await em.flush();
  return ids.length;
}

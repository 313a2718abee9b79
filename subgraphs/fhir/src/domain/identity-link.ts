/**
 * The identity link of FHIR Patients: each stored Patient carries its GPID (from the identity
 * subgraph's registry) as an identifier. The FHIR subgraph never calls the identity subgraph:
 *
 * 1. a Patient write whose identity-relevant demographics changed, declared with `X-Svc-Source`,
 *    records the internal event `fhir.internal.patient_identity_requested` in the same transaction;
 * 2. the identity subgraph resolves the demographics and answers with the internal event
 *    `identity.internal.fhir_patient_linked` (resource id, GPID);
 * 3. `linkPatientGpid` writes the GPID identifier as a new version, written by the system;
 *    merges and splits in the registry move it (`relinkMergedGpids`, `patientsWithGpid`).
 *
 * The GPID identifier is the server's: a client cannot set, change or remove it (see
 * `keepServerGpid`).
 */
import type { EntityManager } from '@mikro-orm/core';
import { demographicsDiffer, hasMatchableDemographics, makeEvent, patientDemographics, recordEvent, type EventEnvelope, type Principal, knexOf } from '@svc/platform';
import { resourceStore } from '../entities/resource-store.js';
import { extractSearchIndex } from './search-index.js';
import { validateFhirResource, type FhirResource } from './validation.js';
import type { StoredResource } from '../entities/resource-store.js';
import { inTransaction, stamp, writeEvent, type FhirCall } from './interactions.js';

/** The identifier system of GPIDs on Patients (search: `identifier=urn:svc:gpid|SVC-…`). */
export const GPID_SYSTEM = 'urn:svc:gpid';
/** Internal events (never logged, never sent to webhooks or subscriptions; see platform envelope.ts). */
export const PATIENT_IDENTITY_REQUESTED = 'fhir.internal.patient_identity_requested';
export const FHIR_PATIENT_LINKED = 'identity.internal.fhir_patient_linked';

type Identifier = { system?: unknown; value?: unknown } & Record<string, unknown>;

const isGpidIdentifier = (i: unknown): boolean => typeof i === 'object' && i !== null && (i as Identifier).system === GPID_SYSTEM;

/** The GPID a Patient carries, if any. */
export function gpidOf(resource: FhirResource | null): string | null {
  const ids = Array.isArray(resource?.['identifier']) ? (resource['identifier'] as Identifier[]) : [];
  const found = ids.find(isGpidIdentifier);
  return typeof found?.value === 'string' ? found.value : null;
}

/** The identifier a Patient with GPID `gpid` carries. */
export function gpidIdentifier(gpid: string): Record<string, unknown> {
  return { use: 'secondary', system: GPID_SYSTEM, value: gpid, assigner: { display: 'GPID registry' } };
}

const identifiersOf = (resource: FhirResource): unknown[] => (Array.isArray(resource['identifier']) ? (resource['identifier'] as unknown[]) : []);

/** `resource` with its GPID identifier set to `gpid` (or removed when null), every other identifier kept in order. */
export function withGpid(resource: FhirResource, gpid: string | null): FhirResource {
  const others = identifiersOf(resource).filter((i) => !isGpidIdentifier(i));
  const identifier = gpid ? [...others, gpidIdentifier(gpid)] : others;
  const { identifier: _old, ...rest } = resource;
  return (identifier.length > 0 ? { ...rest, identifier } : rest) as FhirResource;
}

/**
 * A client's Patient body with the server's GPID identifier: a GPID identifier the client sent is
 * replaced by the stored one (or dropped when there is none); one echoed back unchanged is kept as is.
 */
export function keepServerGpid(resourceType: string, input: FhirResource, previous: FhirResource | null): FhirResource {
  if (resourceType !== 'Patient') return input;
  const gpid = gpidOf(previous);
  const sent = identifiersOf(input).filter(isGpidIdentifier);
  if (gpid === null && sent.length === 0) return input;
  if (gpid !== null && sent.length === 1 && JSON.stringify(sent[0]) === JSON.stringify(gpidIdentifier(gpid))) return input;
  return withGpid(input, gpid);
}

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

/** The principal of the system's own writes (the GPID link): it acts for the resource's partner. */
function systemCall(em: EntityManager, fhirBase: string, partnerGpid: string | null, requestId: string): FhirCall {
  const principal: Principal = { kind: 'service', partnerGpid, scopes: [] };
  return { em, principal, requestId, source: null, fhirBase };
}

const MAX_ATTEMPTS = 5;

/**
 * Set Patient `id`'s GPID identifier to `gpid` as a new version written by the system, with its
 * `fhir.resource.updated` event. Idempotent: a Patient that already carries `gpid`, a deleted or
 * missing one, or one of another partner than `partnerGpid` (when given) is left alone. A
 * concurrent client write is retried on the new version. Answers whether a version was written.
 */
export async function linkPatientGpid(em: EntityManager, fhirBase: string, id: string, gpid: string | null, requestId: string, partnerGpid?: string | null): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    const current = await resourceStore.current(em, 'Patient', id);
    if (!current || current.deleted || !current.content) return false;
    if (partnerGpid !== undefined && current.partnerGpid !== partnerGpid) return false;
    const previous = JSON.parse(current.content) as FhirResource;
    if (gpidOf(previous) === gpid) return false;
    const versionId = current.versionId + 1;
    const now = new Date().toISOString();
    const resource = stamp(withGpid(previous, gpid), id, versionId, now);
    validateFhirResource(resource);
    const stored: StoredResource = { ...current, versionId, lastUpdated: now, content: JSON.stringify(resource) };
    const written = await inTransaction(em, async (tx) => {
      if (!(await resourceStore.replace(tx, stored, current.versionId))) return false;
      await resourceStore.reindex(tx, 'Patient', id, extractSearchIndex(resource));
      writeEvent(systemCall(tx, fhirBase, current.partnerGpid, requestId), tx, 'updated', stored);
      return true;
    });
    if (written) return true;
    if (attempt >= MAX_ATTEMPTS) throw new Error(`Patient/${id} kept changing while its GPID was linked.`);
  }
}

/** Ids of the current Patients (every partner's) that carry one of `gpids`. */
export async function patientsWithGpid(em: EntityManager, gpids: readonly string[]): Promise<string[]> {
  if (gpids.length === 0) return [];
  const rows = (await knexOf(em)('fhir_sp_token')
    .distinct('resource_id')
    .where({ resource_type: 'Patient', param: 'identifier', system: GPID_SYSTEM })
    .whereIn('code', [...gpids])) as { resource_id: string }[];
  return rows.map((r) => r.resource_id);
}

/** A merge in the registry: every Patient carrying a merged GPID now carries the survivor's. */
export async function relinkMergedGpids(em: EntityManager, fhirBase: string, mergedGpids: readonly string[], survivorGpid: string, requestId: string): Promise<number> {
  let changed = 0;
  for (const id of await patientsWithGpid(em, mergedGpids)) {
    if (await linkPatientGpid(em.fork(), fhirBase, id, survivorGpid, requestId)) changed++;
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
  const ids = await patientsWithGpid(em, [survivorGpid]);
  for (const id of ids) {
    const current = await resourceStore.current(em, 'Patient', id);
    if (!current || current.deleted || !current.content) continue;
    const resource = JSON.parse(current.content) as FhirResource;
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

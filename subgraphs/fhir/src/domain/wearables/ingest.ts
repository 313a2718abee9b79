import { chunks, DomainError, hasScope, isWearableProduct, WEARABLE_PRODUCTS, wearableIngestScope, type WearableProduct } from '@svc/platform';
import type { StoredPrincipal } from '../../entities/sync-job-store.js';
import { runSearch } from '../../entities/search-query.js';
import type { FhirCall } from '../interactions.js';
import { parseSearchRequest } from '../search-request.js';
import { readViewOf } from '../sharing-rules.js';
import { parseStoredResource } from '../stored-content.js';
import { queueSyncJob, syncStatusUrl, type SyncQueueLimits } from '../sync-submission.js';
import { eventIdentifierSystem, observationFor, parseWearableBatch } from './batch.js';

/**
 * Wearable ingest as a sync job: a checked batch becomes a FHIR `batch` Bundle of conditional
 * creates of Observations (`If-None-Exist: identifier=<product event system>|<event id>`), queued
 * as a `job_…` the FHIR sync worker runs like any asynchronous submission (states, retries,
 * pipeline.sync.completed / pipeline.sync.failed, the status URL). A reading sent again (the same
 * batch twice, or an overlapping one) finds its Observation and is answered 200 instead of 201:
 * one Observation per event id per partner and product.
 */

/** GPIDs looked up in one query. */
const GPIDS_PER_QUERY = 100;

/** What a job created from a wearable batch may do: create Observations and search them (If-None-Exist). */
export const WEARABLE_JOB_SCOPES: readonly string[] = ['system/Observation.cs'];

export interface PatientLink {
  gpid: string;
  /** `Patient/{id}` when exactly one Patient in the partner's view carries the GPID, else null. */
  patientReference: string | null;
}

export interface WearableIngestAccepted {
  jobId: string;
  statusUrl: string;
  product: WearableProduct;
  eventsAccepted: number;
  patients: PatientLink[];
}

/** The product named in the path, or 404 naming the products there are. */
export function wearableProductOf(value: string): WearableProduct {
  if (!isWearableProduct(value)) {
    throw new DomainError('NOT_FOUND', `There is no wearable product "${value.slice(0, 40)}": wearable readings are ingested under ${WEARABLE_PRODUCTS.map((p) => `/${p}/v1/wearables/events`).join(' or ')}.`, {
      fieldErrors: [{ field: 'wearableProduct', message: `must be one of ${WEARABLE_PRODUCTS.join(', ')}` }],
      details: { allowed: [...WEARABLE_PRODUCTS] },
    });
  }
  return value;
}

function assertMayIngest(call: FhirCall, product: WearableProduct): StoredPrincipal {
  const p = call.principal;
  const scope = wearableIngestScope(product);
  if (!hasScope(p.scopes, scope)) {
    throw new DomainError('INSUFFICIENT_SCOPE', `Ingesting ${product} wearable readings needs the scope ${scope} (or ${product}.wearables.*).`, { details: { required_scopes: [scope] } });
  }
  if (p.partnerGpid === null || p.kind === 'anonymous') throw new DomainError('FORBIDDEN', 'Wearable ingest needs a credential of a partner (the readings and their job belong to it).');
  return { kind: p.kind, partnerGpid: p.partnerGpid, scopes: [...WEARABLE_JOB_SCOPES], ...(p.tokenId ? { tokenId: p.tokenId } : {}), ...(p.clientId ? { clientId: p.clientId } : {}) };
}

/**
 * The Patient each GPID names in the caller's read view (its own Patients and what sharing rules
 * give it): found through the `urn:svc:gpid` identifier the identity link writes. None, or more
 * than one (two Patients of the partner linked to one person), leaves the reference out: the
 * Observation is still linked to the person by the GPID identifier of its subject.
 */
async function patientLinks(call: FhirCall, gpids: readonly string[]): Promise<PatientLink[]> {
  const view = await readViewOf(call.em, call.principal);
  const found = new Map<string, string[]>();
  for (const chunk of chunks(gpids, GPIDS_PER_QUERY)) {
    const request = parseSearchRequest('Patient', { identifier: [chunk.map((g) => `urn:svc:gpid|${g}`).join(',')] }, true);
    const page = await runSearch(call.em, { ...request, count: 1000, offset: 0, cursor: undefined, total: 'none', sort: [] }, view);
    for (const row of page.rows) {
      const patient = parseStoredResource(row.content!);
      const identifiers = (patient['identifier'] ?? []) as { system?: string; value?: string }[];
      for (const id of identifiers) if (id.system === 'urn:svc:gpid' && id.value !== undefined) found.set(id.value, [...(found.get(id.value) ?? []), row.id]);
    }
  }
  return gpids.map((gpid) => {
    const ids = found.get(gpid) ?? [];
    return { gpid, patientReference: ids.length === 1 ? `Patient/${ids[0]}` : null };
  });
}

/**
 * Accept a batch: check the product, the scope and every reading, then store the Bundle of
 * Observations with a queued sync job (and its pipeline.sync.queued event) in one transaction.
 * The readings are written with the product as their source origin.
 */
export async function ingestWearableBatch(call: FhirCall, productName: string, body: unknown, limits: SyncQueueLimits): Promise<WearableIngestAccepted> {
  const product = wearableProductOf(productName);
  const principal = assertMayIngest(call, product);
  const readings = parseWearableBatch(body, new Date());
  const gpids = [...new Set(readings.map((r) => r.patientGpid))];
  const patients = await patientLinks(call, gpids);
  const patientIds = new Map(patients.map((p) => [p.gpid, p.patientReference?.slice('Patient/'.length) ?? null]));
  const system = eventIdentifierSystem(product);
  const bundle = {
    resourceType: 'Bundle',
    type: 'batch',
    entry: readings.map((r) => ({
      resource: observationFor(product, r, patientIds.get(r.patientGpid) ?? null),
      request: { method: 'POST', url: 'Observation', ifNoneExist: `identifier=${system}|${r.eventId}` },
    })),
  };
  // The status answer lists each reading's status and location; the Observations are read by search.
  const job = await queueSyncJob(call, principal, { kind: 'batch', resourceTypes: ['Observation'], entriesTotal: readings.length, returnResources: false, source: product }, JSON.stringify(bundle), limits);
  return { jobId: job.id, statusUrl: syncStatusUrl(call.fhirBase, job.id), product, eventsAccepted: readings.length, patients };
}

/**
 * The registry side of the identity link of FHIR Patients. The FHIR subgraph announces a Patient's
 * changed demographics with the internal event `fhir.internal.patient_identity_requested`; this
 * resolves them like `resolveIdentity` (stages 1–6, resolve-or-create, under the write's source
 * origin, on behalf of the writing partner, so the partner gains the link to the GPID and the usual
 * `identity.match` event goes to it), records the source record's link
 * (`identity_source_record_links`, key `fhir:Patient/<id>`) and answers with the internal event
 * `identity.internal.fhir_patient_linked` in the same transaction as that link.
 *
 * A request without `source` (sent again after a split) is resolved under the record's last one.
 *
 * Idempotent by event id: a request whose id is the record's last answered one is skipped. In a
 * batch the resolves, the links and the answers are one transaction, so a redelivered batch finds
 * them all answered; on the one-at-a-time path (a failed batch's) the resolve and the link are two
 * transactions, and a crash between them resolves the same demographics again on redelivery, which
 * returns the same GPID (the record learned them the first time).
 */
import { DomainError, isSourceOrigin, makeEvent, type EventEnvelope, type Logger, type SourceOrigin, type SubgraphServices } from '@svc/platform';
import type { DemographicsInput } from './domain/index.js';
import { stageEvent } from './entities/outbox.js';
import { saveSourceRecordLink, sourceRecordLink, sourceRecordLinks } from './entities/source-record-links.js';
import type { IdentityService } from './identity-service.js';

export const PATIENT_IDENTITY_REQUESTED = 'fhir.internal.patient_identity_requested';
export const FHIR_PATIENT_LINKED = 'identity.internal.fhir_patient_linked';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

function demographicsOf(raw: unknown): DemographicsInput | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const d = raw as Record<string, unknown>;
  const name = d['name'];
  const parts = typeof name === 'object' && name !== null ? (name as { given?: string; middle?: string; family?: string }) : null;
  const list = (key: string): unknown[] | null => (Array.isArray(d[key]) ? (d[key] as unknown[]) : null);
  return {
    name: parts ?? str(name),
    dob: str(d['dob']),
    email: str(d['email']),
    phone: str(d['phone']),
    // Requests made before these fields existed carry none of them.
    emails: list('emails') as string[] | null,
    phones: list('phones') as string[] | null,
    sex: str(d['sex']),
    previous_names: list('previous_names') as DemographicsInput['previous_names'],
    addresses: list('addresses'),
    identifiers: list('identifiers'),
  };
}

/** Requests resolved in one transaction at most (their blocking keys are all locked at once). */
export const LINK_BATCH = 100;

interface LinkRequest {
  event: EventEnvelope;
  id: string;
  version: string;
  recordKey: string;
  demographics: DemographicsInput | null;
}

function readRequest(event: EventEnvelope): LinkRequest {
  const id = str(event.data['resource_id']);
  return { event, id: id ?? '', version: str(event.data['version_id']) ?? '0', recordKey: `fhir:Patient/${id ?? ''}`, demographics: demographicsOf(event.data['demographics']) };
}

/** The answer to a linked request, staged with its link. */
function linkedEvent(request: LinkRequest, gpid: string, at: Date): EventEnvelope {
  const { event, id, version } = request;
  return makeEvent(FHIR_PATIENT_LINKED, event.partner_gpid, { event: FHIR_PATIENT_LINKED, resource_type: 'Patient', resource_id: id, version_id: version, gpid, partner_gpid: event.partner_gpid, request_event_id: event.id }, at);
}

/**
 * The consumer of the requests, in batches (`consume(name, { batch })`): the requests of a read are
 * resolved LINK_BATCH at a time, in order, in one transaction (`IdentityService.resolveInOrder`: the
 * same GPIDs as one at a time, with a few statements for the batch), their links and answers written
 * in the same transaction. A request for a record named earlier in the same batch starts a new one,
 * so it sees that record's link as it would one at a time. When a batch fails, its requests are
 * handled one at a time (`linkOne`), so the requests before a failing one are linked and the failing
 * one is retried like any event of a per-event consumer.
 */
export function fhirPatientLinker(service: IdentityService, services: SubgraphServices): { batch: (events: EventEnvelope[]) => Promise<void> } {
  const logger: Logger = services.runtime.logger.child({ worker: 'identity-fhir-link' });
  const one = linkOne(service, services, logger);

  async function linkBatch(requests: readonly LinkRequest[]): Promise<void> {
    const known = await sourceRecordLinks(service.sql, requests.filter((r) => r.id).map((r) => r.recordKey));
    const toResolve: Array<{ request: LinkRequest; source: SourceOrigin }> = [];
    for (const request of requests) {
      const link = request.id ? (known.get(request.recordKey) ?? null) : null;
      if (link?.lastEventId === request.event.id) continue;
      const source = request.event.data['source'] ?? link?.source;
      if (!request.id || !isSourceOrigin(source) || !request.demographics) {
        logger.warn({ eventId: request.event.id }, 'identity request without a resource id, source or demographics: ignored');
        continue;
      }
      toResolve.push({ request, source });
    }
    if (toResolve.length === 0) return;
    await service.resolveInOrder(
      toResolve.map(({ request, source }) => ({ input: request.demographics!, context: resolveContext(request.event, source) })),
      (outcome, index, writes) => {
        const { request, source } = toResolve[index]!;
        if (outcome.refused) {
          // Demographics the registry refuses will never resolve: no link, and no endless redelivery.
          if (outcome.refused.code !== 'VALIDATION_ERROR') throw outcome.refused;
          logger.warn({ eventId: request.event.id, resourceId: request.id, code: outcome.refused.code }, 'Patient demographics refused by the identity pipeline: no GPID link');
          return;
        }
        const at = new Date();
        const gpid = outcome.result.gpid;
        writes.sourceLink({ recordKey: request.recordKey, partnerGpid: request.event.partner_gpid, gpid, source, recordVersion: request.version, lastEventId: request.event.id }, at);
        writes.event(linkedEvent(request, gpid, at));
      },
    );
  }

  return {
    batch: async (events) => {
      const requests = events.filter((e) => e.type === PATIENT_IDENTITY_REQUESTED).map(readRequest);
      for (const batch of batches(requests)) {
        try {
          await linkBatch(batch);
        } catch (err) {
          logger.warn({ err, events: batch.length, firstEventId: batch[0]!.event.id }, 'batch of identity requests failed: handled one at a time');
          for (const request of batch) await one(request.event);
        }
      }
    },
  };
}

/** Consecutive batches of at most LINK_BATCH requests, each naming a record at most once. */
function batches(requests: readonly LinkRequest[]): LinkRequest[][] {
  const out: LinkRequest[][] = [];
  let current: LinkRequest[] = [];
  let keys = new Set<string>();
  for (const request of requests) {
    if (current.length >= LINK_BATCH || keys.has(request.recordKey)) {
      out.push(current);
      current = [];
      keys = new Set();
    }
    current.push(request);
    keys.add(request.recordKey);
  }
  if (current.length > 0) out.push(current);
  return out;
}

/** How a FHIR write's request is resolved: under its source, on behalf of the writing partner. */
function resolveContext(event: EventEnvelope, source: SourceOrigin) {
  return { source, entityType: 'patient', strict: false, actor: event.partner_gpid, actorSeesAll: event.partner_gpid === null, via: '/fhir/R4/Patient' };
}

/** One request on its own: its resolve, then its link and answer (the per-event path, and a failed batch's). */
export function linkOne(service: IdentityService, services: SubgraphServices, logger: Logger) {
  return async (event: EventEnvelope): Promise<void> => {
    if (event.type !== PATIENT_IDENTITY_REQUESTED) return;
    const request = readRequest(event);
    const { id, recordKey, demographics } = request;
    const known = id ? await sourceRecordLink(service.sql, recordKey) : null;
    if (known?.lastEventId === event.id) return;
    // A request after a split carries no source of its own: the record's last one is used, so
    // asking again never adds a confirmation the partner did not make.
    const source = event.data['source'] ?? known?.source;
    if (!id || !isSourceOrigin(source) || !demographics) {
      logger.warn({ eventId: event.id }, 'identity request without a resource id, source or demographics: ignored');
      return;
    }
    let gpid: string;
    try {
      gpid = (await service.pipeline.resolve(demographics, resolveContext(event, source))).gpid;
    } catch (err) {
      // Demographics the registry refuses will never resolve: no link, and no endless redelivery.
      if (err instanceof DomainError && err.code === 'VALIDATION_ERROR') {
        logger.warn({ eventId: event.id, resourceId: id, code: err.code }, 'Patient demographics refused by the identity pipeline: no GPID link');
        return;
      }
      throw err;
    }
    await service.sql.transaction(async (tx) => {
      const at = new Date();
      await saveSourceRecordLink(tx, { recordKey, partnerGpid: event.partner_gpid, gpid, source, recordVersion: request.version, lastEventId: event.id }, at);
      await stageEvent(tx, linkedEvent(request, gpid, at));
    });
    services.publishCommitted();
  };
}

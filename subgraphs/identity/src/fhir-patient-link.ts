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
 * Idempotent by event id: a request whose id is the record's last answered one is skipped. The
 * resolve and the link are two transactions; a crash between them resolves the same demographics
 * again on redelivery, which returns the same GPID (the record learned them the first time).
 */
import { DomainError, isSourceOrigin, makeEvent, type EventEnvelope, type Logger, type SubgraphServices } from '@svc/platform';
import type { DemographicsInput } from './domain/index.js';
import { stageEvent } from './entities/outbox.js';
import { saveSourceRecordLink, sourceRecordLink } from './entities/source-record-links.js';
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

export function fhirPatientLinker(service: IdentityService, services: SubgraphServices) {
  const logger: Logger = services.runtime.logger.child({ worker: 'identity-fhir-link' });
  return async (event: EventEnvelope): Promise<void> => {
    if (event.type !== PATIENT_IDENTITY_REQUESTED) return;
    const id = str(event.data['resource_id']);
    const version = str(event.data['version_id']) ?? '0';
    const demographics = demographicsOf(event.data['demographics']);
    const recordKey = `fhir:Patient/${id ?? ''}`;
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
      const resolution = await service.pipeline.resolve(demographics, { source, entityType: 'patient', strict: false, actor: event.partner_gpid, actorSeesAll: event.partner_gpid === null, via: '/fhir/R4/Patient' });
      gpid = resolution.gpid;
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
      await saveSourceRecordLink(tx, { recordKey, partnerGpid: event.partner_gpid, gpid, source, recordVersion: version, lastEventId: event.id }, at);
      await stageEvent(
        tx,
        makeEvent(FHIR_PATIENT_LINKED, event.partner_gpid, { event: FHIR_PATIENT_LINKED, resource_type: 'Patient', resource_id: id, version_id: version, gpid, partner_gpid: event.partner_gpid, request_event_id: event.id }, at),
      );
    });
    services.publishCommitted();
  };
}

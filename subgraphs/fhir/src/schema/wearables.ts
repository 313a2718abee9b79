import { WEARABLE_PRODUCTS, type SubgraphBuilder, type SubgraphContext, type SubgraphServices } from '@svc/platform';
import type { FhirCall } from '../domain/interactions.js';
import { ingestWearableBatch, type PatientLink, type WearableIngestAccepted } from '../domain/wearables/ingest.js';
import type { SyncWakeup } from './sync-jobs.js';

/**
 * Wearable ingest: the GraphQL twin of `POST /{wearableProduct}/v1/wearables/events`, with the same
 * scope (`{product}.wearables.ingest`), limit (capability wearables.ingest) and validation, since
 * both run `ingestWearableBatch`. The batch is the REST body itself (`{ events: [...] }`, snake_case
 * keys), so one validator names the same fields (`events[3].value`) through either door.
 */
export function defineWearables(builder: SubgraphBuilder, services: SubgraphServices, wakeup: SyncWakeup) {
  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const call = (ctx: SubgraphContext): FhirCall => ({ em: ctx.em, principal: ctx.principal, requestId: ctx.requestId, source: null, fhirBase });

  const Link = builder.objectRef<PatientLink>('WearablePatientLink').implement({
    description: 'How the readings of one patient GPID are linked: always by the GPID identifier, and to a Patient when the partner has exactly one with that GPID.',
    fields: (t) => ({
      gpid: t.exposeString('gpid', { description: 'The patient GPID (SVC-…) the readings name.' }),
      patientReference: t.exposeString('patientReference', { nullable: true, description: "Patient/{id} written as Observation.subject.reference; null when no Patient (or several) in the partner's view carries the GPID." }),
    }),
  });

  const Accepted = builder.objectRef<WearableIngestAccepted>('WearableIngestAccepted').implement({
    description: 'An accepted batch of wearable readings: the sync job that stores them as FHIR Observations.',
    fields: (t) => ({
      jobId: t.exposeID('jobId', { description: 'job_…; ends with pipeline.sync.completed or pipeline.sync.failed.' }),
      statusUrl: t.exposeString('statusUrl', { description: '…/fhir/R4/$sync-status/{jobId}: 202 while it runs, then the batch-response Bundle (201 Created per new reading, 200 OK for one already stored).' }),
      product: t.exposeString('product', { description: `The wearable product: ${WEARABLE_PRODUCTS.join(' or ')}.` }),
      eventsAccepted: t.exposeInt('eventsAccepted', { description: 'Readings in the batch (all of them: a batch with an invalid reading is refused whole).' }),
      patients: t.field({ type: [Link], description: 'One entry per distinct patient GPID of the batch.', resolve: (a) => a.patients }),
    }),
  });

  builder.mutationFields((t) => ({
    wearableEventsIngest: t.field({
      type: Accepted,
      description:
        'Ingest a batch of wearable device readings (REST: POST /{product}/v1/wearables/events) as a sync job of FHIR Observations, idempotent by event id. Needs {product}.wearables.ingest. Every reading is checked first; any problem refuses the batch with VALIDATION_ERROR naming each field (events[i].…).',
      authScopes: { authenticated: true },
      args: {
        product: t.arg.string({ required: true, description: `The wearable product: ${WEARABLE_PRODUCTS.join(' or ')}.` }),
        batch: t.arg({ type: 'JSONObject', required: true, description: 'The REST body: { events: [{ event_id, patient_gpid, type, value, unit, effective_time | effective_period, device? }] }.' }),
      },
      resolve: async (_r, a, ctx: SubgraphContext) => {
        const accepted = await ingestWearableBatch(call(ctx), a.product, a.batch, services.runtime.config.fhirSync);
        services.publishCommitted();
        wakeup.wake?.();
        return accepted;
      },
    }),
  }));
}

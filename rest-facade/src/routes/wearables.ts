import { capabilityRoute, DomainError, MAX_WEARABLE_EVENTS, WEARABLE_PRODUCTS, wearableIngestScope } from '@svc/platform';
import type { GatewayOperation, JsonSchema, RouteResult, RouteSpec } from './route.js';

/**
 * `POST /{wearableProduct}/v1/wearables/events`: a batch of device readings, queued as a sync job
 * that stores them as FHIR Observations (fhir subgraph, `src/domain/wearables/`). Answers 202 with
 * the job and its status URL (also in Content-Location). The body goes to the gateway as it came,
 * so the subgraph's one validator names the fields (`events[3].value`) for REST and GraphQL alike.
 */

interface Accepted {
  jobId: string;
  statusUrl: string;
  product: string;
  eventsAccepted: number;
  patients: { gpid: string; patientReference: string | null }[];
}

const INGEST: GatewayOperation = {
  document: `mutation WearableEventsIngest($product: String!, $batch: JSONObject!) {
    wearableEventsIngest(product: $product, batch: $batch) { jobId statusUrl product eventsAccepted patients { gpid patientReference } }
  }`,
  variables: (input) => {
    const body = input.body;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new DomainError('VALIDATION_ERROR', 'The request body must be a JSON object { "events": [ … ] }.', { fieldErrors: [{ field: '', message: 'must be a JSON object with an events array' }] });
    }
    return { product: input.params['wearableProduct'] ?? '', batch: body };
  },
  result: (data) => data['wearableEventsIngest'],
  respond: (data): RouteResult => {
    const a = data['wearableEventsIngest'] as Accepted;
    return {
      headers: { 'content-location': a.statusUrl },
      body: {
        job_id: a.jobId,
        status: 'queued',
        status_url: a.statusUrl,
        product: a.product,
        events_accepted: a.eventsAccepted,
        patients: a.patients.map((p) => ({ gpid: p.gpid, patient_reference: p.patientReference })),
      },
    };
  },
};

const INSTANT: JsonSchema = { type: 'string', format: 'date-time', description: 'ISO 8601 with seconds and a time zone; not in the future (5 minutes of clock skew allowed).' };

const READING: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['event_id', 'patient_gpid', 'type', 'value', 'unit'],
  description: 'One device reading. Exactly one of effective_time and effective_period; steps and sleep_duration need effective_period.',
  properties: {
    event_id: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$', description: "The reading's id on the partner's side; a reading sent again with the same id is stored once (Observation.identifier urn:svc:wearables:{product}:event)." },
    patient_gpid: { type: 'string', pattern: '^SVC-[0-9A-F]{8}$', description: 'The patient GPID. Observation.subject carries it as identifier urn:svc:gpid, and references the Patient when the partner has exactly one with it.' },
    type: {
      type: 'string',
      enum: ['heart_rate', 'resting_heart_rate', 'heart_rate_variability', 'spo2', 'respiratory_rate', 'body_temperature', 'body_weight', 'blood_pressure', 'steps', 'sleep_duration'],
      description: 'LOINC: heart_rate 8867-4 (/min), resting_heart_rate 40443-4 (/min), heart_rate_variability 80404-7 (ms), spo2 2708-6 + 59408-5 (%), respiratory_rate 9279-1 (/min), body_temperature 8310-5 (Cel), body_weight 29463-7 (kg), blood_pressure 85354-9 with 8480-6/8462-4 (mm[Hg]), steps 55423-8 ({steps}), sleep_duration 93832-4 (h).',
    },
    value: {
      oneOf: [{ type: 'number' }, { type: 'object', required: ['systolic', 'diastolic'], properties: { systolic: { type: 'number' }, diastolic: { type: 'number' } }, additionalProperties: false }],
      description: 'A number; for blood_pressure { systolic, diastolic }. Physiologically implausible values are refused (the README lists the ranges).',
    },
    unit: { type: 'string', description: 'A UCUM unit (converted to the stored one where UCUM allows: [degF] → Cel, [lb_av] → kg, min → h, kPa → mm[Hg]) or a common spelling (bpm, °F, lb, mmHg, steps, hours).' },
    effective_time: INSTANT,
    effective_period: { type: 'object', required: ['start', 'end'], additionalProperties: false, properties: { start: INSTANT, end: INSTANT }, description: 'At most 31 days; end not before start.' },
    device: {
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' }, manufacturer: { type: 'string', maxLength: 100 }, model: { type: 'string', maxLength: 100 } },
      description: 'Observation.device: identifier urn:svc:wearables:{product}:device and display "manufacturer model".',
    },
  },
};

const REQUEST: JsonSchema = {
  type: 'object',
  required: ['events'],
  additionalProperties: false,
  description: `A batch of 1 to ${MAX_WEARABLE_EVENTS} readings (more: 413 PAYLOAD_TOO_LARGE, limit wearables.events, before any reading is read). Every reading is checked before anything is queued: any problem answers 422 VALIDATION_ERROR with one field error per problem, named events[i].field.`,
  properties: { events: { type: 'array', minItems: 1, maxItems: MAX_WEARABLE_EVENTS, items: READING } },
};

const RESPONSE: JsonSchema = {
  type: 'object',
  required: ['job_id', 'status', 'status_url', 'product', 'events_accepted', 'patients'],
  description:
    'The batch is a sync job: poll status_url (202 while it runs, then the batch-response Bundle: 201 Created for each new Observation, 200 OK for a reading already stored). The job ends with pipeline.sync.completed or pipeline.sync.failed.',
  properties: {
    job_id: { type: 'string', pattern: '^job_' },
    status: { type: 'string', enum: ['queued'] },
    status_url: { type: 'string', format: 'uri' },
    product: { type: 'string', enum: [...WEARABLE_PRODUCTS] },
    events_accepted: { type: 'integer' },
    patients: {
      type: 'array',
      items: { type: 'object', required: ['gpid', 'patient_reference'], properties: { gpid: { type: 'string' }, patient_reference: { type: ['string', 'null'], description: 'Patient/{id}, or null when the partner has no (or several) Patients with that GPID.' } } },
    },
  },
};

export const wearableRoutes: RouteSpec[] = [
  {
    id: 'wearables.ingest',
    method: 'POST',
    path: '/{wearableProduct}/v1/wearables/events',
    summary: 'Wearable event ingest: a batch of device readings stored as FHIR Observations by a sync job',
    auth: 'bearer',
    // Any product's ingest scope passes the door; the subgraph checks the one of the product in the path.
    scopes: WEARABLE_PRODUCTS.map(wearableIngestScope),
    successStatus: 202,
    ...capabilityRoute('wearables.ingest'),
    operation: INGEST,
    payloadLimits: [`At most ${MAX_WEARABLE_EVENTS.toLocaleString('en-US')} readings a batch (wearables.events, 413 PAYLOAD_TOO_LARGE); any body at most 5 MiB.`],
    pathParameters: { wearableProduct: { schema: { type: 'string', enum: [...WEARABLE_PRODUCTS] }, description: 'The wearable product (a source origin); any other answers 404.' } },
    requestBody: REQUEST,
    responseBody: RESPONSE,
  },
];

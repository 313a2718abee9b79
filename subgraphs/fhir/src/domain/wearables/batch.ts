import { isPatientGpid, limitExceeded, MAX_WEARABLE_EVENTS, validationError, type FieldError, type WearableProduct } from '@svc/platform';
import type { FhirResource } from '../validation.js';
import { BP_COMPONENTS, CATEGORY_DISPLAY, MAX_STEPS_PER_MINUTE, OBSERVATION_CATEGORY, READING_TYPE_NAMES, readingType, UCUM, type ReadingType } from './reading-types.js';
import { convertTo } from './units.js';

/**
 * A batch of wearable readings as partners send it (`POST /{product}/v1/wearables/events` and the
 * GraphQL `wearableEventsIngest`), checked in full before anything is queued, and each reading as
 * the FHIR Observation it becomes. Free of GraphQL, HTTP and storage.
 */

/** At most this many readings in one batch (`wearables.events`: the size of a FHIR batch the sync worker runs). */
export const MAX_EVENTS_PER_BATCH = MAX_WEARABLE_EVENTS;
/** Field errors reported for one batch at most; the message says how many there were. */
const MAX_REPORTED_ERRORS = 100;
/** A device clock a little ahead of ours is not an error. */
const CLOCK_SKEW_MS = 5 * 60_000;
const MAX_PERIOD_MS = 31 * 24 * 3600_000;

const EVENT_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;
/** FHIR dateTime with a time: seconds and a zone are required (R4 dateTime). */
const DATE_TIME_RE = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const EVENT_KEYS = new Set(['event_id', 'patient_gpid', 'device', 'type', 'value', 'unit', 'effective_time', 'effective_period']);
const DEVICE_KEYS = new Set(['id', 'manufacturer', 'model']);

export type ReadingValue = { kind: 'quantity'; value: number } | { kind: 'blood-pressure'; systolic: number; diastolic: number };

export interface WearableReading {
  /** Position in `events`. */
  index: number;
  eventId: string;
  patientGpid: string;
  type: ReadingType;
  device: { id: string; manufacturer: string | null; model: string | null } | null;
  /** In the type's UCUM unit. */
  value: ReadingValue;
  /** The unit as sent and the value(s) as sent, when a conversion took place. */
  convertedFrom: { unit: string; text: string } | null;
  effective: { dateTime: string } | { start: string; end: string };
}

/** Observation.identifier.system of a product's readings: the event id is unique per partner and product. */
export function eventIdentifierSystem(product: WearableProduct): string {
  return `urn:svc:wearables:${product}:event`;
}

/** Observation.device.identifier.system of a product's devices. */
export function deviceIdentifierSystem(product: WearableProduct): string {
  return `urn:svc:wearables:${product}:device`;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

class Collector {
  readonly errors: FieldError[] = [];
  add(field: string, message: string): void {
    this.errors.push({ field, message });
  }
}

function instant(value: unknown, field: string, now: Date, errors: Collector): number | null {
  if (typeof value !== 'string' || !DATE_TIME_RE.test(value) || Number.isNaN(Date.parse(value))) {
    errors.add(field, 'must be an ISO 8601 date-time with seconds and a time zone, such as 2026-11-23T07:30:00Z');
    return null;
  }
  const at = Date.parse(value);
  if (at > now.getTime() + CLOCK_SKEW_MS) {
    errors.add(field, 'is in the future');
    return null;
  }
  return at;
}

function optionalText(value: unknown, field: string, max: number, errors: Collector): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.trim() === '' || value.length > max) {
    errors.add(field, `must be a non-empty string of at most ${max} characters`);
    return null;
  }
  return value.trim();
}

function readDevice(value: unknown, at: string, errors: Collector): WearableReading['device'] {
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    errors.add(`${at}.device`, 'must be an object { id, manufacturer?, model? }');
    return null;
  }
  for (const key of Object.keys(value)) if (!DEVICE_KEYS.has(key)) errors.add(`${at}.device.${key}`, 'is not a field of a device (id, manufacturer, model)');
  const id = value['id'];
  if (typeof id !== 'string' || !EVENT_ID_RE.test(id)) {
    errors.add(`${at}.device.id`, 'is required: 1 to 128 of A-Z a-z 0-9 . _ : -');
    return null;
  }
  return { id, manufacturer: optionalText(value['manufacturer'], `${at}.device.manufacturer`, 100, errors), model: optionalText(value['model'], `${at}.device.model`, 100, errors) };
}

function readEffective(event: Json, at: string, type: ReadingType | undefined, now: Date, errors: Collector): { effective: WearableReading['effective']; minutes: number | null } | null {
  const time = event['effective_time'];
  const period = event['effective_period'];
  const hasTime = time !== undefined && time !== null;
  const hasPeriod = period !== undefined && period !== null;
  if (hasTime === hasPeriod) {
    errors.add(hasTime ? `${at}.effective_period` : `${at}.effective_time`, 'exactly one of effective_time and effective_period is required');
    return null;
  }
  if (hasTime) {
    if (type?.needsPeriod) {
      errors.add(`${at}.effective_period`, `is required for ${type.type}: a count or duration must say over which period it was measured`);
      return null;
    }
    return instant(time, `${at}.effective_time`, now, errors) === null ? null : { effective: { dateTime: time as string }, minutes: null };
  }
  if (!isObject(period)) {
    errors.add(`${at}.effective_period`, 'must be an object { start, end }');
    return null;
  }
  const start = instant(period['start'], `${at}.effective_period.start`, now, errors);
  const end = instant(period['end'], `${at}.effective_period.end`, now, errors);
  if (start === null || end === null) return null;
  if (end < start) {
    errors.add(`${at}.effective_period.end`, 'must not be before start');
    return null;
  }
  if (end - start > MAX_PERIOD_MS) {
    errors.add(`${at}.effective_period`, 'may span at most 31 days');
    return null;
  }
  return { effective: { start: period['start'] as string, end: period['end'] as string }, minutes: (end - start) / 60_000 };
}

function plausible(type: ReadingType, value: number, min: number, max: number, field: string, converted: string | null, errors: Collector): boolean {
  if (value >= min && value <= max) return true;
  const unit = type.quantity.ucum;
  errors.add(field, `${value} ${unit}${converted ? ` (converted from ${converted})` : ''} is not a plausible ${type.type}: expected ${min} to ${max} ${unit}`);
  return false;
}

function readValue(event: Json, at: string, type: ReadingType, minutes: number | null, errors: Collector): { value: ReadingValue; convertedFrom: WearableReading['convertedFrom'] } | null {
  const unitRaw = event['unit'];
  if (typeof unitRaw !== 'string' || unitRaw.trim() === '') {
    errors.add(`${at}.unit`, `is required: a UCUM unit such as ${type.quantity.ucum}`);
    return null;
  }
  const q = type.quantity;
  const raw = event['value'];
  if (type.shape === 'blood-pressure') {
    if (!isObject(raw)) {
      errors.add(`${at}.value`, 'must be an object { systolic, diastolic } for blood_pressure');
      return null;
    }
    for (const key of Object.keys(raw)) if (key !== 'systolic' && key !== 'diastolic') errors.add(`${at}.value.${key}`, 'is not a part of a blood pressure (systolic, diastolic)');
    const parts: Record<'systolic' | 'diastolic', number | null> = { systolic: null, diastolic: null };
    for (const part of ['systolic', 'diastolic'] as const) {
      const v = raw[part];
      const field = `${at}.value.${part}`;
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        errors.add(field, 'must be a number');
        continue;
      }
      const c = convertTo(v, unitRaw, q.ucum, q.decimals);
      if (!c.ok) {
        errors.add(`${at}.unit`, c.message);
        return null;
      }
      const converted = c.from === q.ucum ? null : `${v} ${c.from}`;
      if (plausible(type, c.value, BP_COMPONENTS[part].min, BP_COMPONENTS[part].max, field, converted, errors)) parts[part] = c.value;
    }
    if (parts.systolic === null || parts.diastolic === null) return null;
    if (parts.systolic <= parts.diastolic) {
      errors.add(`${at}.value.systolic`, `must be above diastolic (got ${parts.systolic} and ${parts.diastolic} ${q.ucum})`);
      return null;
    }
    const from = convertTo(0, unitRaw, q.ucum, 0);
    const convertedFrom = from.ok && from.from !== q.ucum ? { unit: from.from, text: `${String(raw['systolic'])}/${String(raw['diastolic'])} ${from.from}` } : null;
    return { value: { kind: 'blood-pressure', systolic: parts.systolic, diastolic: parts.diastolic }, convertedFrom };
  }
  if (typeof raw !== 'number' || !Number.isFinite(raw)) {
    errors.add(`${at}.value`, `must be a number (${type.type} in ${q.ucum} or a unit convertible to it)`);
    return null;
  }
  const c = convertTo(raw, unitRaw, q.ucum, q.decimals);
  if (!c.ok) {
    errors.add(`${at}.unit`, c.message);
    return null;
  }
  const converted = c.from === q.ucum ? null : `${raw} ${c.from}`;
  if (type.integer && !Number.isInteger(c.value)) {
    errors.add(`${at}.value`, `must be a whole number of ${q.unitDisplay}`);
    return null;
  }
  if (!plausible(type, c.value, q.min, q.max, `${at}.value`, converted, errors)) return null;
  if (minutes !== null && type.type === 'steps' && c.value > Math.max(1, minutes) * MAX_STEPS_PER_MINUTE) {
    errors.add(`${at}.value`, `${c.value} steps in ${Math.round(minutes)} minutes is not plausible: at most ${MAX_STEPS_PER_MINUTE} steps a minute`);
    return null;
  }
  if (minutes !== null && type.type === 'sleep_duration' && c.value > minutes / 60 + 1e-9) {
    errors.add(`${at}.value`, `${c.value} h of sleep is longer than the effective_period (${Math.round((minutes / 60) * 100) / 100} h)`);
    return null;
  }
  return { value: { kind: 'quantity', value: c.value }, convertedFrom: converted ? { unit: c.from, text: converted } : null };
}

function readEvent(raw: unknown, index: number, now: Date, errors: Collector): WearableReading | null {
  const at = `events[${index}]`;
  if (!isObject(raw)) {
    errors.add(at, 'must be an object');
    return null;
  }
  const before = errors.errors.length;
  for (const key of Object.keys(raw)) if (!EVENT_KEYS.has(key)) errors.add(`${at}.${key}`, `is not a field of a reading (${[...EVENT_KEYS].join(', ')})`);
  const eventId = raw['event_id'];
  if (typeof eventId !== 'string' || !EVENT_ID_RE.test(eventId)) errors.add(`${at}.event_id`, 'is required: 1 to 128 of A-Z a-z 0-9 . _ : -, unique per reading');
  const gpid = raw['patient_gpid'];
  if (!isPatientGpid(gpid)) errors.add(`${at}.patient_gpid`, 'must be a patient GPID: SVC- and 8 uppercase hexadecimal characters');
  const typeName = raw['type'];
  const type = typeof typeName === 'string' ? readingType(typeName) : undefined;
  if (!type) errors.add(`${at}.type`, `must be one of ${READING_TYPE_NAMES.join(', ')}${typeof typeName === 'string' ? ` (got "${typeName.slice(0, 40)}")` : ''}`);
  const device = readDevice(raw['device'], at, errors);
  const effective = readEffective(raw, at, type, now, errors);
  const value = type ? readValue(raw, at, type, effective?.minutes ?? null, errors) : null;
  if (errors.errors.length > before || !type || !effective || !value) return null;
  return { index, eventId: eventId as string, patientGpid: gpid as string, type, device, value: value.value, convertedFrom: value.convertedFrom, effective: effective.effective };
}

/**
 * Read and check a whole batch `{ events: [...] }`. Every problem is reported at once, each naming
 * its field with the reading's index (`events[3].value`), so nothing of a batch with a bad reading
 * is queued: the partner corrects or drops it and sends the batch again (readings already stored are
 * not stored twice, see the event identifier).
 */
export function parseWearableBatch(body: unknown, now: Date = new Date()): WearableReading[] {
  if (!isObject(body)) throw validationError([{ field: '', message: 'must be a JSON object { "events": [ … ] }' }], 'The batch must be a JSON object with an events array.');
  const errors = new Collector();
  for (const key of Object.keys(body)) if (key !== 'events') errors.add(key, 'is not a field of a batch (events)');
  const events = body['events'];
  if (!Array.isArray(events) || events.length === 0) {
    errors.add('events', 'is required: an array of 1 to 1000 readings');
    throw validationError(errors.errors, 'The batch has no readings.');
  }
  // Counted before any reading is read, so the work never grows with the batch.
  if (events.length > MAX_EVENTS_PER_BATCH) {
    const message = `must hold at most ${MAX_EVENTS_PER_BATCH} readings (got ${events.length}; limit wearables.events); send several batches`;
    throw limitExceeded('PAYLOAD_TOO_LARGE', { name: 'wearables.events', max: MAX_EVENTS_PER_BATCH, field: 'events' }, `The batch is too large: events ${message}.`, message);
  }
  const readings: WearableReading[] = [];
  const seen = new Map<string, number>();
  events.forEach((raw, index) => {
    const reading = readEvent(raw, index, now, errors);
    const eventId = isObject(raw) && typeof raw['event_id'] === 'string' ? raw['event_id'] : null;
    if (eventId !== null) {
      const first = seen.get(eventId);
      if (first !== undefined) errors.add(`events[${index}].event_id`, `repeats events[${first}].event_id; each reading has its own event id`);
      else seen.set(eventId, index);
    }
    if (reading) readings.push(reading);
  });
  if (errors.errors.length > 0) {
    const indexes = new Set(errors.errors.map((e) => /^events\[(\d+)\]/.exec(e.field)?.[1]).filter((i) => i !== undefined));
    const shown = errors.errors.slice(0, MAX_REPORTED_ERRORS);
    const first = shown[0]!;
    const message = `${first.field}: ${first.message}${errors.errors.length > 1 ? ` (${errors.errors.length} problems in ${indexes.size} reading${indexes.size === 1 ? '' : 's'}; nothing was queued)` : ' (nothing was queued)'}`;
    throw validationError(shown, message.slice(0, 2000));
  }
  return readings;
}

const quantity = (value: number, type: ReadingType) => ({ value, unit: type.quantity.unitDisplay, system: UCUM, code: type.quantity.ucum });

/**
 * The Observation a reading becomes: status final, the type's category and LOINC code, the value in
 * its UCUM unit, the effective time or period, the device, and the patient by GPID: the subject
 * carries the `urn:svc:gpid` identifier always, and a literal reference when `patientId` (the one
 * Patient carrying that GPID in the partner's view) is known. The event identifier makes the
 * conditional create idempotent.
 */
export function observationFor(product: WearableProduct, reading: WearableReading, patientId: string | null): FhirResource {
  const type = reading.type;
  const observation: FhirResource = {
    resourceType: 'Observation',
    identifier: [{ system: eventIdentifierSystem(product), value: reading.eventId }],
    status: 'final',
    category: [{ coding: [{ system: OBSERVATION_CATEGORY, code: type.category, display: CATEGORY_DISPLAY[type.category] }], text: CATEGORY_DISPLAY[type.category] }],
    code: { coding: type.codings.map((c) => ({ ...c })), text: type.codings[0]!.display },
    subject: { ...(patientId ? { reference: `Patient/${patientId}` } : {}), type: 'Patient', identifier: { system: 'urn:svc:gpid', value: reading.patientGpid } },
    ...('dateTime' in reading.effective ? { effectiveDateTime: reading.effective.dateTime } : { effectivePeriod: { start: reading.effective.start, end: reading.effective.end } }),
  };
  if (reading.value.kind === 'quantity') {
    observation['valueQuantity'] = quantity(reading.value.value, type);
  } else {
    observation['component'] = [
      { code: { coding: [{ ...BP_COMPONENTS.systolic.coding }], text: BP_COMPONENTS.systolic.coding.display }, valueQuantity: quantity(reading.value.systolic, type) },
      { code: { coding: [{ ...BP_COMPONENTS.diastolic.coding }], text: BP_COMPONENTS.diastolic.coding.display }, valueQuantity: quantity(reading.value.diastolic, type) },
    ];
  }
  if (reading.device) {
    const name = [reading.device.manufacturer, reading.device.model].filter((p): p is string => p !== null).join(' ');
    observation['device'] = { identifier: { system: deviceIdentifierSystem(product), value: reading.device.id }, display: name === '' ? reading.device.id : name };
  }
  if (reading.convertedFrom) observation['note'] = [{ text: `Sent as ${reading.convertedFrom.text}; stored in ${type.quantity.ucum} (UCUM conversion).` }];
  return observation;
}

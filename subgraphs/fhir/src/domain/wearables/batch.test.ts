import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { observationFor, parseWearableBatch } from './batch.js';
import { READING_TYPES } from './reading-types.js';

const NOW = new Date('2026-11-23T12:00:00Z');
const GPID = 'SVC-00A1B2C3';
const at = '2026-11-23T07:30:00Z';
const reading = (extra: Record<string, unknown>) => ({ event_id: 'e-1', patient_gpid: GPID, effective_time: at, ...extra });

function refusal(body: unknown): DomainError {
  try {
    parseWearableBatch(body, NOW);
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('wearable readings become vital-signs and activity Observations', () => {
  it('maps a heart rate to LOINC 8867-4 in /min, with the GPID subject, the device and the event identifier', () => {
    const [r] = parseWearableBatch({ events: [reading({ type: 'heart_rate', value: 72, unit: 'bpm', device: { id: 'band-7', manufacturer: 'Acme', model: 'Band 3' } })] }, NOW);
    expect(observationFor('pulse', r!, 'p-1')).toEqual({
      resourceType: 'Observation',
      identifier: [{ system: 'urn:svc:wearables:pulse:event', value: 'e-1' }],
      status: 'final',
      category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'vital-signs', display: 'Vital Signs' }], text: 'Vital Signs' }],
      code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }], text: 'Heart rate' },
      subject: { reference: 'Patient/p-1', type: 'Patient', identifier: { system: 'urn:svc:gpid', value: GPID } },
      effectiveDateTime: at,
      valueQuantity: { value: 72, unit: 'beats/minute', system: 'http://unitsofmeasure.org', code: '/min' },
      device: { identifier: { system: 'urn:svc:wearables:pulse:device', value: 'band-7' }, display: 'Acme Band 3' },
    });
  });

  it('converts with UCUM: °F to Cel, lb to kg, minutes of sleep to hours, kPa to mm[Hg]', () => {
    const period = { start: '2026-11-22T22:00:00Z', end: '2026-11-23T06:30:00Z' };
    const readings = parseWearableBatch(
      {
        events: [
          reading({ event_id: 't', type: 'body_temperature', value: 98.6, unit: '°F' }),
          reading({ event_id: 'w', type: 'body_weight', value: 150, unit: 'lb' }),
          { ...reading({ event_id: 's', type: 'sleep_duration', value: 450, unit: 'min' }), effective_time: undefined, effective_period: period },
          reading({ event_id: 'bp', type: 'blood_pressure', value: { systolic: 16, diastolic: 10.7 }, unit: 'kPa' }),
        ],
      },
      NOW,
    );
    const obs = readings.map((r) => observationFor('beacon', r, null));
    expect(obs[0]!['valueQuantity']).toEqual({ value: 37, unit: '°C', system: 'http://unitsofmeasure.org', code: 'Cel' });
    expect(obs[0]!['note']).toEqual([{ text: 'Sent as 98.6 [degF]; stored in Cel (UCUM conversion).' }]);
    expect(obs[1]!['valueQuantity']).toMatchObject({ value: 68.039, code: 'kg' });
    expect(obs[2]).toMatchObject({ category: [{ coding: [{ code: 'activity' }] }], code: { coding: [{ code: '93832-4' }] }, effectivePeriod: period, valueQuantity: { value: 7.5, code: 'h' } });
    expect(obs[3]).toMatchObject({ code: { coding: [{ code: '85354-9' }] }, component: [{ code: { coding: [{ code: '8480-6' }] }, valueQuantity: { value: 120, code: 'mm[Hg]' } }, { code: { coding: [{ code: '8462-4' }] }, valueQuantity: { value: 80, code: 'mm[Hg]' } }] });
    expect(obs[3]!['valueQuantity']).toBeUndefined();
    expect(obs[1]!['subject']).toEqual({ type: 'Patient', identifier: { system: 'urn:svc:gpid', value: GPID } });
  });

  it('codes SpO2 with 2708-6 and 59408-5, as the vital signs profile asks', () => {
    const [r] = parseWearableBatch({ events: [reading({ type: 'spo2', value: 97, unit: '%' })] }, NOW);
    expect((observationFor('pulse', r!, null)['code'] as { coding: { code: string }[] }).coding.map((c) => c.code)).toEqual(['2708-6', '59408-5']);
  });

  it('has a LOINC code, a UCUM unit and a sane range for every type', () => {
    for (const t of READING_TYPES) {
      expect(t.codings[0]!.system).toBe('http://loinc.org');
      expect(t.codings[0]!.code).toMatch(/^\d+-\d$/);
      expect(t.quantity.min).toBeLessThan(t.quantity.max);
    }
  });
});

describe('a bad reading refuses the batch with every problem named by index and field', () => {
  it('names implausible values, unknown types, bad units, unknown fields and repeated event ids', () => {
    const err = refusal({
      events: [
        reading({ event_id: 'ok', type: 'heart_rate', value: 60, unit: '/min' }),
        reading({ event_id: 'hot', type: 'body_temperature', value: 98.6, unit: 'Cel' }),
        reading({ event_id: 'x', type: 'glucose_level', value: 5, unit: 'mmol/L' }),
        reading({ event_id: 'kg', type: 'heart_rate', value: 60, unit: 'kg' }),
        reading({ event_id: 'ok', type: 'heart_rate', value: 61, unit: '/min', colour: 'red' }),
        reading({ event_id: 'bp', type: 'blood_pressure', value: { systolic: 70, diastolic: 90 }, unit: 'mm[Hg]' }),
      ],
    });
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.fieldErrors).toEqual([
      { field: 'events[1].value', message: '98.6 Cel is not a plausible body_temperature: expected 24 to 45 Cel' },
      { field: 'events[2].type', message: expect.stringContaining('must be one of heart_rate,') },
      { field: 'events[3].unit', message: 'kg cannot be converted to /min (expected a unit of the same kind as /min)' },
      { field: 'events[4].colour', message: expect.stringContaining('is not a field of a reading') },
      { field: 'events[4].event_id', message: 'repeats events[0].event_id; each reading has its own event id' },
      { field: 'events[5].value.systolic', message: 'must be above diastolic (got 70 and 90 mm[Hg])' },
    ]);
    expect(err.message).toMatch(/^events\[1\]\.value: .* \(6 problems in 5 readings; nothing was queued\)$/);
  });

  it('asks steps and sleep for a period, refuses future times, malformed GPIDs and impossible step rates', () => {
    const err = refusal({
      events: [
        reading({ type: 'steps', value: 1000, unit: 'steps' }),
        reading({ event_id: 'f', type: 'heart_rate', value: 60, unit: '/min', effective_time: '2026-11-24T00:00:00Z' }),
        reading({ event_id: 'g', patient_gpid: 'svc-1', type: 'heart_rate', value: 60, unit: '/min' }),
        { ...reading({ event_id: 'h', type: 'steps', value: 90000, unit: '{steps}' }), effective_time: undefined, effective_period: { start: '2026-11-23T07:00:00Z', end: '2026-11-23T08:00:00Z' } },
        reading({ event_id: 'i', type: 'heart_rate', value: '60', unit: '/min' }),
      ],
    });
    expect(err.fieldErrors.map((f) => f.field)).toEqual(['events[0].effective_period', 'events[1].effective_time', 'events[2].patient_gpid', 'events[3].value', 'events[4].value']);
    expect(err.fieldErrors[3]!.message).toBe('90000 steps in 60 minutes is not plausible: at most 300 steps a minute');
  });

  it('refuses an empty or oversized batch naming events', () => {
    expect(refusal({ events: [] }).fieldErrors).toEqual([{ field: 'events', message: 'is required: an array of 1 to 1000 readings' }]);
    const tooMany = refusal({ events: Array.from({ length: 1001 }, () => ({})) });
    expect(tooMany.code).toBe('PAYLOAD_TOO_LARGE');
    expect(tooMany.details['limit']).toEqual({ name: 'wearables.events', max: 1000, field: 'events' });
    expect(tooMany.fieldErrors[0]!.message).toContain('at most 1000');
  });
});

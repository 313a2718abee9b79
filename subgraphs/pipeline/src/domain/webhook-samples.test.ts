import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '@svc/platform';
import { sampleEventData, SAMPLE_EVENT_TYPES } from './webhook-samples.js';

/** Keys that would carry health data or demographics: no sample (and no event payload) has them. */
const PHI_KEYS = /^(name|given|family|birth_?date|dob|gender|sex|address|phone|telecom|email|ssn|mrn|content|resource|text|note|demographics)$/i;

function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [k, ...keysOf(v)]);
}

describe('webhook samples', () => {
  it('has a sample for every catalog event type, named in data.event', () => {
    expect(SAMPLE_EVENT_TYPES).toEqual(EVENT_TYPES.map((t) => t.type));
    for (const { type } of EVENT_TYPES) expect(sampleEventData(type, 'CMS-00000001', new Date())?.['event']).toBe(type);
  });

  it('carries ids, codes, counts and times only: no demographic or resource content key', () => {
    for (const type of SAMPLE_EVENT_TYPES) expect(keysOf(sampleEventData(type, 'CMS-00000001', new Date())).filter((k) => PHI_KEYS.test(k)), type).toEqual([]);
  });

  it('answers null outside the catalog', () => {
    expect(sampleEventData('made.up', 'CMS-00000001', new Date())).toBeNull();
    expect(sampleEventData('identity.matched', 'CMS-00000001', new Date())).toBeNull();
  });
});

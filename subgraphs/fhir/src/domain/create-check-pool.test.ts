import { afterAll, describe, expect, it } from 'vitest';
import { CreateCheckPool } from './create-check-pool.js';
import { checkCreate } from './create-checks.js';

const stamped = (resource: Record<string, unknown>, id: string) => JSON.stringify({ ...resource, id, meta: { versionId: '1', lastUpdated: '2026-01-02T03:04:05.678Z' } });

/** Valid and invalid resources, the kinds a transaction Bundle carries. */
const contents = Array.from({ length: 60 }, (_, i) =>
  i % 7 === 3
    ? stamped({ resourceType: 'Observation', status: 'almost', code: { text: 'x' }, valueQuantity: { value: 'high' } }, `bad-${i}`)
    : i % 2 === 0
      ? stamped({ resourceType: 'Patient', name: [{ family: `Müller-${i}`, given: ['Zoë'] }], birthDate: '1970-01-0' + ((i % 9) + 1), gender: 'female' }, `p-${i}`)
      : stamped({ resourceType: 'Observation', status: 'final', code: { coding: [{ system: 'http://loinc.org', code: '8867-4' }] }, subject: { reference: 'Patient/p-0' }, valueQuantity: { value: 72.50, unit: '/min', system: 'http://unitsofmeasure.org', code: '/min' } }, `o-${i}`),
);

describe('create checks on worker threads', () => {
  const pool = new CreateCheckPool(2);
  afterAll(() => pool.close());

  it('answers on threads exactly what the event loop answers: index rows of valid resources, the refusal of invalid ones', async () => {
    expect(pool.ready).toBe(false);
    pool.warm();
    for (let i = 0; i < 300 && pool.readyThreads < 2; i++) await new Promise((r) => setTimeout(r, 50));
    expect(pool.readyThreads).toBe(2);
    const threaded = await Promise.all(pool.check(contents));
    expect(threaded).toEqual(contents.map(checkCreate));
    expect(threaded.filter((c) => 'refused' in c)).toHaveLength(9);
  });

  it('still answers every check when its threads end while they work', async () => {
    const closing = new CreateCheckPool(1);
    closing.warm();
    for (let i = 0; i < 300 && !closing.ready; i++) await new Promise((r) => setTimeout(r, 50));
    const answers = closing.check(contents);
    await closing.close();
    expect(await Promise.all(answers)).toEqual(contents.map(checkCreate));
    expect(closing.readyThreads).toBe(0);
  });
});

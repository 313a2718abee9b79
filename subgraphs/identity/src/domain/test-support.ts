/** Shared fixtures for the domain tests. Not imported by production code. */
import type { FingerprintKeyRing } from './fingerprint.js';
import { createIdentityPipeline, type IdentityPipelineOptions } from './pipeline.js';
import { InMemoryIdentityRegistry } from './registry.js';

export const KEY_1 = { version: 'k1', secret: 'test-key-one-0123456789abcdef0123456789' };
export const KEY_2 = { version: 'k2', secret: 'test-key-two-0123456789abcdef0123456789' };
export const RING_1: FingerprintKeyRing = { current: 'k1', keys: [KEY_1] };

/** A fixed clock: 12 June 2026. */
export const NOW = new Date('2026-06-12T12:00:00Z');

/** Sequential patient GPIDs in the platform format (SVC- + 8 uppercase hex). */
export function sequentialGpids(): () => string {
  let n = 0;
  return () => `SVC-${(++n).toString(16).toUpperCase().padStart(8, '0')}`;
}

export function testPipeline(overrides: Partial<IdentityPipelineOptions> = {}) {
  const registry = overrides.registry ?? new InMemoryIdentityRegistry();
  const pipeline = createIdentityPipeline({
    registry,
    keyRing: RING_1,
    newGpid: sequentialGpids(),
    now: () => NOW,
    ...overrides,
  });
  return { pipeline, registry: registry as InMemoryIdentityRegistry };
}

export const ROBERT = {
  name: 'Robert Smith',
  dob: '1980-03-04',
  email: 'rob.smith@gmail.com',
  phone: '(212) 867-5309',
};

import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { isTransient, retryDelayMs } from './sync-worker.js';

describe('sync job retries', () => {
  it('waits exponentially longer after each attempt, half fixed and half jitter, at most 10 minutes', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, () => 0))).toEqual([500, 1000, 2000, 4000]);
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 1000, () => 1))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelayMs(30, 1000, () => 1)).toBe(600_000);
  });

  it('retries infrastructure failures, never a refused entry', () => {
    expect(isTransient(new Error('connection terminated'))).toBe(true);
    expect(isTransient(new DomainError('INTERNAL', 'Bundle.entry[0] could not be processed.'))).toBe(true);
    expect(isTransient(new DomainError('VALIDATION_ERROR', 'Patient.gender'))).toBe(false);
    expect(isTransient(new DomainError('PRECONDITION_FAILED', 'several matches'))).toBe(false);
  });
});

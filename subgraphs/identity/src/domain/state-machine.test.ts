import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { IDENTITY_STATUSES } from './enums.js';
import { INITIAL_STATUSES, STATUS_TRANSITIONS, assertTransition, canTransition, nextStatuses } from './state-machine.js';

describe('identity status state machine', () => {
  it.each([
    ['SHADOW', 'ACTIVE'],
    ['PROVISIONAL', 'ACTIVE'],
    ['SPLIT', 'ACTIVE'],
    ['CONFLICT', 'ACTIVE'],
    ['ACTIVE', 'CONFLICT'],
    ['SHADOW', 'CONFLICT'],
    ['ACTIVE', 'MERGED'],
    ['CONFLICT', 'MERGED'],
    ['MERGED', 'SPLIT'],
  ] as const)('allows %s → %s', (from, to) => {
    expect(canTransition(from, to)).toBe(true);
    expect(() => assertTransition(from, to)).not.toThrow();
  });

  it.each([
    ['ACTIVE', 'SHADOW'],
    ['ACTIVE', 'PROVISIONAL'],
    ['MERGED', 'ACTIVE'],
    ['SPLIT', 'SHADOW'],
    ['CONFLICT', 'SHADOW'],
    ['ACTIVE', 'ACTIVE'],
  ] as const)('refuses %s → %s with a 409 DomainError', (from, to) => {
    expect(canTransition(from, to)).toBe(false);
    try {
      assertTransition(from, to);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      expect((error as DomainError).code).toBe('CONFLICT');
      expect((error as DomainError).status).toBe(409);
      expect((error as DomainError).details).toMatchObject({ from, to });
    }
  });

  it('checks the trigger when given', () => {
    expect(canTransition('SHADOW', 'ACTIVE', 'dual_verification')).toBe(true);
    expect(canTransition('CONFLICT', 'ACTIVE', 'dual_verification')).toBe(false);
    expect(() => assertTransition('CONFLICT', 'ACTIVE', 'dual_verification')).toThrow(DomainError);
    expect(canTransition('CONFLICT', 'ACTIVE', 'review_confirmed')).toBe(true);
  });

  it('is data over the six statuses', () => {
    for (const rule of STATUS_TRANSITIONS) {
      expect(IDENTITY_STATUSES).toContain(rule.from);
      expect(IDENTITY_STATUSES).toContain(rule.to);
      expect(rule.from).not.toBe(rule.to);
    }
    expect(Object.keys(INITIAL_STATUSES).sort()).toEqual(['CONFLICT', 'PROVISIONAL', 'SHADOW', 'SPLIT']);
    expect(nextStatuses('MERGED')).toEqual(['SPLIT']);
    // Every status is reachable and can be left, MERGED only by an undo.
    for (const status of IDENTITY_STATUSES) expect(nextStatuses(status).length).toBeGreaterThan(0);
  });
});

import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import {
  APPLICATION_STATUSES,
  applyApplicationAction,
  assertTransition,
  canTransition,
  isApplicationEditable,
  transitionsFrom,
} from './application-status.js';

function caught(run: () => unknown): DomainError {
  try {
    run();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

describe('application lifecycle', () => {
  it('allows exactly the documented transitions', () => {
    const allowed = APPLICATION_STATUSES.flatMap((from) => APPLICATION_STATUSES.filter((to) => canTransition(from, to)).map((to) => `${from}->${to}`));
    expect(allowed.sort()).toEqual(['draft->submitted', 'submitted->approved', 'submitted->draft', 'submitted->rejected']);
  });

  it('returns the transition or refuses with CONFLICT', () => {
    expect(assertTransition('draft', 'submitted').action).toBe('submit');
    const error = caught(() => assertTransition('approved', 'draft'));
    expect(error.code).toBe('CONFLICT');
    expect(error.status).toBe(409);
    expect(error.details).toEqual({ application_status: 'approved', allowed_actions: [] });
    expect(caught(() => assertTransition('draft', 'approved')).details).toEqual({ application_status: 'draft', allowed_actions: ['submit'] });
  });

  it('applies actions and requires reasons where documented', () => {
    expect(applyApplicationAction('draft', 'submit')).toBe('submitted');
    expect(applyApplicationAction('submitted', 'approve')).toBe('approved');
    expect(applyApplicationAction('submitted', 'return_for_changes', 'The NPI belongs to another organization.')).toBe('draft');
    const missing = caught(() => applyApplicationAction('submitted', 'reject', '  '));
    expect(missing.code).toBe('VALIDATION_ERROR');
    expect(missing.fieldErrors[0]?.field).toBe('reason');
    expect(caught(() => applyApplicationAction('rejected', 'submit')).code).toBe('CONFLICT');
  });

  it('lets only drafts be edited', () => {
    expect(APPLICATION_STATUSES.filter(isApplicationEditable)).toEqual(['draft']);
    expect(transitionsFrom('submitted').map((transition) => transition.action)).toEqual(['return_for_changes', 'approve', 'reject']);
  });
});

import { describe, expect, it } from 'vitest';
import { DomainError, httpStatusFor, problemFor, validationError } from './errors.js';
import { operationOutcomeFor } from './operation-outcome.js';

describe('errors: one code → status mapper', () => {
  it('maps codes to statuses, unknown codes to 500', () => {
    expect(httpStatusFor('NOT_FOUND')).toBe(404);
    expect(httpStatusFor('RATE_LIMITED')).toBe(429);
    expect(httpStatusFor('INSUFFICIENT_SCOPE')).toBe(403);
    expect(httpStatusFor('SOMETHING_ELSE')).toBe(500);
    expect(new DomainError('CONFLICT', 'x').status).toBe(409);
  });

  it('renders RFC 9457 problem documents with our code and field errors', () => {
    const err = validationError([{ field: 'contact.email', message: 'must be an email address' }]);
    expect(problemFor(err.code, err.message, { instance: '/cms/tokens', requestId: 'req_1', fieldErrors: err.fieldErrors })).toEqual({
      type: '/problems/validation-error',
      title: 'Unprocessable Content',
      status: 422,
      detail: 'The request has invalid fields.',
      code: 'VALIDATION_ERROR',
      instance: '/cms/tokens',
      request_id: 'req_1',
      errors: [{ field: 'contact.email', message: 'must be an email address' }],
    });
  });

  it('renders FHIR errors as OperationOutcome, one issue per field', () => {
    expect(operationOutcomeFor('NOT_FOUND', 'Patient/1 is not known')).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'not-found', details: { coding: [{ system: 'urn:svc:error-code', code: 'NOT_FOUND' }], text: 'NOT_FOUND' }, diagnostics: 'Patient/1 is not known' }],
    });
    const outcome = operationOutcomeFor('VALIDATION_ERROR', 'bad', [{ field: 'name', message: 'required' }, { field: 'birthDate', message: 'invalid' }]);
    expect((outcome['issue'] as unknown[]).length).toBe(2);
  });
});

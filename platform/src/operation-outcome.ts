import { httpStatusFor, type FieldError } from './errors.js';

/** FHIR issue-type codes (http://hl7.org/fhir/issue-type) for our error codes. */
const ISSUE_TYPE: Record<string, string> = {
  BAD_REQUEST: 'invalid',
  VALIDATION_ERROR: 'invalid',
  UNAUTHENTICATED: 'login',
  INVALID_TOKEN: 'login',
  FORBIDDEN: 'forbidden',
  INSUFFICIENT_SCOPE: 'forbidden',
  NOT_FOUND: 'not-found',
  GONE: 'deleted',
  CONFLICT: 'conflict',
  PRECONDITION_FAILED: 'conflict',
  RATE_LIMITED: 'throttled',
  NOT_IMPLEMENTED: 'not-supported',
  METHOD_NOT_ALLOWED: 'not-supported',
  UNSUPPORTED_MEDIA_TYPE: 'not-supported',
  PAYLOAD_TOO_LARGE: 'too-costly',
  URI_TOO_LONG: 'too-long',
  HEADERS_TOO_LARGE: 'too-long',
  UPSTREAM_UNAVAILABLE: 'transient',
};

/** An error as the FHIR API reports it: an OperationOutcome, one issue per problem. */
export function operationOutcomeFor(code: string, message: string, fieldErrors: readonly FieldError[] = []): Record<string, unknown> {
  const severity = httpStatusFor(code) >= 500 ? 'fatal' : 'error';
  const issueCode = ISSUE_TYPE[code] ?? 'exception';
  const details = { coding: [{ system: 'urn:svc:error-code', code }], text: code };
  const issues =
    fieldErrors.length > 0
      ? fieldErrors.map((f) => ({ severity, code: issueCode, details, diagnostics: `${f.field}: ${f.message}`, expression: [f.field] }))
      : [{ severity, code: issueCode, details, diagnostics: message }];
  return { resourceType: 'OperationOutcome', issue: issues };
}

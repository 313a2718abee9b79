import { DomainError, type ErrorCode } from '@svc/platform';

/** The error codes of RFC 6749 §5.2 the token endpoint answers with. */
export type OAuthErrorCode = 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope';

// invalid_client is a 401 (the client failed to authenticate); the others are 400s (RFC 6749 §5.2).
const PLATFORM_CODE: Record<OAuthErrorCode, ErrorCode> = {
  invalid_request: 'BAD_REQUEST',
  invalid_client: 'UNAUTHENTICATED',
  invalid_grant: 'BAD_REQUEST',
  unauthorized_client: 'BAD_REQUEST',
  unsupported_grant_type: 'BAD_REQUEST',
  invalid_scope: 'BAD_REQUEST',
};

/**
 * A token-endpoint failure: a DomainError whose `oauth_error` detail carries the RFC 6749 code, so
 * GraphQL callers see it in `extensions` and the REST facade renders `{ error, error_description }`.
 */
export function oauthError(error: OAuthErrorCode, description: string, details: Record<string, unknown> = {}): DomainError {
  return new DomainError(PLATFORM_CODE[error], description, { details: { oauth_error: error, ...details } });
}

/** A client-registration failure (RFC 7591 §3.2.2 `invalid_client_metadata`), as a 422 with field errors. */
export function invalidClientMetadata(field: string, message: string): DomainError {
  const description = `The client metadata is invalid: ${field} ${message}.`;
  return new DomainError('VALIDATION_ERROR', description, {
    fieldErrors: [{ field, message }],
    details: { error: 'invalid_client_metadata', error_description: description },
  });
}

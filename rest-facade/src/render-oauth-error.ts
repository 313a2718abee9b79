import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DomainError } from '@svc/platform';

/** RFC 6749 §5.2 error codes, by our error code, for errors that did not name one themselves. */
function oauthErrorCode(error: DomainError): string {
  const named = error.details['oauth_error'];
  if (typeof named === 'string') return named;
  switch (error.code) {
    case 'UNAUTHENTICATED':
    case 'INVALID_TOKEN':
      return 'invalid_client';
    case 'RATE_LIMITED':
    case 'UPSTREAM_UNAVAILABLE':
    case 'NOT_READY':
      return 'temporarily_unavailable';
    case 'INTERNAL':
    case 'NOT_IMPLEMENTED':
      return 'server_error';
    default:
      return 'invalid_request';
  }
}

/** HTTP status of an OAuth error: 401 for invalid_client, 400 for the other RFC 6749 codes, else the error's own. */
function oauthStatus(code: string, error: DomainError): number {
  if (code === 'invalid_client') return 401;
  if (['invalid_request', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope'].includes(code)) return 400;
  return error.status;
}

/**
 * Write an error the way an OAuth 2.0 token endpoint must (RFC 6749 §5.2): `{ error,
 * error_description }` as JSON, never cached. invalid_client is a 401 naming the Basic scheme in
 * WWW-Authenticate, which RFC 6749 §5.2 requires when the client tried Basic and allows otherwise.
 */
export function sendOAuthError(_req: FastifyRequest, reply: FastifyReply, error: DomainError): FastifyReply {
  const code = oauthErrorCode(error);
  const status = oauthStatus(code, error);
  reply.code(status).header('cache-control', 'no-store').header('pragma', 'no-cache');
  if (code === 'invalid_client') reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
  return reply.type('application/json; charset=utf-8').send({ error: code, error_description: error.message });
}

import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldError } from '../errors.js';
import { sendErrorDocument } from './http-errors.js';

/** Credentials no route takes in its query string: a URL is logged, cached and shown in browser history. */
const CREDENTIAL_PARAMETERS = ['access_token', 'refresh_token', 'client_secret', 'client_assertion', 'password', 'portal_password'];
/** RFC 6749 §2.3.1: client credentials travel in the body or the Authorization header, never in the URI. */
const CLIENT_PARAMETERS = ['client_id', 'client_secret', 'client_assertion', 'client_assertion_type'];

const TOKEN_ENDPOINT = '/oauth/token';

function queryNames(url: string): Set<string> {
  const mark = url.indexOf('?');
  if (mark < 0) return new Set();
  return new Set(new URLSearchParams(url.slice(mark + 1)).keys());
}

function sendOAuthInvalidRequest(req: FastifyRequest, reply: FastifyReply, description: string): FastifyReply {
  return reply
    .code(400)
    .header('x-request-id', String(req.id))
    .header('cache-control', 'no-store')
    .header('pragma', 'no-cache')
    .type('application/json; charset=utf-8')
    .send({ error: 'invalid_request', error_description: description });
}

/** Why a URL's query string is refused, as the answer to send: OAuth `invalid_request`, or a problem document. */
export type QueryCredentialRefusal =
  | { kind: 'oauth'; description: string }
  | { kind: 'problem'; code: 'BAD_REQUEST'; detail: string; fieldErrors: FieldError[] };

/**
 * The credential-parameter rule, for any request target (HTTP request or WebSocket upgrade):
 * - `?access_token=`: RFC 6750 §2.3 allows it, we do not support it: ask for the Authorization header;
 * - client credentials in the /oauth/token URI, which RFC 6749 §2.3.1 forbids: OAuth `invalid_request`;
 * - any other credential parameter (client_secret, password, …) anywhere: no route takes one.
 * Null when the URL carries none.
 */
export function queryCredentialRefusal(url: string): QueryCredentialRefusal | null {
  const names = queryNames(url);
  if (names.size === 0) return null;
  const path = url.split('?')[0];
  if (path === TOKEN_ENDPOINT) {
    const found = [...CLIENT_PARAMETERS, ...CREDENTIAL_PARAMETERS].filter((n) => names.has(n));
    if (found.length > 0) {
      return { kind: 'oauth', description: `${found.join(', ')} must not be sent in the URI (RFC 6749 section 2.3.1): send them in the form body or the Authorization header.` };
    }
    return null;
  }
  if (names.has('access_token')) {
    return {
      kind: 'problem',
      code: 'BAD_REQUEST',
      detail: 'Send the bearer token in the Authorization header (Authorization: Bearer <token>); an access_token query parameter is not accepted.',
      fieldErrors: [{ field: 'access_token', message: 'is not accepted in the query string; use the Authorization header' }],
    };
  }
  const found = CREDENTIAL_PARAMETERS.filter((n) => names.has(n));
  if (found.length > 0) {
    return {
      kind: 'problem',
      code: 'BAD_REQUEST',
      detail: `Credentials are not accepted in the query string (${found.join(', ')}); send them in the request body or the Authorization header.`,
      fieldErrors: found.map((field) => ({ field, message: 'is not accepted in the query string' })),
    };
  }
  return null;
}

/**
 * Refuse credentials in query strings (see `queryCredentialRefusal`), before authentication or
 * routing runs: problem+json (OperationOutcome under /fhir/R4), or OAuth `invalid_request` at the
 * token endpoint. The request line is still logged, with those values redacted (see
 * log-redaction.ts). WebSocket upgrades do not pass Fastify hooks: the gateway applies the same
 * rule in its `upgrade` handler.
 */
export function refuseCredentialsInQuery(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    const refusal = queryCredentialRefusal(req.url);
    if (!refusal) return;
    if (refusal.kind === 'oauth') return sendOAuthInvalidRequest(req, reply, refusal.description);
    return sendErrorDocument(req, reply, refusal.code, refusal.detail, { fieldErrors: refusal.fieldErrors });
  });
}

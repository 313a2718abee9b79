import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, operationOutcomeFor, problemFor, type FieldError } from '@svc/platform';

import { isFhirPath } from '@svc/platform';

/** FHIR paths speak OperationOutcome; everything else speaks RFC 9457 problem+json. */
export { isFhirPath };

/** Send an error in the dialect of the path it happened on. */
export function sendError(
  req: FastifyRequest,
  reply: FastifyReply,
  code: string,
  detail: string,
  extras: { fieldErrors?: readonly FieldError[]; details?: Record<string, unknown> } = {},
): FastifyReply {
  const problem = problemFor(code, detail, { instance: req.url.split('?')[0] ?? req.url, requestId: String(req.id), ...extras });
  reply.code(problem.status);
  if (problem.status === 401) reply.header('www-authenticate', code === 'INVALID_TOKEN' ? 'Bearer error="invalid_token"' : 'Bearer');
  if (isFhirPath(req.url)) {
    return reply.type('application/fhir+json; charset=utf-8').send(operationOutcomeFor(code, detail, extras.fieldErrors));
  }
  return reply.type('application/problem+json; charset=utf-8').send(problem);
}

export function sendDomainError(req: FastifyRequest, reply: FastifyReply, error: DomainError): FastifyReply {
  return sendError(req, reply, error.code, error.message, { fieldErrors: error.fieldErrors, details: { ...error.details } });
}

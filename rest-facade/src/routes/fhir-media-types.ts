import { DomainError } from '@svc/platform';
import type { RouteInput } from './route.js';

/**
 * The media types a FHIR resource body may be sent in (R4 http.html, "Content Types and
 * encodings"): application/fhir+json, plus application/json and the pre-STU3
 * application/json+fhir, which servers are encouraged to keep accepting.
 */
export const FHIR_JSON_MEDIA_TYPES: readonly string[] = ['application/fhir+json', 'application/json', 'application/json+fhir'];

/**
 * A resource body in any other media type (text/plain, a form, XML) is 415 with an
 * OperationOutcome naming Content-Type, decided before the body is looked at: Fastify parses
 * text/plain and forms itself, so without this they would reach the shape check as a 400.
 */
export function assertFhirJsonBody(input: RouteInput): void {
  const value = input.headers['content-type'];
  const raw = Array.isArray(value) ? value[0] : value;
  const type = raw ? (raw.split(';')[0]?.trim().toLowerCase() ?? '') : null;
  if (type === null || FHIR_JSON_MEDIA_TYPES.includes(type)) return;
  throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `Content-Type ${type} is not supported for a FHIR resource: send ${FHIR_JSON_MEDIA_TYPES.join(', ')}.`, {
    fieldErrors: [{ field: 'Content-Type', message: `one of ${FHIR_JSON_MEDIA_TYPES.join(', ')}` }],
  });
}


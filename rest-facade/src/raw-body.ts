import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bodyTooDeep, jsonNestedDeeperThan, refuseDeepJson } from '@svc/platform';

/**
 * The text of each JSON request body, kept beside the parsed value. FHIR writes send it on as is
 * (`resourceText`), so the subgraph sees every number exactly as the client wrote it: parsing into
 * JavaScript numbers would turn the decimal `125.00` into `125` (R4 makes the written precision
 * significant) and round integers beyond 2^53.
 */
const rawBodies = new WeakMap<FastifyRequest, string>();

export function rawBodyOf(req: FastifyRequest): string | undefined {
  return rawBodies.get(req);
}

/**
 * JSON bodies (application/json with Fastify's own parser and its prototype-poisoning checks,
 * application/fhir+json, its pre-STU3 name application/json+fhir, which R4 http.html lets servers
 * keep accepting, and application/json-patch+json) parsed as before, their text kept; one
 * nested deeper than MAX_JSON_DEPTH is a 400 before anything walks it.
 */
export function parseJsonKeepingText(app: FastifyInstance): void {
  refuseDeepJson(app, (req, text) => rawBodies.set(req, text));
  app.addContentTypeParser(['application/fhir+json', 'application/json+fhir', 'application/json-patch+json'], { parseAs: 'string' }, (req, body, done) => {
    if (jsonNestedDeeperThan(body as string)) return done(bodyTooDeep(), undefined);
    try {
      const value: unknown = body === '' ? undefined : JSON.parse(body as string);
      if (body !== '') rawBodies.set(req, body as string);
      done(null, value);
    } catch {
      done(Object.assign(new Error('The body is not valid JSON.'), { statusCode: 400 }), undefined);
    }
  });
}

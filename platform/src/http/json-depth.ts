import type { FastifyInstance, FastifyRequest } from 'fastify';

/**
 * How deep a request body may nest objects and arrays. The official R4 examples reach 22 levels (a
 * GraphQL request adds three); much deeper is no resource, and every walk of a value (validation,
 * indexing, exact numbers, JSON.stringify on the way to a subgraph) would exhaust the stack on it.
 */
export const MAX_JSON_DEPTH = 100;

/** The message of the 400 for a body nested deeper than MAX_JSON_DEPTH. */
const TOO_DEEP = `The body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels.`;

/** In JSON text, the index of the quote closing the string that opens at `start` (the text's length when none does). */
export function jsonStringEnd(text: string, start: number): number {
  let i = start + 1;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) break;
  }
  return i;
}

/** Whether JSON text nests objects and arrays deeper than `max`: one pass, brackets inside strings not counted. */
export function jsonNestedDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = jsonStringEnd(text, i);
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/** A body error Fastify answers with 400 (a problem document, an OperationOutcome on FHIR routes). */
export function bodyTooDeep(): Error {
  return Object.assign(new Error(TOO_DEEP), { statusCode: 400 });
}

/**
 * application/json bodies parsed by Fastify's own parser (prototype-poisoning checks included),
 * once their nesting is checked; `keepText` sees the text of each body it parses.
 */
export function refuseDeepJson(app: FastifyInstance, keepText?: (req: FastifyRequest, text: string) => void): void {
  const defaultJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (jsonNestedDeeperThan(body as string)) return done(bodyTooDeep(), undefined);
    keepText?.(req, body as string);
    defaultJson(req, body as string, done);
  });
}

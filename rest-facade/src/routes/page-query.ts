import { decodeOptionalCursor, invalidCursor, isId, MAX_PAGE_SIZE, validationError, type FieldError, type IdPrefix } from '@svc/platform';
import type { JsonSchema, RouteInput } from './route.js';

/**
 * `?limit=&cursor=` of a paged list route, checked before the gateway is called: an unknown
 * parameter, a limit out of range or a cursor this API did not issue is the caller's error, by name.
 * `cursor` is the `next_cursor` of the previous page (the GraphQL connection's endCursor); `cursorKey`
 * is the id prefix of the rows it points at, or a check of its key for rows keyed otherwise.
 */
export function readPage(
  query: RouteInput['query'],
  options: { known: readonly string[]; cursorKey: IdPrefix | ((key: string) => boolean) },
): { first: number; after: string | null; errors: FieldError[] } {
  const known = new Set(['limit', 'cursor', ...options.known]);
  const errors: FieldError[] = [];
  for (const key of Object.keys(query)) if (!known.has(key)) errors.push({ field: key, message: `is not a parameter of this route (known: ${[...known].join(', ')})` });
  const rawLimit = query['limit'];
  let first = 20;
  if (Array.isArray(rawLimit)) errors.push({ field: 'limit', message: 'must be given once' });
  else if (rawLimit !== undefined) {
    first = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || first < 1 || first > MAX_PAGE_SIZE) errors.push({ field: 'limit', message: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
  }
  const rawCursor = query['cursor'];
  if (rawCursor !== undefined && typeof rawCursor !== 'string') throw invalidCursor('cursor');
  const after = rawCursor === undefined || rawCursor === '' ? null : rawCursor;
  const { cursorKey } = options;
  const isKey = typeof cursorKey === 'function' ? cursorKey : (key: string) => isId(cursorKey, key);
  if (after !== null) decodeOptionalCursor(after, { argument: 'cursor', isKey });
  return { first, after, errors };
}

/** Throw the collected field errors as one 422. */
export function failOn(errors: readonly FieldError[]): void {
  if (errors.length > 0) throw validationError([...errors], 'The query is invalid.');
}

/** OpenAPI description of `limit` and `cursor`. */
export const PAGE_PARAMETERS: Record<string, { schema: JsonSchema; description: string }> = {
  limit: { schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, default: 20 }, description: 'Items per page.' },
  cursor: { schema: { type: 'string' }, description: 'next_cursor of the previous page.' },
};

/** `{ items, next_cursor }` from a GraphQL connection. */
export function pageBody<T>(connection: { edges: { node: T }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } }, map: (node: T) => unknown): { items: unknown[]; next_cursor: string | null } {
  return { items: connection.edges.map((e) => map(e.node)), next_cursor: connection.pageInfo.hasNextPage ? connection.pageInfo.endCursor : null };
}

import { DomainError } from '../errors.js';

/** Relay cursors are opaque to clients: base64url of the sort key. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

/** The longest cursor we accept: far above any we issue (a 30-character id is 40 characters). */
export const MAX_CURSOR_LENGTH = 200;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** Every key we issue is printable ASCII without spaces; anything else was not issued here. */
const PRINTABLE_KEY = /^[\x21-\x7e]{1,128}$/;

export interface CursorOptions {
  /** The argument the cursor came in (`after`, `before`, or `cursor` on REST): named in the error. */
  argument?: string;
  /** Whether a decoded key has the shape of this list's sort key (an id with its prefix, a number…). */
  isKey?: (key: string) => boolean;
}

/** The error for a cursor this API did not issue: a 400 that names the argument it came in. */
export function invalidCursor(argument: string): DomainError {
  return new DomainError('BAD_REQUEST', `${argument}: the cursor is not one this API issued; pass an endCursor from a previous page.`, {
    fieldErrors: [{ field: argument, message: 'is not a cursor this API issued' }],
  });
}

/**
 * Decode a cursor back into its sort key. Anything this API did not issue (not base64url, empty,
 * too long, control characters such as a NUL byte, a key of the wrong shape) is a BAD_REQUEST
 * naming the argument, before it can reach a query.
 */
export function decodeCursor(cursor: string, options: CursorOptions = {}): string {
  const argument = options.argument ?? 'after';
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !BASE64URL.test(cursor)) throw invalidCursor(argument);
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!PRINTABLE_KEY.test(key) || encodeCursor(key) !== cursor) throw invalidCursor(argument);
  if (options.isKey && !options.isKey(key)) throw invalidCursor(argument);
  return key;
}

/** Decode an optional cursor argument: absent (null or undefined) is no cursor; an empty string is malformed. */
export function decodeOptionalCursor(cursor: string | null | undefined, options: CursorOptions = {}): string | null {
  return cursor === null || cursor === undefined ? null : decodeCursor(cursor, options);
}

export const MAX_PAGE_SIZE = 100;

/** Validate `first`, defaulting it; a page is never larger than MAX_PAGE_SIZE. */
export function pageSize(first: number | null | undefined, fallback = 20): number {
  if (first === null || first === undefined) return fallback;
  if (!Number.isInteger(first) || first < 1 || first > MAX_PAGE_SIZE) {
    throw new DomainError('BAD_REQUEST', `first must be between 1 and ${MAX_PAGE_SIZE}.`);
  }
  return first;
}

export interface Page<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
}

/** Build a page from `size + 1` rows fetched after the cursor: the extra row only says there is more. */
export function toPage<T>(rows: readonly T[], size: number, keyOf: (row: T) => string): Page<T> {
  const nodes = rows.slice(0, size);
  const edges = nodes.map((node) => ({ cursor: encodeCursor(keyOf(node)), node }));
  return { edges, pageInfo: { hasNextPage: rows.length > size, endCursor: edges.at(-1)?.cursor ?? null } };
}

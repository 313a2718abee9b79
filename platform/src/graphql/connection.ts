import { DomainError } from '../errors.js';

/** Relay cursors are opaque to clients: base64url of the sort key. */
export function encodeCursor(key: string): string {
  return Buffer.from(key, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (key === '' || encodeCursor(key) !== cursor) throw new DomainError('BAD_REQUEST', 'The cursor is not one this API issued.');
  return key;
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

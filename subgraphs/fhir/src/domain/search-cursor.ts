import { DomainError } from '@svc/platform';

/** One sort value of a row: a string, a number, or null when the resource has no value for the key. */
export type SortValue = string | number | null;

/** Where a page starts: the sort values, lastUpdated and id of the row next to it, and the direction. */
export interface PageCursor {
  /** The `_sort` text the cursor was made for (a cursor of another ordering is refused). */
  sort: string;
  keys: SortValue[];
  lastUpdated: string;
  id: string;
  /** `next`: rows after this position; `prev`: rows before it (the page then reads back in order). */
  direction: 'next' | 'prev';
}

/** The position of one row in the search order, as runSearch reports it. */
export interface RowPosition {
  keys: SortValue[];
  lastUpdated: string;
  id: string;
}

const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z$/;
const ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** The opaque `_cursor` value: base64url of a small JSON array. */
export function encodeCursor(sort: string, position: RowPosition, direction: 'next' | 'prev'): string {
  return Buffer.from(JSON.stringify([1, sort, position.keys, position.lastUpdated, position.id, direction === 'next' ? 'n' : 'p']), 'utf8').toString('base64url');
}

function invalid(param: string): DomainError {
  return new DomainError('BAD_REQUEST', `Search parameter ${param}: not a cursor this server issued for this search (use the links of a search Bundle).`, {
    fieldErrors: [{ field: param, message: 'invalid or altered cursor' }],
  });
}

/**
 * Decode and validate a cursor for a search sorted by `sort` with `keyCount` sort keys; anything
 * garbled, forged or made for another ordering is a 400 naming `param`. A well-formed cursor only
 * positions the page: the search's own criteria and tenancy still decide what is found.
 */
export function decodeCursor(raw: string, sort: string, keyCount: number, param = '_cursor'): PageCursor {
  if (!/^[A-Za-z0-9_-]{1,4096}$/.test(raw)) throw invalid(param);
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalid(param);
  }
  if (!Array.isArray(parsed) || parsed.length !== 6) throw invalid(param);
  const [version, cursorSort, keys, lastUpdated, id, direction] = parsed as unknown[];
  const keysOk = Array.isArray(keys) && keys.length === keyCount && keys.every((k) => k === null || (typeof k === 'string' && k.length <= 1024) || (typeof k === 'number' && Number.isFinite(k)));
  if (version !== 1 || cursorSort !== sort || !keysOk || typeof lastUpdated !== 'string' || !INSTANT.test(lastUpdated) || typeof id !== 'string' || !ID.test(id) || (direction !== 'n' && direction !== 'p')) {
    throw invalid(param);
  }
  return { sort, keys: keys as SortValue[], lastUpdated, id, direction: direction === 'n' ? 'next' : 'prev' };
}

/** The sort text of history cursors: a search cursor can never be replayed on history, nor the reverse. */
const HISTORY_SORT = '_history';

/** A history page's `_cursor`: the position of the version next to the page, and the direction. */
export function encodeHistoryCursor(position: { lastUpdated: string; id: string; versionId: number }, direction: 'next' | 'prev'): string {
  return encodeCursor(HISTORY_SORT, { keys: [position.versionId], lastUpdated: position.lastUpdated, id: position.id }, direction);
}

/** Decode a history `_cursor`; anything garbled, forged or made for a search is a 400 naming `_cursor`. */
export function decodeHistoryCursor(raw: string): { lastUpdated: string; id: string; versionId: number; direction: 'next' | 'prev' } {
  const cursor = decodeCursor(raw, HISTORY_SORT, 1);
  const versionId = cursor.keys[0];
  if (typeof versionId !== 'number' || !Number.isInteger(versionId) || versionId < 1) {
    throw new DomainError('BAD_REQUEST', 'Search parameter _cursor: not a cursor this server issued for this history (use the links of a history Bundle).', { fieldErrors: [{ field: '_cursor', message: 'invalid or altered cursor' }] });
  }
  return { lastUpdated: cursor.lastUpdated, id: cursor.id, versionId, direction: cursor.direction };
}

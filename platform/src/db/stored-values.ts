/**
 * Values as the two drivers hand them back from raw queries: PostgreSQL parses dates and JSON,
 * SQLite gives epoch milliseconds (how MikroORM writes dates there) and text. Read paths that skip
 * the ORM for plain rows decode their columns with these.
 */

/** A stored date (Date, epoch milliseconds as a number, bigint or digits, or ISO text) as a Date. */
export function storedDate(value: unknown): Date {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  if (typeof value === 'bigint') return new Date(Number(value));
  if (typeof value === 'string') return /^\d+$/.test(value) ? new Date(Number(value)) : new Date(value);
  throw new TypeError(`Not a stored date: ${String(value)}`);
}

/** A nullable stored date. */
export function storedDateOrNull(value: unknown): Date | null {
  return value === null || value === undefined ? null : storedDate(value);
}

/** A stored JSON column (parsed by the PostgreSQL driver, text on SQLite). */
export function storedJson<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

/** The rows of a raw query, whichever driver answered (PostgreSQL: `{ rows }`, SQLite: an array). */
export function rowsOf<T>(result: unknown): T[] {
  if (Array.isArray(result)) return result as T[];
  return ((result as { rows?: T[] }).rows ?? []) as T[];
}

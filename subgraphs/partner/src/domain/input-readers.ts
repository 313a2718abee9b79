/**
 * Small readers for untrusted JSON-like input (REST bodies, GraphQL input objects, saved drafts).
 * They never throw: each returns `undefined` when the value has the wrong shape, and the caller
 * turns that into a field error with its own wording.
 */

/** The value as a plain object, or `undefined` for arrays, null and primitives. */
export function asRecord(value: unknown): Readonly<Record<string, unknown>> | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return value as Readonly<Record<string, unknown>>;
}

/** True when the value is absent: `undefined`, `null`, or a string that is empty after trimming. */
export function isBlank(value: unknown): boolean {
  return value === undefined || value === null || (typeof value === 'string' && value.trim() === '');
}

/** Length in Unicode code points, so an emoji or an accented letter counts once. */
export function codePointLength(value: string): number {
  return [...value].length;
}

/** Trim and collapse internal runs of whitespace to one space. */
export function normalizeSpaces(value: string): string {
  return value.trim().replace(/\s+/gu, ' ');
}

/**
 * Splits a list into consecutive chunks of at most `size` items: multi-row statements stay under
 * the bound-parameter limits of SQLite (32,766) and PostgreSQL (65,535).
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

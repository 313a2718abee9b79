/**
 * Contact phone numbers. Two forms are accepted, with any spaces, dots, hyphens and parentheses:
 * - international E.164: `+` then a country code and subscriber number, 8 to 15 digits in all;
 * - North American national numbers (the platform's home numbering plan): 10 digits, optionally
 *   preceded by the trunk prefix 1, such as `(202) 555-0143`.
 * Numbers from other countries must be written with their `+` country code. The stored form is E.164.
 */

const SEPARATORS = /[\s().-]/gu;

/** The number in E.164 form (`+12025550143`), or `undefined` when it is not a usable number. */
export function normalizePhone(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const compact = value.trim().replace(SEPARATORS, '');
  if (/^\+[1-9]\d{7,14}$/u.test(compact)) return compact;
  const national = /^1?([2-9]\d{2}[2-9]\d{6})$/u.exec(compact);
  if (national?.[1]) return `+1${national[1]}`;
  return undefined;
}

/** True when `value` is a number {@link normalizePhone} accepts. */
export function isValidPhone(value: unknown): value is string {
  return normalizePhone(value) !== undefined;
}

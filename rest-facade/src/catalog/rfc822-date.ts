/**
 * Dates in the RFC 822 form used by RSS 2.0 `pubDate` and `lastBuildDate`, with a four-digit year
 * as RFC 1123 and the RSS specification recommend: `Tue, 25 Aug 2026 00:00:00 GMT`.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const pad = (value: number): string => String(value).padStart(2, '0');

/**
 * Format an instant in RFC 822 form, in GMT.
 * @throws RangeError for an invalid date.
 */
export function formatRfc822(date: Date): string {
  if (Number.isNaN(date.getTime())) throw new RangeError('Cannot format an invalid date.');
  const day = DAYS[date.getUTCDay()];
  const month = MONTHS[date.getUTCMonth()];
  const time = `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
  return `${day}, ${pad(date.getUTCDate())} ${month} ${date.getUTCFullYear()} ${time} GMT`;
}

/**
 * Read an ISO 8601 date (`2026-06-12`, taken as midnight UTC) or date-time with a zone
 * (`2026-06-12T09:30:00Z`).
 * @throws RangeError when the text is not such a date.
 */
export function parseIsoDate(text: string): Date {
  const dateOnly = /^(\d{4})-(\d{2})-(\d{2})$/u.exec(text);
  const date = dateOnly ? new Date(`${text}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T[\d:.]+(?:Z|[+-]\d{2}:\d{2})$/u.test(text) ? new Date(text) : undefined;
  if (!date || Number.isNaN(date.getTime())) throw new RangeError(`Not an ISO 8601 date: ${text}`);
  // Reject dates the Date constructor silently rolls over, such as 2026-02-30.
  if (dateOnly && date.toISOString().slice(0, 10) !== text) throw new RangeError(`Not a calendar date: ${text}`);
  return date;
}

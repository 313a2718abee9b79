/**
 * Date-of-birth parsing. Accepted forms (surrounding spaces ignored, case-insensitive):
 *
 *   1980-03-04, 1980/03/04, 1980.03.04, 1980-3-4      year first: always Y-M-D
 *   1980-03-04T00:00:00Z                              an ISO timestamp: its date part
 *   19800304                                          compact Y M D
 *   03/04/1980, 3-4-1980                              slash or dash, year last: see below
 *   04.03.1980                                        dots, year last: D.M.Y (European)
 *   March 4, 1980 · Mar 4 1980 · Mar. 4th, 1980       month name first
 *   4 March 1980 · 4 Mar 1980 · 04-MAR-1980           day first with a month name
 *   1980-Mar-04 · 1980 March 4                        year first with a month name
 *
 * Ambiguous day/month (both ≤ 12) with a slash or dash and the year last follows the configured
 * order, US month-first (MDY) by default; `dobOrder: 'DMY'` switches it for non-US feeds. When the
 * preferred reading is impossible and the other is possible (25/12/1980), the possible one is used.
 * Dotted dates are D.M.Y with the same fallback. Two-digit years are refused, as are impossible
 * dates (31 April, 29 February of a common year), dates in the future and years before 1880.
 * Because a day/month swap can still slip through, the matcher also indexes the swapped date.
 */

export interface CalendarDate {
  year: number;
  month: number;
  day: number;
}

export type DayMonthOrder = 'MDY' | 'DMY';

export interface DobParseOptions {
  /** Reading of ambiguous "a/b/yyyy" dates. Default 'MDY'. */
  order?: DayMonthOrder;
  /** The current instant, for the future-date check. Default: now. */
  now?: Date;
}

export type DobParseResult = { ok: true; date: CalendarDate } | { ok: false; message: string };

export const MIN_BIRTH_YEAR = 1880;

const MONTHS: Readonly<Record<string, number>> = {
  jan: 1, january: 1, feb: 2, february: 2, mar: 3, march: 3, apr: 4, april: 4, may: 5, jun: 6, june: 6,
  jul: 7, july: 7, aug: 8, august: 8, sep: 9, sept: 9, september: 9, oct: 10, october: 10,
  nov: 11, november: 11, dec: 12, december: 12,
};

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isRealDate(year: number, month: number, day: number): boolean {
  return Number.isInteger(year) && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** YYYY-MM-DD. */
export function formatIsoDate(date: CalendarDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/**
 * The same date with day and month exchanged, when that is a different real date (both ≤ 12 and
 * not equal); otherwise undefined.
 */
export function swapDayMonth(date: CalendarDate): CalendarDate | undefined {
  if (date.day > 12 || date.day === date.month) return undefined;
  return { year: date.year, month: date.day, day: date.month };
}

function finish(year: number, month: number, day: number, now: Date): DobParseResult {
  if (!isRealDate(year, month, day)) return { ok: false, message: 'is not a real calendar date' };
  if (year < MIN_BIRTH_YEAR) return { ok: false, message: `must not be before ${MIN_BIRTH_YEAR}` };
  const today = { y: now.getUTCFullYear(), m: now.getUTCMonth() + 1, d: now.getUTCDate() };
  const future = year > today.y || (year === today.y && (month > today.m || (month === today.m && day > today.d)));
  if (future) return { ok: false, message: 'must not be in the future' };
  return { ok: true, date: { year, month, day } };
}

/** Two numbers with the year last: preferred order first, the other if the preferred is impossible. */
function ambiguous(a: number, b: number, year: number, preferred: DayMonthOrder, now: Date): DobParseResult {
  const [month, day] = preferred === 'MDY' ? [a, b] : [b, a];
  if (isRealDate(year, month, day)) return finish(year, month, day, now);
  if (isRealDate(year, day, month)) return finish(year, day, month, now);
  return { ok: false, message: 'is not a real calendar date' };
}

/** Parses a date of birth in any of the documented forms. */
export function parseDob(input: string, options: DobParseOptions = {}): DobParseResult {
  const order = options.order ?? 'MDY';
  const now = options.now ?? new Date();
  const text = input.trim().toLowerCase();
  if (text === '') return { ok: false, message: 'is empty' };
  let m: RegExpExecArray | null;

  // Year first, numeric, optionally followed by a time part.
  if ((m = /^(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?:[t ][0-9:.+\-z ]*)?$/.exec(text))) {
    return finish(Number(m[1]), Number(m[3]), Number(m[4]), now);
  }
  if ((m = /^(\d{4})(\d{2})(\d{2})$/.exec(text))) {
    return finish(Number(m[1]), Number(m[2]), Number(m[3]), now);
  }
  // Year last, slash or dash: ambiguous, configured order.
  if ((m = /^(\d{1,2})([-/])(\d{1,2})\2(\d{4})$/.exec(text))) {
    return ambiguous(Number(m[1]), Number(m[3]), Number(m[4]), order, now);
  }
  // Year last, dots: European D.M.Y.
  if ((m = /^(\d{1,2})\.(\d{1,2})\.(\d{4})$/.exec(text))) {
    return ambiguous(Number(m[1]), Number(m[2]), Number(m[3]), 'DMY', now);
  }
  if (/^\d{1,2}[-/.]\d{1,2}[-/.]\d{2}$/.test(text)) {
    return { ok: false, message: 'needs a four-digit year' };
  }

  // Forms with a month name: three tokens, one of them a month.
  const tokens = text.split(/[\s,./-]+/).filter(Boolean).map((t) => t.replace(/(?<=\d)(st|nd|rd|th)$/, ''));
  if (tokens.length === 3) {
    const monthAt = tokens.findIndex((t) => MONTHS[t] !== undefined);
    if (monthAt >= 0) {
      const month = MONTHS[tokens[monthAt]!]!;
      const others = tokens.filter((_, i) => i !== monthAt);
      if (others.every((t) => /^\d+$/.test(t))) {
        const [first, second] = others as [string, string];
        // "March 4 1980" and "4 March 1980": the day comes before the year.
        // "1980 March 4": the year comes first.
        if (first.length === 4 && second.length <= 2) return finish(Number(first), month, Number(second), now);
        if (second.length === 4 && first.length <= 2) return finish(Number(second), month, Number(first), now);
        if (second.length === 2 || first.length === 2) return { ok: false, message: 'needs a four-digit year' };
      }
    }
  }
  return { ok: false, message: 'is not a recognised date format (use YYYY-MM-DD)' };
}

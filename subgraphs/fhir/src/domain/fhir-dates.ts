/**
 * FHIR date, dateTime and instant values as the closed UTC range they stand for, in fixed-width
 * ISO 8601 strings (`2024-03-01T00:00:00.000Z`), which compare and sort the same in SQL and in JS.
 * `2024` is the whole year, `2024-03` the month, `2024-03-01` the day; a dateTime without seconds
 * fractions covers its whole second. Values without a time zone are taken as UTC.
 */
export interface DateRange {
  low: string;
  high: string;
}

const DATE_RE = /^(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function dateRange(value: string): DateRange | null {
  const m = DATE_RE.exec(value.trim());
  if (!m) return null;
  const [, y, mo, d, h, mi, s, frac, tz] = m;
  const year = Number(y);
  if (mo === undefined) return { low: iso(Date.UTC(year, 0, 1)), high: iso(Date.UTC(year + 1, 0, 1) - 1) };
  const month = Number(mo) - 1;
  if (month < 0 || month > 11) return null;
  if (d === undefined) return { low: iso(Date.UTC(year, month, 1)), high: iso(Date.UTC(year, month + 1, 1) - 1) };
  const day = Number(d);
  if (day < 1 || day > 31) return null;
  if (h === undefined) return { low: iso(Date.UTC(year, month, day)), high: iso(Date.UTC(year, month, day + 1) - 1) };
  const offsetMinutes = !tz || tz === 'Z' ? 0 : (tz.startsWith('-') ? -1 : 1) * (Number(tz.slice(1, 3)) * 60 + Number(tz.slice(4, 6)));
  const base = Date.UTC(year, month, day, Number(h), Number(mi), s === undefined ? 0 : Number(s)) - offsetMinutes * 60_000;
  if (Number.isNaN(base)) return null;
  if (s === undefined) return { low: iso(base), high: iso(base + 60_000 - 1) };
  if (frac === undefined) return { low: iso(base), high: iso(base + 999) };
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  return { low: iso(base + ms), high: iso(base + ms) };
}

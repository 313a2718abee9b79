import { describe, expect, it } from 'vitest';
import { formatIsoDate, parseDob, swapDayMonth } from './dob.js';

const now = new Date('2026-06-12T12:00:00Z');
const iso = (text: string, order?: 'MDY' | 'DMY') => {
  const r = parseDob(text, { now, ...(order ? { order } : {}) });
  return r.ok ? formatIsoDate(r.date) : `error: ${r.message}`;
};

describe('parseDob', () => {
  it.each([
    ['1980-03-04', '1980-03-04'],
    ['1980-3-4', '1980-03-04'],
    ['1980/03/04', '1980-03-04'],
    ['1980.03.04', '1980-03-04'],
    ['1980-03-04T00:00:00Z', '1980-03-04'],
    ['1980-03-04T10:30:00+02:00', '1980-03-04'],
    ['19800304', '1980-03-04'],
    ['03/04/1980', '1980-03-04'],
    ['3/4/1980', '1980-03-04'],
    ['03-04-1980', '1980-03-04'],
    ['04.03.1980', '1980-03-04'],
    ['March 4, 1980', '1980-03-04'],
    ['march 4 1980', '1980-03-04'],
    ['Mar. 4th, 1980', '1980-03-04'],
    ['4 March 1980', '1980-03-04'],
    ['4 Mar 1980', '1980-03-04'],
    ['04-MAR-1980', '1980-03-04'],
    ['1980-Mar-04', '1980-03-04'],
    ['1980 March 4', '1980-03-04'],
    ['Sept 30, 1999', '1999-09-30'],
    ['  2000-02-29 ', '2000-02-29'],
  ])('%s → %s', (text, expected) => {
    expect(iso(text)).toBe(expected);
  });

  it('reads ambiguous slash dates month-first by default, day-first when configured', () => {
    expect(iso('03/04/1980')).toBe('1980-03-04');
    expect(iso('03/04/1980', 'DMY')).toBe('1980-04-03');
  });

  it('falls back to the only possible reading', () => {
    expect(iso('25/12/1980')).toBe('1980-12-25');
    expect(iso('12/25/1980', 'DMY')).toBe('1980-12-25');
    expect(iso('12.25.1980')).toBe('1980-12-25');
  });

  it.each([
    ['1980-02-30', 'is not a real calendar date'],
    ['1981-02-29', 'is not a real calendar date'],
    ['1980-13-01', 'is not a real calendar date'],
    ['1980-04-31', 'is not a real calendar date'],
    ['13/13/1980', 'is not a real calendar date'],
    ['2026-06-13', 'must not be in the future'],
    ['2030-01-01', 'must not be in the future'],
    ['1850-01-01', 'must not be before 1880'],
    ['03/04/80', 'needs a four-digit year'],
    ['March 4, 80', 'needs a four-digit year'],
    ['yesterday', 'is not a recognised date format (use YYYY-MM-DD)'],
    ['', 'is empty'],
  ])('rejects %s', (text, message) => {
    expect(iso(text)).toBe(`error: ${message}`);
  });

  it('accepts today', () => {
    expect(iso('2026-06-12')).toBe('2026-06-12');
  });
});

describe('swapDayMonth', () => {
  it('swaps when both are months and differ', () => {
    expect(swapDayMonth({ year: 1980, month: 3, day: 4 })).toEqual({ year: 1980, month: 4, day: 3 });
    expect(swapDayMonth({ year: 1980, month: 3, day: 13 })).toBeUndefined();
    expect(swapDayMonth({ year: 1980, month: 5, day: 5 })).toBeUndefined();
  });
});

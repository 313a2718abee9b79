import { describe, expect, it } from 'vitest';
import { isValidNpi, luhnCheckDigit, npiCheckDigit, npiProblem, npiProblemMessage } from './npi.js';

/** Plain Luhn validation of a full number, written independently of the module under test. */
function luhnValid(number: string): boolean {
  const sum = [...number]
    .reverse()
    .map(Number)
    .reduce((total, digit, index) => total + (index % 2 === 1 ? (digit * 2 > 9 ? digit * 2 - 9 : digit * 2) : digit), 0);
  return sum % 10 === 0;
}

describe('NPI', () => {
  it.each(['1234567893', '1245319599', '1000000004', '2987654326', '1543210987'])('accepts %s', (npi) => {
    expect(isValidNpi(npi)).toBe(true);
    // CMS: an NPI is valid when "80840" + NPI passes the standard Luhn check.
    expect(luhnValid(`80840${npi}`)).toBe(true);
  });

  it('ignores surrounding spaces', () => {
    expect(isValidNpi(' 1234567893 ')).toBe(true);
  });

  it.each([
    ['1234567890', 'check_digit'],
    ['1234567894', 'check_digit'],
    ['1245319598', 'check_digit'],
    ['2134567893', 'check_digit'],
    ['123456789', 'format'],
    ['12345678933', 'format'],
    ['12345-6789', 'format'],
    ['123456789O', 'format'],
    ['', 'format'],
    ['3234567892', 'first_digit'],
    ['0000000000', 'first_digit'],
  ] as const)('rejects %s (%s)', (npi, problem) => {
    expect(isValidNpi(npi)).toBe(false);
    expect(npiProblem(npi)).toBe(problem);
  });

  it('rejects values that are not strings', () => {
    expect(npiProblem(1234567893)).toBe('not_a_string');
    expect(npiProblem(undefined)).toBe('not_a_string');
  });

  it('computes the check digit with the 80840 prefix', () => {
    expect(npiCheckDigit('123456789')).toBe(3);
    expect(luhnCheckDigit('80840123456789')).toBe(3);
    // Without the prefix the digit would differ, which is why the prefix matters.
    expect(luhnCheckDigit('123456789')).toBe(7);
    expect(() => npiCheckDigit('12345678')).toThrow(RangeError);
  });

  it('explains each problem', () => {
    expect(npiProblemMessage('check_digit')).toMatch(/check digit/);
    expect(npiProblemMessage('format')).toMatch(/10 digits/);
  });
});

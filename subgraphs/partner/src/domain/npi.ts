/**
 * National Provider Identifier (NPI) checks, per the CMS NPI check-digit rules: an NPI is 10 digits,
 * the last being a Luhn (ISO/IEC 7812) check digit computed over the 9 identifier digits prefixed
 * with the card-issuer prefix 80840. CMS issues NPIs that begin with 1 or 2.
 */

/** The ISO/IEC 7812 issuer prefix that CMS assigns to the NPI for check-digit purposes. */
export const NPI_LUHN_PREFIX = '80840';

/** Why a value is not an NPI, or `undefined` when it is one. */
export type NpiProblem = 'not_a_string' | 'format' | 'first_digit' | 'check_digit';

/**
 * The Luhn check digit for the 9 identifier digits of an NPI.
 * @throws RangeError when `firstNineDigits` is not exactly 9 digits.
 */
export function npiCheckDigit(firstNineDigits: string): number {
  if (!/^\d{9}$/u.test(firstNineDigits)) throw new RangeError('An NPI check digit needs exactly 9 digits.');
  return luhnCheckDigit(`${NPI_LUHN_PREFIX}${firstNineDigits}`);
}

/** Luhn check digit of a digit string (the digit that would be appended to it). */
export function luhnCheckDigit(payload: string): number {
  let sum = 0;
  // Walk from the right: the digit next to the (future) check digit is doubled, then every other one.
  for (let index = payload.length - 1, double = true; index >= 0; index -= 1, double = !double) {
    let digit = payload.charCodeAt(index) - 48;
    if (double) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** The reason `value` is not a valid NPI, or `undefined` if it is valid. Surrounding spaces are ignored. */
export function npiProblem(value: unknown): NpiProblem | undefined {
  if (typeof value !== 'string') return 'not_a_string';
  const npi = value.trim();
  if (!/^\d{10}$/u.test(npi)) return 'format';
  if (npi[0] !== '1' && npi[0] !== '2') return 'first_digit';
  if (npiCheckDigit(npi.slice(0, 9)) !== Number(npi[9])) return 'check_digit';
  return undefined;
}

/** True when `value` is a well-formed NPI with a correct check digit. */
export function isValidNpi(value: unknown): value is string {
  return npiProblem(value) === undefined;
}

/** A sentence explaining an {@link NpiProblem} to the applicant. */
export function npiProblemMessage(problem: NpiProblem): string {
  switch (problem) {
    case 'not_a_string':
    case 'format':
      return 'NPI must be exactly 10 digits.';
    case 'first_digit':
      return 'NPI must begin with 1 or 2.';
    case 'check_digit':
      return 'NPI check digit does not match; please check the number for a typo.';
  }
}

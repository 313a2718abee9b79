/**
 * Phone numbers to E.164 with libphonenumber-js. National numbers are read in the default country
 * (US unless configured); international forms (+44 …, 00 44 …) keep their own country. Extensions
 * are dropped: they do not identify a person.
 */
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export type { CountryCode };

export type PhoneParseResult =
  | { ok: true; e164: string; nationalNumber: string; country: string | undefined }
  | { ok: false; message: string };

export const MAX_PHONE_LENGTH = 40;

/** Parses and validates a phone number; returns its E.164 form. */
export function parsePhone(input: string, defaultCountry: CountryCode = 'US'): PhoneParseResult {
  let text = input.trim();
  if (text === '') return { ok: false, message: 'is empty' };
  if (text.length > MAX_PHONE_LENGTH) return { ok: false, message: `must be at most ${MAX_PHONE_LENGTH} characters` };
  if (text.startsWith('00')) text = '+' + text.slice(2);
  if (/^tel:/i.test(text)) text = text.slice(4);
  const parsed = parsePhoneNumberFromString(text, defaultCountry);
  if (!parsed || !parsed.isValid()) return { ok: false, message: 'is not a valid phone number' };
  return { ok: true, e164: parsed.number, nationalNumber: parsed.nationalNumber, country: parsed.country };
}

/**
 * The last seven digits of the national number: survives an area-code change or a missing or
 * wrong country code.
 */
export function phoneTail(nationalNumber: string, digits = 7): string {
  return nationalNumber.replace(/\D/g, '').slice(-digits);
}

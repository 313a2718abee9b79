import type { FieldError } from '@svc/platform';
import { COMMON_LONG_PASSWORDS, COMMON_PASSWORD_STEMS } from './common-passwords.js';
import { emailLocalPart } from './email-address.js';
import { codePointLength } from './input-readers.js';

/**
 * The portal password policy, in the spirit of NIST SP 800-63B: length matters most, so a long
 * passphrase needs no particular mix of characters, while a shorter password must mix at least three
 * of the four character classes. Passwords are never trimmed or otherwise altered: every character,
 * spaces included, is part of the secret.
 */
export const PASSWORD_POLICY = {
  /** Fewest characters (Unicode code points). */
  minLength: 12,
  /** Most characters; bounds the cost of hashing. */
  maxLength: 128,
  /** From this length on a password is a passphrase and needs no class mix. */
  passphraseLength: 20,
  /** Character classes a shorter password must mix (of lower-case, upper-case, digit, symbol). */
  minClasses: 3,
  /** Fewest different characters, which refuses `aaaaaaaaaaaa` and `abababababab`. */
  minDistinctCharacters: 6,
} as const;

/** What the policy compares a password against, besides the built-in list of common passwords. */
export interface PasswordContext {
  /** The applicant's contact or sign-in e-mail; its local part must not appear in the password. */
  email?: string | undefined;
  /** The organization's legal name; it and its distinctive words must not appear in the password. */
  organization_name?: string | undefined;
}

/** The four character classes counted by the policy. */
export type CharacterClass = 'lowercase' | 'uppercase' | 'digit' | 'symbol';

/** The character classes present in `password`. Letters without case count as lower-case. */
export function characterClasses(password: string): Set<CharacterClass> {
  const classes = new Set<CharacterClass>();
  for (const char of password) {
    if (/\p{Lu}/u.test(char)) classes.add('uppercase');
    else if (/\p{L}/u.test(char)) classes.add('lowercase');
    else if (/\p{Nd}/u.test(char)) classes.add('digit');
    else if (!/\s/u.test(char)) classes.add('symbol');
  }
  return classes;
}

// Words too generic to identify an organization: "Acme Health System" is identified by "acme".
const GENERIC_NAME_WORDS = new Set([
  'the', 'and', 'inc', 'llc', 'ltd', 'corp', 'company', 'group', 'health', 'healthcare', 'care',
  'medical', 'medicine', 'center', 'centre', 'clinic', 'clinics', 'hospital', 'hospitals', 'system',
  'systems', 'services', 'network', 'partners', 'university', 'college', 'institute', 'foundation',
  'pharmacy', 'laboratory', 'laboratories', 'labs', 'plan', 'plans', 'insurance', 'public', 'agency',
  'department', 'county', 'state', 'regional', 'national', 'association', 'solutions', 'technologies',
]);

const LEET: Readonly<Record<string, string>> = { '0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '@': 'a', $: 's', '!': 'i' };

function comparable(value: string): string {
  return value.normalize('NFKC').toLowerCase().replace(/[^\p{L}\p{Nd}]/gu, '');
}

function stemOf(password: string): string {
  const lower = password.normalize('NFKC').toLowerCase();
  const trimmed = lower.replace(/^[^\p{L}]+|[^\p{L}]+$/gu, '');
  return [...trimmed].map((char) => LEET[char] ?? char).join('').replace(/[^\p{L}]/gu, '');
}

function isCommon(password: string): boolean {
  const lower = password.toLowerCase();
  if (COMMON_LONG_PASSWORDS.has(lower) || COMMON_LONG_PASSWORDS.has(comparable(password))) return true;
  return COMMON_PASSWORD_STEMS.has(stemOf(password));
}

function organizationTerms(name: string): string[] {
  const whole = comparable(name);
  const words = name
    .split(/[^\p{L}\p{Nd}]+/u)
    .map(comparable)
    .filter((word) => word.length >= 4 && !GENERIC_NAME_WORDS.has(word));
  return [...new Set([whole, ...words])].filter((term) => term.length >= 4);
}

/**
 * Check a portal password against {@link PASSWORD_POLICY}. Returns one field error per broken rule
 * (an empty array when the password is acceptable), each addressed to `field`.
 */
export function checkPasswordStrength(password: unknown, context: PasswordContext = {}, field = 'portal_password'): FieldError[] {
  if (typeof password !== 'string' || password.length === 0) return [{ field, message: 'Password is required.' }];
  const errors: FieldError[] = [];
  const fail = (message: string): void => void errors.push({ field, message });
  const length = codePointLength(password);

  if (length < PASSWORD_POLICY.minLength) fail(`Password must be at least ${PASSWORD_POLICY.minLength} characters long.`);
  if (length > PASSWORD_POLICY.maxLength) fail(`Password must be at most ${PASSWORD_POLICY.maxLength} characters long.`);
  if (length < PASSWORD_POLICY.passphraseLength && characterClasses(password).size < PASSWORD_POLICY.minClasses) {
    fail(
      `Password must mix at least ${PASSWORD_POLICY.minClasses} of lower-case letters, upper-case letters, digits and symbols, ` +
        `or be a passphrase of at least ${PASSWORD_POLICY.passphraseLength} characters.`,
    );
  }
  if (new Set(password).size < PASSWORD_POLICY.minDistinctCharacters) {
    fail(`Password must contain at least ${PASSWORD_POLICY.minDistinctCharacters} different characters.`);
  }
  if (isCommon(password)) fail('Password is too common; choose something that is not built on a well-known password.');

  const haystack = comparable(password);
  const localPart = context.email ? comparable(emailLocalPart(context.email.trim())) : '';
  if (localPart.length >= 3 && haystack.includes(localPart)) fail('Password must not contain your e-mail address.');
  const name = context.organization_name ?? '';
  if (organizationTerms(name).some((term) => haystack.includes(term))) fail('Password must not contain your organization name.');
  return errors;
}

/** True when `password` satisfies the policy. */
export function isAcceptablePassword(password: unknown, context: PasswordContext = {}): boolean {
  return checkPasswordStrength(password, context).length === 0;
}

/**
 * Pragmatic e-mail address validation for contact and sign-in addresses: the dot-atom form of
 * RFC 5322 with a DNS domain name, which is what every mail provider actually issues. Quoted local
 * parts and address literals (`user@[192.0.2.1]`) are refused on purpose.
 */

/** Longest address accepted, from the SMTP path limit (RFC 5321 §4.5.3.1.3). */
export const EMAIL_MAX_LENGTH = 254;

const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/u;
const DOMAIN_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/u;
const TOP_LEVEL_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/u;

/**
 * The address in canonical form (trimmed, lower-case), or `undefined` when it is not a usable
 * address. Addresses are compared case-insensitively across the platform, so the canonical form is
 * what gets stored.
 */
export function normalizeEmail(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const address = value.trim().toLowerCase();
  if (address.length === 0 || address.length > EMAIL_MAX_LENGTH) return undefined;
  const at = address.lastIndexOf('@');
  if (at <= 0 || address.indexOf('@') !== at) return undefined;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (local.length > 64 || !LOCAL_PART.test(local)) return undefined;
  const labels = domain.split('.');
  if (labels.length < 2 || domain.length > 253) return undefined;
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return undefined;
  if (!TOP_LEVEL_LABEL.test(labels[labels.length - 1] ?? '')) return undefined;
  return address;
}

/** True when `value` is an address {@link normalizeEmail} accepts. */
export function isValidEmail(value: unknown): value is string {
  return normalizeEmail(value) !== undefined;
}

/** The part before the `@`, without a `+tag` sub-address (`jane.doe+portal@x.org` → `jane.doe`). */
export function emailLocalPart(address: string): string {
  const local = address.slice(0, Math.max(0, address.lastIndexOf('@')));
  const plus = local.indexOf('+');
  return plus === -1 ? local : local.slice(0, plus);
}

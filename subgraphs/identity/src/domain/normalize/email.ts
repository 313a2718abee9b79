import { domainToASCII } from 'node:url';

/**
 * Email canonicalization. The whole address is lowercased (local parts are case-sensitive in
 * theory, never in practice); googlemail.com is gmail.com; for Gmail the dots of the local part are
 * ignored; for providers that deliver `user+tag@` to `user@` the tag is removed. Other domains keep
 * their local part as written, since a "+" or "." may be significant there.
 */

/** Domains that are another name for the same mailbox namespace. */
const DOMAIN_ALIASES: Readonly<Record<string, string>> = {
  'googlemail.com': 'gmail.com',
  'protonmail.ch': 'protonmail.com',
  'pm.me': 'protonmail.com',
  'proton.me': 'protonmail.com',
  'fastmail.fm': 'fastmail.com',
};

/** Providers that ignore the dots of the local part. */
const DOTLESS_DOMAINS = new Set(['gmail.com']);

/** Providers with sub-addressing: `user+anything@` delivers to `user@`. */
const PLUS_TAG_DOMAINS = new Set([
  'gmail.com',
  'outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'outlook.co.uk', 'hotmail.co.uk', 'live.co.uk',
  'icloud.com', 'me.com', 'mac.com',
  'protonmail.com',
  'fastmail.com',
  'zoho.com', 'hey.com', 'duck.com',
]);

/** RFC 5321: at most 254 octets in a path's address, 64 in a local part (UTF-8 octets, RFC 6531). */
export const MAX_EMAIL_LENGTH = 254;
const MAX_LOCAL_LENGTH = 64;

/**
 * A dot-atom local part (RFC 5322 §3.2.3), its atext extended by RFC 6532 §3.2 to every non-ASCII
 * character: letters, marks, digits and symbols of any script. Control, format, private-use,
 * unassigned and separator characters (\p{C}, \p{Z}) are refused. Quoted local parts are refused.
 */
const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]|[^\\x00-\\x7F\\p{C}\\p{Z}]";
const LOCAL_RE = new RegExp(`^(?:${ATEXT})+(?:\\.(?:${ATEXT})+)*$`, 'u');
/** An ASCII (A-label) host name: LDH labels, a top-level label of letters or an IDN A-label. */
const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+([a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export type EmailParseResult = { ok: true; address: string } | { ok: false; message: string };

const utf8Length = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * Syntax check and normalization of an internationalized address (RFC 6531/6532). Accepts a
 * `mailto:` prefix. The local part is Unicode NFC and lowercased; the domain goes through UTS #46
 * processing (`node:url` `domainToASCII`: case and width folding, NFC, Punycode) to its ASCII
 * A-label form, so `søren@exämple.dk`, `SØREN@EXÄMPLE.DK` and `søren@xn--exmple-cua.dk` are one
 * address. Does not canonicalize providers (`canonicalEmail`).
 */
export function parseEmail(input: string): EmailParseResult {
  let text = input.trim().normalize('NFC');
  if (text.slice(0, 7).toLowerCase() === 'mailto:') text = text.slice(7);
  if (text.length === 0) return { ok: false, message: 'is empty' };
  if (utf8Length(text) > MAX_EMAIL_LENGTH * 4) return { ok: false, message: `must be at most ${MAX_EMAIL_LENGTH} characters` };
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1 || text.indexOf('@') !== at) return { ok: false, message: 'is not an email address' };
  const local = text.slice(0, at).toLowerCase().normalize('NFC');
  const rawDomain = text.slice(at + 1);
  // domainToASCII would also accept an IPv4 address or a percent-encoded name: a host name only.
  const domain = /^[^\s%[\]/\\:?#@]+$/u.test(rawDomain) ? domainToASCII(rawDomain) : '';
  if (utf8Length(local) > MAX_LOCAL_LENGTH || !LOCAL_RE.test(local) || !DOMAIN_RE.test(domain) || /^[0-9.]+$/.test(domain)) {
    return { ok: false, message: 'is not an email address' };
  }
  const address = `${local}@${domain}`;
  if (utf8Length(address) > MAX_EMAIL_LENGTH) return { ok: false, message: `must be at most ${MAX_EMAIL_LENGTH} characters` };
  return { ok: true, address };
}

export interface CanonicalEmail {
  /** The address as the provider routes it: one value per mailbox. */
  address: string;
  /** The canonical local part alone (for "same user name, other provider"). */
  local: string;
  domain: string;
}

/** Canonical mailbox of a syntactically valid, lowercased address (see `parseEmail`). */
export function canonicalEmail(address: string): CanonicalEmail {
  const at = address.lastIndexOf('@');
  let local = address.slice(0, at).toLowerCase();
  let domain = address.slice(at + 1).toLowerCase();
  domain = DOMAIN_ALIASES[domain] ?? domain;
  if (PLUS_TAG_DOMAINS.has(domain)) {
    const plus = local.indexOf('+');
    if (plus > 0) local = local.slice(0, plus);
  }
  if (DOTLESS_DOMAINS.has(domain)) local = local.replaceAll('.', '');
  return { address: `${local}@${domain}`, local, domain };
}

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

export const MAX_EMAIL_LENGTH = 254;

const LOCAL_RE = /^[a-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export type EmailParseResult = { ok: true; address: string } | { ok: false; message: string };

/** Syntax check and lowercase. Accepts a `mailto:` prefix. Does not canonicalize providers. */
export function parseEmail(input: string): EmailParseResult {
  let text = input.trim().toLowerCase();
  if (text.startsWith('mailto:')) text = text.slice(7);
  if (text.length === 0) return { ok: false, message: 'is empty' };
  if (text.length > MAX_EMAIL_LENGTH) return { ok: false, message: `must be at most ${MAX_EMAIL_LENGTH} characters` };
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1 || text.indexOf('@') !== at) return { ok: false, message: 'is not an email address' };
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > 64 || !LOCAL_RE.test(local) || !DOMAIN_RE.test(domain)) {
    return { ok: false, message: 'is not an email address' };
  }
  return { ok: true, address: `${local}@${domain}` };
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

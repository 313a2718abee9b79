import { isIP, type Socket } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { buildConnector } from 'undici';
import { validationError } from '@svc/platform';

/**
 * SSRF protection for webhook URLs. A receiver must be a public address: private (RFC 1918, ULA),
 * loopback, link-local (where cloud metadata lives: 169.254.169.254, fd00:ec2::254), CGNAT
 * (100.100.100.200 is another metadata address), multicast, documentation and reserved ranges are
 * refused, after DNS resolution, for every address a name resolves to. An IPv6 address that maps or
 * embeds an IPv4 address (IPv4-mapped, -compatible, -translated, NAT64, 6to4, Teredo) is judged by the
 * IPv4 address it carries too, since that is where a translator, relay or the kernel takes the
 * connection. The delivery worker checks again at connection time, on the address the socket
 * connects to (see `guardedConnector`), so a name that resolves differently later (DNS rebinding)
 * gets nowhere.
 *
 * Addresses are not parsed by hand: IPv6 text is first rewritten by the WHATWG URL parser (the one
 * that reads the webhook URL itself) into its hexadecimal form, then read by ipaddr.js into its 16
 * bytes; range tables are ipaddr.js CIDRs. See `parseIpv6` for why the rewrite comes first.
 */

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number];
const cidr = (text: string): Range => ipaddr.parseCIDR(text);

/** IPv4 ranges a receiver may not be in, by the reason given (IANA IPv4 special-purpose registry). */
const IPV4_REFUSED: Record<string, Range[]> = {
  '"this network"': [cidr('0.0.0.0/8')],
  private: [cidr('10.0.0.0/8'), cidr('172.16.0.0/12'), cidr('192.168.0.0/16')],
  'shared address space (CGNAT)': [cidr('100.64.0.0/10')],
  loopback: [cidr('127.0.0.0/8')],
  'link-local': [cidr('169.254.0.0/16')],
  'IETF protocol assignments': [cidr('192.0.0.0/24')],
  documentation: [cidr('192.0.2.0/24'), cidr('198.51.100.0/24'), cidr('203.0.113.0/24')],
  '6to4 relay anycast': [cidr('192.88.99.0/24')],
  benchmarking: [cidr('198.18.0.0/15')],
  multicast: [cidr('224.0.0.0/4')],
  'reserved or broadcast': [cidr('240.0.0.0/4')],
};

/**
 * IPv6: only global unicast (2000::/3) and the NAT64 well-known prefix may be public; inside 2000::/3
 * these are refused. The names below say why an address outside it is refused.
 */
const IPV6_GLOBAL_UNICAST = cidr('2000::/3');
const IPV6_NAT64_WELL_KNOWN = cidr('64:ff9b::/96');
const IPV6_REFUSED: Record<string, Range[]> = {
  unspecified: [cidr('::/128')],
  loopback: [cidr('::1/128')],
  'IPv4-mapped': [cidr('::ffff:0:0/96')],
  'IPv4-translated': [cidr('::ffff:0:0:0/96')],
  'IPv4-compatible (deprecated)': [cidr('::/96')],
  'NAT64 local-use prefix': [cidr('64:ff9b:1::/48')],
  'discard-only': [cidr('100::/64')],
  'IETF protocol assignments (Teredo, benchmarking, ORCHID)': [cidr('2001::/23')],
  documentation: [cidr('2001:db8::/32'), cidr('3fff::/20')],
  'unique local (private)': [cidr('fc00::/7')],
  'link-local': [cidr('fe80::/10')],
  'site-local (deprecated)': [cidr('fec0::/10')],
  multicast: [cidr('ff00::/8')],
};

/** Why this IPv4 address may not be a receiver, or null when it may. */
function ipv4Refusal(address: ipaddr.IPv4): string | null {
  const name = ipaddr.subnetMatch(address, IPV4_REFUSED, '');
  return name === '' ? null : name;
}

/**
 * An IPv6 address as its 8 parts. ipaddr.js on its own reads `::a.b.c.d` as IPv4-mapped
 * (`::ffff:a.b.c.d`), where RFC 4291 (and the kernel) mean IPv4-compatible (`::a.b.c.d` is how
 * inet_ntop, hence Node's DNS answers, print `::7f00:1`); so the text is first put in the URL
 * parser's hexadecimal form, which has no dotted tail. A zone (`%eth0`) does not change the range.
 */
function parseIpv6(address: string): ipaddr.IPv6 {
  const bare = address.replace(/%.*$/, '');
  return ipaddr.IPv6.parse(new URL(`http://[${bare}]/`).hostname.slice(1, -1));
}

/** An IPv4 address carried inside an IPv6 one, and the form that carries it. */
export interface EmbeddedIpv4 {
  form: string;
  ipv4: string;
}

/**
 * Every IPv4 address this IPv6 address carries: IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d` (SIIT), IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::a.b.c.d` (RFC 6052), 6to4
 * `2002:AABB:CCDD::/48` (RFC 3056), and Teredo `2001:0:SSSS:SSSS:…:CCCC:CCCC` (RFC 4380: the server,
 * and the client, whose address is stored XOR 0xffffffff). The NAT64 local-use prefix 64:ff9b:1::/48
 * (RFC 8215) may embed at several prefix lengths, so it is refused as a whole instead.
 */
export function embeddedIpv4(address: string): EmbeddedIpv4[] {
  if (isIP(address) !== 6) return [];
  const v6 = parseIpv6(address);
  const p = v6.parts;
  const b = v6.toByteArray();
  const v4 = (bytes: number[]) => new ipaddr.IPv4(bytes).toString();
  const zero = (from: number, to: number) => p.slice(from, to).every((x) => x === 0);
  const found: EmbeddedIpv4[] = [];
  if (zero(0, 5) && p[5] === 0xffff) found.push({ form: 'IPv4-mapped', ipv4: v4(b.slice(12)) });
  if (zero(0, 4) && p[4] === 0xffff && p[5] === 0) found.push({ form: 'IPv4-translated', ipv4: v4(b.slice(12)) });
  // ::/96 without :: and ::1, which RFC 4291 does not count as IPv4-compatible.
  if (zero(0, 6) && !(p[6] === 0 && (p[7] ?? 0) <= 1)) found.push({ form: 'IPv4-compatible', ipv4: v4(b.slice(12)) });
  if (v6.match(IPV6_NAT64_WELL_KNOWN)) found.push({ form: 'NAT64', ipv4: v4(b.slice(12)) });
  if (p[0] === 0x2002) found.push({ form: '6to4', ipv4: v4(b.slice(2, 6)) });
  if (p[0] === 0x2001 && p[1] === 0) {
    found.push({ form: 'Teredo server', ipv4: v4(b.slice(4, 8)) });
    found.push({ form: 'Teredo client', ipv4: v4(b.slice(12).map((x) => x ^ 0xff)) });
  }
  return found;
}

/**
 * Why a receiver may not live at this IP address (its range, or the IPv4 address it carries and that
 * address's range), or null when it may. Anything that is not an IP address is refused.
 */
export function addressRefusal(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'not an IP address';
  let v6: ipaddr.IPv6;
  try {
    if (family === 4) return ipv4Refusal(ipaddr.IPv4.parse(address));
    v6 = parseIpv6(address);
  } catch {
    return 'not an IP address';
  }
  // The kernel connects to an IPv4-mapped address over IPv4: that address decides alone.
  if (v6.isIPv4MappedAddress()) {
    const inner = v6.toIPv4Address();
    const refusal = ipv4Refusal(inner);
    return refusal === null ? null : `IPv4-mapped ${inner.toString()}, ${refusal}`;
  }
  for (const { form, ipv4 } of embeddedIpv4(address)) {
    const refusal = ipv4Refusal(ipaddr.IPv4.parse(ipv4));
    if (refusal !== null) return `${form} form of ${ipv4}, ${refusal}`;
  }
  if (v6.match(IPV6_NAT64_WELL_KNOWN)) return null;
  const named = ipaddr.subnetMatch(v6, IPV6_REFUSED, '');
  if (named !== '') return named;
  return v6.match(IPV6_GLOBAL_UNICAST) ? null : 'reserved (not global unicast)';
}

/** True when a receiver may live at this IP address. */
export function isPublicAddress(address: string): boolean {
  return addressRefusal(address) === null;
}

export interface AddressPolicy {
  allowPrivateAddresses: boolean;
  /** Production endpoints must use https. */
  requireHttps: boolean;
}

export type Resolver = (hostname: string) => Promise<string[]>;

/** How long a registration waits for DNS before refusing the URL. */
const RESOLVE_TIMEOUT_MS = 5000;

export const systemResolver: Resolver = async (hostname) => {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`DNS lookup of ${hostname} timed out`)), RESOLVE_TIMEOUT_MS)));
  try {
    return (await Promise.race([dnsLookup(hostname, { all: true, verbatim: true }), timeout])).map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
};

/** The host as `isIP` understands it (URL keeps IPv6 literals in brackets). */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/**
 * Validate a webhook URL for registration: absolute http(s), no credentials, no fragment, and (unless
 * allowed) every resolved address public. Errors name the field `url`.
 */
export async function checkWebhookUrl(raw: string, policy: AddressPolicy, resolve: Resolver = systemResolver): Promise<URL> {
  const refuse = (message: string) => validationError([{ field: 'url', message }], `The webhook url ${message}.`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('must be an absolute http(s) URL');
  }
  if (raw.length > 2000) throw refuse('must be at most 2000 characters');
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse('must use https (or http outside production)');
  if (policy.requireHttps && url.protocol !== 'https:') throw refuse('must use https in production');
  if (url.username || url.password) throw refuse('must not carry credentials (user:password@)');
  if (url.hash) throw refuse('must not have a fragment');
  if (policy.allowPrivateAddresses) return url;
  const host = bareHost(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw refuse(`host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0) throw refuse(`host ${host} does not resolve`);
  for (const address of addresses) {
    const refusal = addressRefusal(address);
    if (refusal !== null) throw refuse(`resolves to ${address} (${refusal}): a private, loopback, link-local or reserved address`);
  }
  return url;
}

export class AddressRefused extends Error {
  readonly code = 'EADDRREFUSED';
  constructor(readonly address: string) {
    const refusal = addressRefusal(address);
    super(`address ${address} is private, loopback, link-local or reserved${refusal === null ? '' : ` (${refusal})`}`);
    this.name = 'AddressRefused';
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | { address: string; family: number }[], family?: number) => void;

/**
 * A `lookup` for net/tls.connect that resolves the name, refuses it when any address is not public,
 * and hands the socket exactly the addresses it checked: the connection cannot reach an address
 * that was not checked, whatever the DNS answers next (DNS rebinding).
 */
export function guardedLookup(resolve: Resolver = systemResolver) {
  return (hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((a) => !isPublicAddress(a));
        if (refused !== undefined || addresses.length === 0) {
          callback(new AddressRefused(refused ?? hostname), '', 0);
          return;
        }
        const entries = addresses.map((address) => ({ address, family: isIP(address) }));
        if (typeof options === 'object' && options?.all) callback(null, entries);
        else callback(null, entries[0]!.address, entries[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}

/**
 * An undici connector that applies the address rule to every connection it opens, whatever the
 * request (a delivery, a redirect if one were ever followed): an IP literal is checked before any
 * packet leaves; a name is resolved through `guardedLookup`, so the socket gets only checked
 * addresses; and once connected, the socket's remote address is checked once more (the address
 * actually connected to) before a byte of the request is written.
 */
export function guardedConnector(options: { timeoutMs: number; resolve?: Resolver }): buildConnector.connector {
  const connect = buildConnector({ timeout: options.timeoutMs, lookup: guardedLookup(options.resolve) });
  return (target, callback) => {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) !== 0 && !isPublicAddress(host)) {
      callback(new AddressRefused(host), null);
      return;
    }
    connect(target, (...args) => {
      if (args[0] !== null) {
        callback(args[0], null);
        return;
      }
      const socket: Socket = args[1];
      const remote = socket.remoteAddress;
      if (remote === undefined || !isPublicAddress(remote)) {
        socket.destroy();
        callback(new AddressRefused(remote ?? host), null);
        return;
      }
      callback(null, socket);
    });
  };
}

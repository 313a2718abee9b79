import { BlockList, isIP } from 'node:net';
import { lookup as dnsLookup } from 'node:dns/promises';
import { validationError } from '@svc/platform';

/**
 * SSRF protection for webhook URLs. A receiver must be a public address: private (RFC 1918, ULA),
 * loopback, link-local (where cloud metadata lives: 169.254.169.254, fd00:ec2::254), CGNAT
 * (100.100.100.200 is another metadata address), multicast, documentation and reserved ranges are
 * refused, after DNS resolution, for every address a name resolves to. The delivery worker checks
 * again at connection time and connects to the address it checked (see `guardedLookup`), so a name
 * that resolves differently later (DNS rebinding) gets nowhere.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) blocked.addSubnet(net, prefix, 'ipv6');

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address (`::ffff:10.0.0.1`, `64:ff9b::a00:1`). */
function embeddedIpv4(address: string): string | null {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1] ?? null;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return null;
  const hi = parseInt(hex[1] ?? '0', 16);
  const lo = parseInt(hex[2] ?? '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** True when a receiver may live at this IP address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== null) return !blocked.check(v4, 'ipv4');
    return !blocked.check(address, 'ipv6');
  }
  return false;
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
  const refused = addresses.find((a) => !isPublicAddress(a));
  if (refused !== undefined) throw refuse(`resolves to ${refused}, a private, loopback, link-local or reserved address`);
  return url;
}

export class AddressRefused extends Error {
  constructor(readonly address: string) {
    super(`address ${address} is private, loopback, link-local or reserved`);
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
          callback(Object.assign(new AddressRefused(refused ?? hostname), { code: 'EADDRREFUSED' }), '', 0);
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

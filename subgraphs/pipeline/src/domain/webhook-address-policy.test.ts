import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressRefusal, AddressRefused, checkWebhookUrl, embeddedIpv4, guardedLookup, isPublicAddress } from './webhook-address-policy.js';
import { WebhookSender } from '../webhooks/webhook-sender.js';

/**
 * Every IPv6 form that maps or embeds an IPv4 address, as [address, form, embedded IPv4]. The
 * addresses are written out by hand (loopback 127.0.0.1 = 7f00:1, metadata 169.254.169.254 = a9fe:a9fe,
 * 10.0.0.1 = a00:1; Teredo stores its client XOR 0xffffffff).
 */
const EMBEDDED: [string, string, string][] = [
  ['::7f00:1', 'IPv4-compatible', '127.0.0.1'],
  ['::127.0.0.1', 'IPv4-compatible', '127.0.0.1'],
  ['0:0:0:0:0:0:a9fe:a9fe', 'IPv4-compatible', '169.254.169.254'],
  ['::ffff:127.0.0.1', 'IPv4-mapped', '127.0.0.1'],
  ['::ffff:a9fe:a9fe', 'IPv4-mapped', '169.254.169.254'],
  ['0000:0000:0000:0000:0000:FFFF:0A00:0001', 'IPv4-mapped', '10.0.0.1'],
  ['::ffff:0:7f00:1', 'IPv4-translated', '127.0.0.1'],
  ['::ffff:0:169.254.169.254', 'IPv4-translated', '169.254.169.254'],
  ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1'],
  ['64:ff9b::10.0.0.1', 'NAT64', '10.0.0.1'],
  ['64:ff9b::a9fe:a9fe', 'NAT64', '169.254.169.254'],
  ['2002:7f00:1::1', '6to4', '127.0.0.1'],
  ['2002:a9fe:a9fe:1:2:3:4:5', '6to4', '169.254.169.254'],
  ['2002:a00:1::', '6to4', '10.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo client', '127.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:5601:5601', 'Teredo client', '169.254.169.254'],
  ['2001:0:a00:1::f7f7:f7f7', 'Teredo server', '10.0.0.1'],
];

describe('webhook address policy (SSRF)', () => {
  it('refuses private, loopback, link-local, metadata, CGNAT and reserved addresses, v4, v6 and mapped', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '255.255.255.255', '198.18.0.1', '::1', '::', 'fe80::1', 'fe80::1%eth0', 'fd00:ec2::254', 'fc00::1', 'fec0::1', 'ff02::1', '100::1', '2001:db8::1', '3fff::1', '4000::1']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
    expect(isPublicAddress('not-an-ip')).toBe(false);
    expect(isPublicAddress('127.1')).toBe(false);
  });

  it('judges every IPv6 form that embeds an IPv4 address by the address it carries', () => {
    for (const [address, form, ipv4] of EMBEDDED) {
      expect(embeddedIpv4(address), address).toContainEqual({ form, ipv4 });
      expect(isPublicAddress(address), address).toBe(false);
      expect(addressRefusal(address), address).toContain(ipv4);
    }
    // The NAT64 local-use prefix embeds at several lengths (RFC 6052): refused whatever it carries.
    for (const address of ['64:ff9b:1::7f00:1', '64:ff9b:1:7f00:0:100::', '64:ff9b:1::808:808']) expect(addressRefusal(address), address).toBe('NAT64 local-use prefix');
    // Forms that only translate or relay to a public address are public (a receiver behind DNS64, say)…
    for (const address of ['64:ff9b::808:808', '64:ff9b::8.8.8.8', '2002:808:808::1', '::ffff:808:808']) expect(isPublicAddress(address), address).toBe(true);
    // …but the deprecated or special ones are not, even then.
    expect(addressRefusal('::808:808')).toBe('IPv4-compatible (deprecated)');
    expect(addressRefusal('::8.8.8.8')).toBe('IPv4-compatible (deprecated)'); // how inet_ntop prints ::808:808; not IPv4-mapped
    expect(addressRefusal('::ffff:0:808:808')).toBe('IPv4-translated');
    expect(addressRefusal('2001:0:4136:e378:8000:63bf:f7f7:f7f7')).toMatch(/Teredo/);
    // :: and ::1 are what they are, not "IPv4-compatible 0.0.0.x".
    expect(addressRefusal('::1')).toBe('loopback');
    expect(addressRefusal('::')).toBe('unspecified');
  });

  it('checks every address a name resolves to, and names the field url', async () => {
    const policy = { allowPrivateAddresses: false, requireHttps: false };
    const resolveTo = (addresses: string[]) => async () => addresses;
    await expect(checkWebhookUrl('https://hooks.example.com/x', policy, resolveTo(['93.184.216.34']))).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://hooks.example.com/x', policy, resolveTo(['93.184.216.34', '10.0.0.5']))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'url' }] });
    await expect(checkWebhookUrl('https://hooks.example.com/x', policy, resolveTo(['2606:4700::1', '64:ff9b::a9fe:a9fe']))).rejects.toMatchObject({ fieldErrors: [{ field: 'url', message: expect.stringContaining('NAT64 form of 169.254.169.254, link-local') }] });
    await expect(checkWebhookUrl('http://[::1]:8080/', policy)).rejects.toMatchObject({ fieldErrors: [{ field: 'url' }] });
    for (const [address] of EMBEDDED) await expect(checkWebhookUrl(`http://[${address}]:8080/`, policy), address).rejects.toMatchObject({ fieldErrors: [{ field: 'url' }] });
    await expect(checkWebhookUrl('https://user:pw@hooks.example.com/', policy, resolveTo(['93.184.216.34']))).rejects.toMatchObject({ fieldErrors: [{ field: 'url', message: expect.stringContaining('credentials') }] });
    await expect(checkWebhookUrl('http://hooks.example.com/', { ...policy, requireHttps: true }, resolveTo(['93.184.216.34']))).rejects.toMatchObject({ fieldErrors: [{ field: 'url', message: 'must use https in production' }] });
    await expect(checkWebhookUrl('http://127.0.0.1:1/', { ...policy, allowPrivateAddresses: true })).resolves.toBeInstanceOf(URL);
  });

  it('hands the socket only the addresses it checked (DNS rebinding finds nothing to reach)', async () => {
    let answers = ['93.184.216.34'];
    const lookup = guardedLookup(async () => answers);
    const call = (options: { all?: boolean }) =>
      new Promise<{ err: Error | null; address: unknown }>((resolve) => lookup('rebind.example', options, (err, address) => resolve({ err, address })));
    expect(await call({ all: true })).toEqual({ err: null, address: [{ address: '93.184.216.34', family: 4 }] });
    expect(await call({})).toEqual({ err: null, address: '93.184.216.34' });
    for (const next of [['169.254.169.254'], ['93.184.216.34', '::ffff:0:7f00:1'], ['2002:7f00:1::1']]) {
      answers = next;
      expect((await call({ all: true })).err, next.join()).toBeInstanceOf(AddressRefused);
    }
  });
});

describe('webhook sender: the rule on the address the socket connects to', () => {
  let server: Server;
  let port: number;
  let heard = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      heard++;
      res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('refuses a name whose DNS answer is loopback now, and every literal form of loopback, before sending a byte', async () => {
    let answers = ['93.184.216.34'];
    const sender = new WebhookSender({ timeoutMs: 2000, allowPrivateAddresses: false, resolve: async () => answers });
    try {
      answers = ['127.0.0.1'];
      expect((await sender.post(`http://rebind.example:${port}/`, {}, '{}')).error).toBe('address 127.0.0.1 is private, loopback, link-local or reserved (loopback)');
      answers = ['::ffff:7f00:1'];
      expect((await sender.post(`http://rebind.example:${port}/`, {}, '{}')).error).toContain('IPv4-mapped 127.0.0.1, loopback');
      for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]', '[::127.0.0.1]', '[2002:7f00:1::1]', '[64:ff9b::7f00:1]', '[::ffff:0:7f00:1]']) {
        const result = await sender.post(`http://${host}:${port}/`, {}, '{}');
        expect(result, host).toMatchObject({ statusCode: null, error: expect.stringMatching(/^address \S+ is private, loopback, link-local or reserved \(.*loopback\)$/) });
      }
      expect(heard).toBe(0);
    } finally {
      await sender.close();
    }
  });

  it('reaches the same receiver when private receivers are allowed', async () => {
    const sender = new WebhookSender({ timeoutMs: 2000, allowPrivateAddresses: true });
    try {
      expect(await sender.post(`http://127.0.0.1:${port}/`, {}, '{}')).toMatchObject({ statusCode: 200, error: null });
      expect(heard).toBe(1);
    } finally {
      await sender.close();
    }
  });
});

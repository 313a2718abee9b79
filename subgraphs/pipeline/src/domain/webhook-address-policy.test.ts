import { describe, expect, it } from 'vitest';
import { AddressRefused, checkWebhookUrl, guardedLookup, isPublicAddress } from './webhook-address-policy.js';

describe('webhook address policy (SSRF)', () => {
  it('refuses private, loopback, link-local, metadata, CGNAT and reserved addresses, v4, v6 and mapped', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.100.100.200', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00:ec2::254', 'fc00::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe', '64:ff9b::10.0.0.1']) {
      expect(isPublicAddress(a), a).toBe(false);
    }
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPublicAddress(a), a).toBe(true);
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });

  it('checks every address a name resolves to, and names the field url', async () => {
    const policy = { allowPrivateAddresses: false, requireHttps: false };
    const resolveTo = (addresses: string[]) => async () => addresses;
    await expect(checkWebhookUrl('https://hooks.example.com/x', policy, resolveTo(['93.184.216.34']))).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('https://hooks.example.com/x', policy, resolveTo(['93.184.216.34', '10.0.0.5']))).rejects.toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'url' }] });
    await expect(checkWebhookUrl('http://[::1]:8080/', policy)).rejects.toMatchObject({ fieldErrors: [{ field: 'url' }] });
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
    answers = ['169.254.169.254'];
    const refused = await call({ all: true });
    expect(refused.err).toBeInstanceOf(AddressRefused);
  });
});

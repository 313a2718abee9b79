import { afterAll, describe, expect, it } from 'vitest';
import { TefcaPeerClient } from './peer-client.js';

const peer = (baseUrl: string) => ({ homeCommunityId: 'urn:oid:1.2.3', name: 'P', baseUrl, capabilities: ['xcpd' as const], token: 'secret' });

describe('TefcaPeerClient', () => {
  const strict = new TefcaPeerClient({ allowPrivateAddresses: false, timeoutMs: 1000 });
  afterAll(() => strict.close());

  it('refuses peers on loopback, private and metadata addresses unless configured otherwise', async () => {
    for (const url of ['http://127.0.0.1:9', 'http://10.0.0.1', 'http://169.254.169.254', 'http://[::1]:9']) {
      const answer = await strict.post(peer(url), '/tefca/xcpd/discover', {}, Date.now() + 60_000, 'req');
      expect(answer).toMatchObject({ ok: false, status: 'error', error: expect.stringContaining('private, loopback, link-local or reserved') });
    }
  });

  it('gives up at the deadline without sending', async () => {
    expect(await strict.post(peer('https://example.org'), '/x', {}, Date.now() - 1, 'req')).toMatchObject({ ok: false, status: 'timeout' });
  });
});

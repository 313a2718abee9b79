import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { onboardPartner, portalSession } from './support/partner-onboarding.js';

/**
 * A grant reaches open portal sessions at once: a session's scopes follow its partner's grant, so
 * the request after an operator's change (over HTTP, and a new operation on an open graphql-ws
 * connection) carries the new scopes, with no sign-out and sign-in.
 */

let t: TestSystem;
const VIEWER = '{ viewer { scopes } }';
const TEFCA = ['tefca.xcpd.*', 'tefca.xca.*'];

beforeAll(async () => {
  t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
});
afterAll(() => t?.close());

async function scopesOf(session: string): Promise<string[]> {
  const res = await t.graphql<{ viewer: { scopes: string[] } }>(VIEWER, {}, session);
  expect(res.errors).toBeUndefined();
  return res.data!.viewer.scopes;
}

async function grant(gpid: string, scopes: string[]): Promise<void> {
  const res = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes } });
  expect(res.statusCode, res.body).toBe(200);
}

async function grantOf(gpid: string): Promise<string[]> {
  const res = await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: gpid });
  return res.data!.partner.grantedScopes;
}

describe('a scope grant reaches open portal sessions', () => {
  it('over HTTP: the next request of a signed-in session carries the granted TEFCA scopes', async () => {
    const { partnerGpid, email } = await onboardPartner(t, `live-${Date.now().toString(36)}`);
    const session = await portalSession(t, email);
    // Warm the gateway's credential cache with the session's present scopes.
    expect(await scopesOf(session)).not.toContain('tefca.xcpd.*');
    const communitiesBefore = await t.graphql('{ tefcaCommunities { homeCommunityId } }', {}, session);
    expect(communitiesBefore.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');

    const before = await grantOf(partnerGpid);
    await grant(partnerGpid, [...before, ...TEFCA]);
    expect(await scopesOf(session)).toEqual(expect.arrayContaining(TEFCA));
    const communitiesAfter = await t.graphql('{ tefcaCommunities { homeCommunityId } }', {}, session);
    expect(communitiesAfter.errors).toBeUndefined();

    // A session signed in before the grant and one signed in after carry the same scopes.
    const fresh = await portalSession(t, email);
    expect((await scopesOf(fresh)).sort()).toEqual((await scopesOf(session)).sort());
  });

  it('over graphql-ws: an operation started after the grant runs with the new scopes on the same connection', async () => {
    const { partnerGpid, email } = await onboardPartner(t, `ws-${Date.now().toString(36)}`);
    const session = await portalSession(t, email);
    const base = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    const socket = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: { type: string; id?: string; payload?: { data?: { viewer?: { scopes: string[] } }; errors?: unknown[] } }[] = [];
    const waiters: (() => void)[] = [];
    socket.on('message', (data: Buffer) => {
      messages.push(JSON.parse(data.toString()));
      for (const w of waiters.splice(0)) w();
    });
    const next = (pred: (m: (typeof messages)[number]) => boolean) =>
      new Promise<(typeof messages)[number]>((resolve) => {
        const check = () => {
          const found = messages.find(pred);
          if (found) resolve(found);
          else waiters.push(check);
        };
        check();
      });
    await new Promise<void>((resolve) => socket.on('open', () => resolve()));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${session}` } }));
    await next((m) => m.type === 'connection_ack');

    const run = async (id: string) => {
      socket.send(JSON.stringify({ type: 'subscribe', id, payload: { query: VIEWER } }));
      const m = await next((x) => x.type === 'next' && x.id === id);
      return m.payload!.data!.viewer!.scopes;
    };
    expect(await run('1')).not.toContain('tefca.xcpd.*');
    await grant(partnerGpid, [...(await grantOf(partnerGpid)), ...TEFCA]);
    expect(await run('2')).toEqual(expect.arrayContaining(TEFCA));
    socket.close();
  });
});

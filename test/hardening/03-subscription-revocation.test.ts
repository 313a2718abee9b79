import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from '../support/system.js';
import { eventually, PATIENCE_MS } from '../support/patience.js';

/**
 * Issue 7, point 3: open graphql-ws subscriptions kept streaming events after their credential was
 * revoked or expired. Now the socket is closed at once with 4403 "Forbidden: credential revoked",
 * and at the credential's expiry with 4401 "Unauthorized: credential expired".
 */

interface Closed {
  code: number;
  reason: string;
}

const SUBSCRIPTION = 'subscription($after: ID) { events(after: $after) { id type } }';

describe('subscriptions end when their credential is revoked or expires', () => {
  let t: TestSystem;
  let url: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await bootSystem();
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    url = `${address.replace('http', 'ws')}/graphql`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await t?.close();
  });

  /**
   * Open a subscription with `bearer`, live only or resuming `after` an event id; resolves once the
   * connection is acknowledged (`accepted`) or closed without being acknowledged.
   */
  async function subscribe(bearer: string, after: string | null = null): Promise<{ accepted: boolean; closed: Promise<Closed>; errored: Promise<unknown>; events: unknown[] }> {
    const client = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${bearer}` }, lazy: false, retryAttempts: 0, onNonLazyError: () => undefined });
    clients.push(client);
    const closed = new Promise<Closed>((resolve) => client.on('closed', (event) => resolve(event as Closed)));
    const connected = new Promise<boolean>((resolve) => client.on('connected', () => resolve(true)));
    const events: unknown[] = [];
    const errored = new Promise<unknown>((resolve) => {
      client.subscribe({ query: SUBSCRIPTION, variables: { after } }, { next: (value) => void events.push(value), error: resolve, complete: () => resolve('complete') });
    });
    const accepted = await Promise.race([connected, closed.then(() => false)]);
    return { accepted, closed, errored, events };
  }

  /** The id of the logged partner.token.revoked event of this token. */
  async function revocationEventId(tokenId: string): Promise<string> {
    return eventually(async () => {
      const res = await t.graphql<{ events: { edges: { node: { id: string; data: Record<string, unknown> } }[] } }>('{ events(types: ["partner.token.revoked"], first: 100) { edges { node { id data } } } }');
      const id = res.data?.events.edges.find((e) => e.node.data['token_id'] === tokenId)?.node.id;
      expect(id).toBeDefined();
      return id!;
    });
  }

  async function newToken(name: string, extra: Record<string, unknown> = {}): Promise<{ secret: string; tokenId: string }> {
    const res = await t.graphql<{ createApiToken: { secret: string; token: { tokenId: string } } }>(
      'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret token { tokenId } } }',
      { i: { name, scopes: ['cms.pipeline.read'], ...extra } },
    );
    expect(res.errors).toBeUndefined();
    return { secret: res.data!.createApiToken.secret, tokenId: res.data!.createApiToken.token.tokenId };
  }

  it('closes with 4403 the moment its API token is revoked over REST, and refuses it afterwards', async () => {
    const { secret, tokenId } = await newToken('streaming then revoked');
    const other = await newToken('streaming and kept');
    // The kept subscription resumes after an event logged before it opens (a throwaway token's
    // revocation), so it gets the revocation below however late its subscribe lands.
    const marker = await newToken('marker');
    expect((await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${marker.tokenId}` })).statusCode).toBe(200);
    const doomed = await subscribe(secret);
    const kept = await subscribe(other.secret, await revocationEventId(marker.tokenId));
    expect([doomed.accepted, kept.accepted]).toEqual([true, true]);

    const revoked = await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${tokenId}` });
    expect(revoked.statusCode).toBe(200);

    expect(await doomed.closed).toMatchObject({ code: 4403, reason: 'Forbidden: credential revoked' });
    expect(await doomed.errored).toMatchObject({ code: 4403 });

    // The revocation event itself still reaches the connection whose credential stands, not the closed one.
    const revocation = await revocationEventId(tokenId);
    await eventually(async () => expect(kept.events).toContainEqual({ data: { events: { id: revocation, type: 'partner.token.revoked' } } }));
    expect(doomed.events).toEqual([]);

    // A new connection with the revoked token is refused at the handshake.
    const again = createClient({ url, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${secret}` }, lazy: false, retryAttempts: 0, onNonLazyError: () => undefined });
    clients.push(again);
    const refused = await new Promise<Closed>((resolve) => again.on('closed', (event) => resolve(event as Closed)));
    expect(refused.code).toBe(4403);
  });

  it('closes with 4403 when the OAuth client behind an access token is revoked', async () => {
    const registered = await t.graphql<{ registerOAuthClient: { clientSecret: string; client: { clientId: string } } }>(
      'mutation($i: RegisterOAuthClientInput!) { registerOAuthClient(input: $i) { clientSecret client { clientId } } }',
      { i: { clientName: 'Streaming client', scope: 'cms.pipeline.read', tokenEndpointAuthMethod: 'client_secret_post' } },
    );
    expect(registered.errors).toBeUndefined();
    const { clientSecret, client } = registered.data!.registerOAuthClient;
    const issued = await t.request({
      method: 'POST',
      url: '/oauth/token',
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: clientSecret }).toString(),
    });
    expect(issued.statusCode).toBe(200);
    const stream = await subscribe(issued.json().access_token as string);
    expect(stream.accepted).toBe(true);

    const revoked = await t.request({ method: 'DELETE', url: '/cms/tokens', body: { token_id: client.clientId } });
    expect(revoked.statusCode).toBe(200);
    expect(await stream.closed).toMatchObject({ code: 4403, reason: 'Forbidden: credential revoked' });
  });

  it('closes with 4401 when its API token expires while the connection is open, without waiting for an event', async () => {
    // The close comes from a timer at the expiry itself. The token must outlive the handshake, which
    // a busy machine can delay by seconds: one that expired before its connection was accepted is
    // tried again with twice the time.
    let stream: Awaited<ReturnType<typeof subscribe>>;
    for (let lifetimeMs = 4000; ; lifetimeMs *= 2) {
      const { secret } = await newToken(`expiring in ${lifetimeMs} ms`, { expiresAt: new Date(Date.now() + lifetimeMs).toISOString() });
      stream = await subscribe(secret);
      if (stream.accepted || lifetimeMs >= PATIENCE_MS) break;
    }
    expect(stream.accepted).toBe(true);
    expect(await stream.closed).toMatchObject({ code: 4401, reason: 'Unauthorized: credential expired' });
    expect(stream.events).toEqual([]);
  });
});

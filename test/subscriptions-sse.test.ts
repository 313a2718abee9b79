import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, NetworkError, type Client } from 'graphql-sse';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventually, PATIENCE_MS } from './support/patience.js';

/**
 * Subscriptions over Server-Sent Events (the graphql-sse protocol, distinct connections mode) on
 * /graphql/stream, with the graphql-sse client: the same credentials, revocation, expiry, resume
 * and operation limits as graphql-ws, open streams bounded per partner, streams ended at shutdown.
 */

const REVOCATIONS = 'subscription($after: ID) { events(types: ["partner.token.revoked"], after: $after) { id type data } }';

interface Result {
  data?: { events?: { id: string; type: string; data: Record<string, unknown> } | null; viewer?: unknown } | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

interface Stream {
  results: Result[];
  /** Resolves when the stream ends: 'complete', or the error the client reported. */
  ended: Promise<unknown>;
  /** Resolves once the response's headers arrived (the subscription is registered by then). */
  connected: Promise<void>;
  dispose(): void;
}

describe('subscriptions over Server-Sent Events (graphql-sse)', () => {
  let t: TestSystem;
  let base: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    // At most 4 requests in flight (load shedding): open streams must not count once they have started.
    t = await bootSystem({ SVC_GRAPHQL_SSE_MAX_STREAMS_PER_PARTNER: '4', SVC_MAX_IN_FLIGHT: '4', SVC_RATE_LIMITS: 'off' });
    base = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
  });
  let stopped = false;
  afterAll(async () => {
    for (const c of clients) c.dispose();
    if (!stopped) await t?.close();
  });

  /** One operation over its own event stream, with `bearer` (none: no Authorization header). */
  function open(bearer: string | null, query: string, variables: Record<string, unknown> = {}): Stream {
    let connected!: () => void;
    const ready = new Promise<void>((resolve) => (connected = resolve));
    const client = createClient({
      url: `${base}/graphql/stream`,
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
      retryAttempts: 0,
      on: { connected: () => connected() },
    });
    clients.push(client);
    const results: Result[] = [];
    let dispose: () => void = () => undefined;
    const ended = new Promise<unknown>((resolve) => {
      dispose = client.subscribe({ query, variables }, { next: (value) => void results.push(value as Result), error: resolve, complete: () => resolve('complete') });
    });
    return { results, ended, connected: Promise.race([ready, ended.then(() => undefined)]), dispose };
  }

  async function newToken(name: string, extra: Record<string, unknown> = {}): Promise<{ secret: string; tokenId: string }> {
    const res = await t.graphql<{ createApiToken: { secret: string; token: { tokenId: string } } }>(
      'mutation($i: CreateApiTokenInput!) { createApiToken(input: $i) { secret token { tokenId } } }',
      { i: { name, scopes: ['cms.pipeline.read'], ...extra } },
    );
    expect(res.errors).toBeUndefined();
    return { secret: res.data!.createApiToken.secret, tokenId: res.data!.createApiToken.token.tokenId };
  }

  async function revoke(tokenId: string): Promise<void> {
    expect((await t.request({ method: 'DELETE', url: `/cms/tokens?token_id=${tokenId}` })).statusCode).toBe(200);
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

  const eventIds = (stream: Stream) => stream.results.map((r) => r.data?.events?.id).filter((id): id is string => !!id);

  it('streams events, ends the stream the moment its credential is revoked, and resumes with after exactly where it left off', async () => {
    const doomed = await newToken('sse doomed');
    const kept = await newToken('sse kept');
    // Both streams resume after an event logged before they open, so they get what follows however late they land.
    const marker = await newToken('sse marker');
    await revoke(marker.tokenId);
    const markerEvent = await revocationEventId(marker.tokenId);
    const a = open(doomed.secret, REVOCATIONS, { after: markerEvent });
    const b = open(kept.secret, REVOCATIONS, { after: markerEvent });
    await Promise.all([a.connected, b.connected]);

    const first = await newToken('sse first');
    await revoke(first.tokenId);
    const firstEvent = await revocationEventId(first.tokenId);
    await eventually(async () => expect(eventIds(a)).toContain(firstEvent));
    expect(a.results[0]).toEqual({ data: { events: { id: firstEvent, type: 'partner.token.revoked', data: expect.objectContaining({ token_id: first.tokenId }) } } });

    await revoke(doomed.tokenId);
    // The stream ends at once, its last result saying why; nothing after the revocation reaches it.
    expect(await a.ended).toBe('complete');
    expect(a.results.at(-1)).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'credential_revoked' } }] });
    const doomedEvent = await revocationEventId(doomed.tokenId);
    await eventually(async () => expect(eventIds(b)).toEqual([firstEvent, doomedEvent]));
    expect(eventIds(a)).not.toContain(doomedEvent);

    // A new stream with the revoked credential is refused before it starts.
    const again = await fetch(`${base}/graphql/stream`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${doomed.secret}` } });
    expect(again.status).toBe(401);

    // Resuming after the first event gets exactly what came after it, then live events.
    const resumed = open(kept.secret, REVOCATIONS, { after: firstEvent });
    await eventually(async () => expect(eventIds(resumed)).toEqual([doomedEvent]));
    const later = await newToken('sse later');
    await revoke(later.tokenId);
    const laterEvent = await revocationEventId(later.tokenId);
    await eventually(async () => expect(eventIds(resumed)).toEqual([doomedEvent, laterEvent]));
    await eventually(async () => expect(eventIds(b)).toEqual([firstEvent, doomedEvent, laterEvent]));
    resumed.dispose();
    b.dispose();
  });

  it('answers with an unbuffered event stream that starts with a comment', async () => {
    const controller = new AbortController();
    const res = await fetch(`${base}/graphql/stream?query=${encodeURIComponent(REVOCATIONS)}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${t.operatorToken}` }, signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('cache-control')).toBe('no-cache, no-transform');
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toMatch(/^:/);
    controller.abort();
  });

  it('refuses a stream without a credential, or with a bad one, with 401 before it starts', async () => {
    const anonymous = await fetch(`${base}/graphql/stream`, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ query: REVOCATIONS }) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    expect(await anonymous.json()).toMatchObject({ errors: [{ extensions: { code: 'UNAUTHENTICATED', status: 401 } }] });

    const viaClient = open(null, REVOCATIONS);
    const error = await viaClient.ended;
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as NetworkError).response?.status).toBe(401);

    const wrong = await fetch(`${base}/graphql/stream?query=${encodeURIComponent(REVOCATIONS)}`, { headers: { accept: 'text/event-stream', authorization: 'Bearer svc_pat_wrong' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toMatchObject({ errors: [{ extensions: { code: 'INVALID_TOKEN' } }] });
  });

  it('refuses a partner over its open-stream limit with 429 and Retry-After, and admits it again once one closes', async () => {
    const { secret } = await newToken('sse many');
    // The operator's partner holds no other stream now; its limit is 4 (SVC_GRAPHQL_SSE_MAX_STREAMS_PER_PARTNER).
    const streams = Array.from({ length: 4 }, () => open(secret, REVOCATIONS));
    await Promise.all(streams.map((s) => s.connected));
    // Four open streams are not four requests in flight (SVC_MAX_IN_FLIGHT is 4 here): other work is still admitted.
    expect((await fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` }, body: JSON.stringify({ query: '{ viewer { kind } }' }) })).status).toBe(200);
    const over = await fetch(`${base}/graphql/stream?query=${encodeURIComponent(REVOCATIONS)}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${secret}` } });
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('5');
    expect(await over.json()).toMatchObject({ errors: [{ extensions: { code: 'RATE_LIMITED', policy: 'graphql-sse-streams-per-partner', limit: 4, retry_after: 5 } }] });
    const viaClient = open(secret, REVOCATIONS);
    expect(((await viaClient.ended) as NetworkError).response?.status).toBe(429);

    streams[0]!.dispose();
    const admitted = await eventually(async () => {
      const res = await fetch(`${base}/graphql/stream?query=${encodeURIComponent('{ viewer { kind } }')}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${secret}` } });
      expect(res.status).toBe(200);
      return res.text();
    });
    expect(admitted).toContain('event: complete');
    for (const s of streams) s.dispose();
  });

  it('applies the operation limits before anything runs, as the stream\'s one result, and serves queries per the protocol', async () => {
    const tooDeep = open(t.operatorToken, 'subscription { events { partner { syncJobs { partner { syncJobs { partner { syncJobs { partner { syncJobs { partner { gpid } } } } } } } } } } }');
    expect(await tooDeep.ended).toBe('complete');
    expect(tooDeep.results).toEqual([{ data: null, errors: [expect.objectContaining({ extensions: expect.objectContaining({ code: 'OPERATION_TOO_DEEP' }) })] }]);

    const scopeless = await newToken('sse scopeless', { scopes: ['cms.sdk.read'] });
    const refused = open(scopeless.secret, 'subscription { pipelineSyncCompleted { id } }');
    expect(await refused.ended).toBe('complete');
    expect(refused.results).toMatchObject([{ errors: [{ extensions: { code: 'INSUFFICIENT_SCOPE', required_scope: 'cms.pipeline.read' } }] }]);

    const query = open(t.operatorToken, '{ viewer { kind partnerGpid } }');
    expect(await query.ended).toBe('complete');
    expect(query.results).toEqual([{ data: { viewer: { kind: 'service', partnerGpid: 'CMS-00000000' } } }]);

    const notAStream = await fetch(`${base}/graphql/stream?query=${encodeURIComponent('{ viewer { kind } }')}`, { headers: { accept: 'application/json', authorization: `Bearer ${t.operatorToken}` } });
    expect(notAStream.status).toBe(406);
    expect(await notAStream.json()).toMatchObject({ errors: [{ extensions: { code: 'NOT_ACCEPTABLE' } }] });
    const noQuery = await fetch(`${base}/graphql/stream`, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json', authorization: `Bearer ${t.operatorToken}` }, body: JSON.stringify({ variables: {} }) });
    expect(noQuery.status).toBe(400);
    expect(await noQuery.json()).toEqual({ errors: [{ message: 'Missing query', extensions: { code: 'BAD_REQUEST', status: 400 } }] });
    const mutationOverGet = await fetch(`${base}/graphql/stream?query=${encodeURIComponent('mutation { registerPartner(input: { legalName: "Never", organizationType: "PAYER" }) { gpid } }')}`, { headers: { accept: 'text/event-stream', authorization: `Bearer ${t.operatorToken}` } });
    expect(mutationOverGet.status).toBe(405);
    expect(await mutationOverGet.json()).toMatchObject({ errors: [{ extensions: { code: 'METHOD_NOT_ALLOWED' } }] });
    const reservation = await fetch(`${base}/graphql/stream`, { method: 'PUT', headers: { accept: 'text/event-stream', authorization: `Bearer ${t.operatorToken}` } });
    expect(reservation.status).toBe(405);
    expect(reservation.headers.get('allow')).toBe('GET, POST');
  });

  it('ends the stream at the expiry of its credential, without waiting for an event', async () => {
    // The token must outlive the stream's start, which a busy machine can delay: one that expired
    // before its stream started is tried again with twice the time.
    for (let lifetimeMs = 2000; ; lifetimeMs *= 2) {
      const { secret } = await newToken(`sse expiring in ${lifetimeMs} ms`, { expiresAt: new Date(Date.now() + lifetimeMs).toISOString() });
      const stream = open(secret, REVOCATIONS);
      await stream.connected;
      const ended = await stream.ended;
      if (ended !== 'complete' && lifetimeMs < PATIENCE_MS) continue;
      expect(ended).toBe('complete');
      expect(stream.results).toMatchObject([{ errors: [{ extensions: { code: 'UNAUTHENTICATED', reason: 'credential_expired' } }] }]);
      break;
    }
  });

  it('ends open streams when the gateway shuts down, saying so', async () => {
    const stream = open(t.operatorToken, REVOCATIONS);
    await stream.connected;
    stopped = true;
    const closing = t.close();
    expect(await stream.ended).toBe('complete');
    // A connection the client's pool opened without sending a request would hold the listener's
    // close until Node's headersTimeout (60 s); it carries no stream.
    t.system.app.server.closeAllConnections();
    await closing;
    expect(stream.results).toMatchObject([{ errors: [{ extensions: { code: 'NOT_READY', reason: 'shutting_down' } }] }]);
  });
});

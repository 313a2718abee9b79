import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * A request held in flight for as long as the test wants: its headers are sent, the rest of its
 * body only when `finish` is called, which answers the status the server then gives it.
 */
function heldRequest(address: string, token: string, query: string): { finish(): Promise<number> } {
  const { port } = new URL(address);
  const body = JSON.stringify({ query });
  const head = `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n`;
  const socket = connect(Number(port), '127.0.0.1', () => socket.write(head + body.slice(0, 1)));
  let answer = '';
  const status = new Promise<number>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      const line = /^HTTP\/1\.1 (\d{3}) /.exec(answer);
      if (line) {
        resolve(Number(line[1]));
        socket.destroy();
      }
    });
    socket.on('error', reject);
    socket.on('close', () => reject(new Error(`connection closed without an answer: ${answer.slice(0, 200)}`)));
  });
  return {
    finish() {
      socket.write(body.slice(1));
      return status;
    },
  };
}

/**
 * Overload is answered by refusing work early. The per-process in-flight limit is forced to 1
 * (SVC_MAX_IN_FLIGHT): while one request is held (a GraphQL request whose body the test sends only
 * at the end), every other request is refused before any work with 503, Retry-After and a problem
 * document, on REST and GraphQL alike; the probes keep answering, /ready says why the process
 * should get no traffic, and the place is free again once the held request is answered.
 */
describe('load shedding', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_MAX_IN_FLIGHT: '1' });
  });
  afterAll(() => t?.close());

  const readyLoad = async () => ((await t.request({ url: '/ready', token: null })).json() as { checks: { load?: boolean } }).checks.load;

  it('refuses work beyond the limit with 503 problem+json and Retry-After, and frees the place afterwards', async () => {
    expect((await t.graphql('{ viewer { kind } }')).status).toBe(200);
    expect(await readyLoad()).toBe(true);

    // Held until the test has seen every refusal, however long that takes (no deadline to race).
    const held = heldRequest(await t.system.app.listen({ port: 0, host: '127.0.0.1' }), t.operatorToken, '{ viewer { kind } }');
    while ((await readyLoad()) !== false) await new Promise((r) => setImmediate(r));

    const rest = await t.request({ url: '/cms/tokens' });
    expect(rest.statusCode).toBe(503);
    expect(Number(rest.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(rest.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(rest.json()).toMatchObject({ status: 503, code: 'SERVER_BUSY' });

    const graphql = await t.request({ method: 'POST', url: '/graphql', body: { query: '{ viewer { kind } }' } });
    expect(graphql.statusCode).toBe(503);
    expect(Number(graphql.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(graphql.json()).toMatchObject({ status: 503, code: 'SERVER_BUSY' });

    expect((await t.request({ url: '/health', token: null })).statusCode).toBe(200);
    const ready = await t.request({ url: '/ready', token: null });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({ status: 'not_ready', checks: { load: false } });

    expect(await held.finish()).toBe(200);
    expect((await t.graphql('{ viewer { kind } }')).status).toBe(200);
    expect(await readyLoad()).toBe(true);
  });

  it('never keeps counting a request whose client left, answered or still waiting for its turn', async () => {
    // A turn budget of 1 ms queues most of a burst; every client hangs up right after sending.
    const small = await bootSystem({ SVC_MAX_IN_FLIGHT: '4', SVC_SHED_TURN_MS: '1' });
    try {
      const address = await small.system.app.listen({ port: 0, host: '127.0.0.1' });
      const { port } = new URL(address);
      // Long polls: the first ones are still at work, the others still waiting, when the clients leave.
      const body = JSON.stringify({ query: '{ event(id: "evt_never_recorded", waitMs: 2000) { id } }' });
      const request = `POST /graphql HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${small.operatorToken}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      for (let round = 0; round < 3; round++) {
        await Promise.all(
          Array.from({ length: 12 }, () => new Promise<void>((resolve) => {
            const socket = connect(Number(port), '127.0.0.1', () => socket.write(request, () => setTimeout(() => socket.destroy(), 100)));
            socket.on('close', () => resolve());
            socket.on('error', () => resolve());
          })),
        );
      }
      // Once the long polls still at work have ended (2 s at most), the whole limit is free again: a
      // count kept for a client that left would hold it below four for good.
      await vi.waitFor(
        async () => {
          const answers = await Promise.all(Array.from({ length: 4 }, () => small.graphql('{ viewer { kind } }')));
          expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
        },
        { timeout: PATIENCE_MS, interval: 200 },
      );
    } finally {
      await small.close();
    }
  });
});

import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { createLogger } from '@svc/platform';
import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * Issue 7, point 8, on WebSocket upgrades: Fastify hooks do not run on an upgrade, so
 * `/graphql?access_token=…` (or any credential parameter refused on HTTP) is refused by the
 * gateway's upgrade handler with a 400 problem document before the handshake, and the URL with
 * its secret reaches no log line.
 */

function memoryLogger() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ logLevel: 'debug', role: 'all' }, destination) };
}

/** A raw HTTP/1.1 upgrade request; resolves with everything the server wrote before it closed. */
function rawUpgrade(port: number, target: string, extraHeaders: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // A handshake that succeeded keeps the socket open: stop at the end of its headers.
      if (Buffer.concat(chunks).toString('latin1').startsWith('HTTP/1.1 101')) socket.destroy();
    });
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    const headers = {
      Host: `127.0.0.1:${port}`,
      Connection: 'Upgrade',
      Upgrade: 'websocket',
      'Sec-WebSocket-Version': '13',
      'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol': 'graphql-transport-ws',
      ...extraHeaders,
    };
    socket.write(`GET ${target} HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`);
  });
}

function parse(raw: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', body = ''] = raw.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = Object.fromEntries(headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

describe('credentials in the query string of a WebSocket upgrade', () => {
  const { lines, logger } = memoryLogger();
  let t: TestSystem;
  let port: number;
  let apiToken: string;

  beforeAll(async () => {
    t = await bootSystem({}, { logger });
    const created = await t.request({ method: 'POST', url: '/cms/tokens', body: { name: 'websocket query test', scopes: ['cms.pipeline.read'] } });
    expect(created.statusCode).toBe(201);
    apiToken = created.json().secret;
    expect(apiToken).toEqual(expect.any(String));
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(address).port);
  });
  afterAll(() => t?.close());

  it('refuses /graphql?access_token= with a 400 problem before the handshake, and never logs the token', async () => {
    const answer = parse(await rawUpgrade(port, `/graphql?access_token=${apiToken}`));
    expect(answer.status).toBe(400);
    expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(answer.headers['upgrade']).toBeUndefined();
    const problem = JSON.parse(answer.body);
    expect(problem).toMatchObject({ status: 400, code: 'BAD_REQUEST', instance: '/graphql', errors: [{ field: 'access_token', message: expect.stringContaining('Authorization header') }] });
    expect(problem.detail).toMatch(/Authorization header/);
    expect(problem.request_id).toBe(answer.headers['x-request-id']);
    expect(JSON.stringify(problem)).not.toContain(apiToken);
    // One structured line says what was refused, without the URL's secret.
    expect(lines.some((l) => l.includes(answer.headers['x-request-id']!) && l.includes('WebSocket upgrade refused'))).toBe(true);
    expect(lines.join('\n')).not.toContain(apiToken);
  });

  it('refuses every credential parameter refused on HTTP (password, client_secret, …), through the ws client too', async () => {
    const secret = 'Portal-Password-In-A-WebSocket-URL-4242';
    const answer = parse(await rawUpgrade(port, `/graphql?password=${secret}&client_secret=${secret}x`));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).errors.map((e: { field: string }) => e.field).sort()).toEqual(['client_secret', 'password']);

    const refused = await new Promise<{ status: number | undefined; body: string }>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql?access_token=${apiToken}`, 'graphql-transport-ws');
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      });
      ws.on('error', () => undefined);
    });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ code: 'BAD_REQUEST', errors: [{ field: 'access_token' }] });

    const logs = lines.join('\n');
    expect(logs).not.toContain(secret);
    expect(logs).not.toContain(apiToken);
  });

  it('still upgrades /graphql without credentials in the URL, and with harmless query parameters', async () => {
    expect(parse(await rawUpgrade(port, '/graphql')).status).toBe(101);
    expect(parse(await rawUpgrade(port, '/graphql?client=dashboard')).status).toBe(101);
    // And the connection authenticates the usual way, in connection_init.
    const client = createClient({ url: `ws://127.0.0.1:${port}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${apiToken}` }, lazy: false, retryAttempts: 0, onNonLazyError: () => undefined });
    const acked = await new Promise<string>((resolve) => {
      client.on('connected', () => resolve('connection_ack'));
      client.on('closed', (event) => resolve(`closed ${(event as { code: number }).code}`));
    });
    await client.dispose();
    expect(acked).toBe('connection_ack');
  });
});

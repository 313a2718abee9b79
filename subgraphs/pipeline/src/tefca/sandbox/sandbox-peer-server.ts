import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DomainError, problemFor, SANDBOX_PEER_COMMUNITY_ID, SANDBOX_PEER_COMMUNITY_NAME, type TefcaPeer } from '@svc/platform';
import { bearerMatches, SANDBOX_ANSWERS, SANDBOX_PATHS, type SandboxPath } from './sample-answers.js';

/** The most a request to the sandbox peer may weigh (a discovery is a few hundred bytes). */
const MAX_REQUEST_BYTES = 64 * 1024;

/**
 * The built-in sandbox peer community as a real HTTP server on the loopback interface, on a port
 * the system picks: the outbound client reaches it exactly as it reaches a peer of the network
 * (undici, bearer token, JSON, deadline), so a partner's first TEFCA exchange in a sandbox runs the
 * whole outbound path. It holds no state: its answers come from the fixed sample data set, so every
 * replica of the pipeline subgraph can serve its own. Started on first use, closed with the
 * subgraph's workers.
 *
 * `node:http` rather than Fastify: three fixed POST routes with a JSON body, and the pipeline
 * subgraph needs no web framework of its own for them.
 */
export class SandboxPeerServer {
  private server: Server | null = null;
  private starting: Promise<TefcaPeer> | null = null;
  /** The bearer credential this peer "issued" to our community; a request without it is refused. */
  private readonly token = `sbx_${randomBytes(24).toString('base64url')}`;

  /** The peer entry of the directory, starting the server on the first call. */
  peer(): Promise<TefcaPeer> {
    this.starting ??= this.listen().catch((err: unknown) => {
      this.starting = null;
      throw err;
    });
    return this.starting;
  }

  private async listen(): Promise<TefcaPeer> {
    const server = createServer((req, res) => void this.handle(req, res));
    // Keep-alive sockets of the client's pool must not hold close() open.
    server.keepAliveTimeout = 4000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.server = server;
    const { port } = server.address() as AddressInfo;
    return { homeCommunityId: SANDBOX_PEER_COMMUNITY_ID, name: SANDBOX_PEER_COMMUNITY_NAME, baseUrl: `http://127.0.0.1:${port}`, capabilities: ['xcpd', 'xca'], token: this.token, sandbox: true };
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    this.starting = null;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0] ?? '';
    try {
      if (!(SANDBOX_PATHS as readonly string[]).includes(path)) throw new DomainError('NOT_FOUND', `No route ${path.slice(0, 80)} at the sandbox peer.`);
      if (req.method !== 'POST') throw new DomainError('METHOD_NOT_ALLOWED', 'The sandbox peer answers POST only.');
      if (!bearerMatches(req.headers.authorization, this.token)) throw new DomainError('UNAUTHENTICATED', 'A bearer credential issued by the sandbox peer is required.');
      if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
      const text = await readBody(req);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new DomainError('BAD_REQUEST', 'The body is not valid JSON.');
      }
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new DomainError('BAD_REQUEST', 'The body must be a JSON object.');
      send(res, 200, 'application/json', SANDBOX_ANSWERS[path as SandboxPath](body as Record<string, unknown>));
    } catch (err) {
      const e = err instanceof DomainError ? err : new DomainError('INTERNAL', 'The sandbox peer failed to answer.');
      send(res, e.status, 'application/problem+json', problemFor(e.code, e.message, { instance: path, fieldErrors: e.fieldErrors }));
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REQUEST_BYTES) throw new DomainError('PAYLOAD_TOO_LARGE', `The body is larger than ${MAX_REQUEST_BYTES} bytes.`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, type: string, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': `${type}; charset=utf-8`, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
  res.end(text);
}

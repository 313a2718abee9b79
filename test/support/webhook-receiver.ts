import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** One request the receiver saw. */
export interface Receipt {
  path: string;
  id: string;
  timestamp: string;
  signatures: string[];
  body: string;
  /** Which of the path's secrets verified it (standardwebhooks' verify), by index; -1 for none. */
  verifiedWith: number;
  status: number;
  at: number;
}

/** What a path answers: a status (and headers), after a delay or once the test releases the path. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
  /**
   * Answer only once the test calls `release(path)`: a slow receiver whose slowness does not depend
   * on the machine's speed (a delay is raced by the sender's work; a held request is not).
   */
  held?: boolean;
}

interface PathState {
  secrets: string[];
  /** Answers to give to verified requests, in order; once empty, `fallback`. */
  script: Answer[];
  fallback: Answer;
  /** Accept anything without verifying (a receiver that does not check signatures). */
  trusting: boolean;
  /** Processed deliveries, deduplicated by webhook-id. */
  processed: Map<string, unknown>;
  inFlight: number;
  maxInFlight: number;
  /** Resolves when the test releases the path's held answers (see `release`). */
  released: Promise<void>;
  release: () => void;
}

/**
 * A local Standard Webhooks receiver, as a partner would write one: it verifies every request with
 * the standardwebhooks package (401 when no secret of the path verifies it), then processes each
 * webhook-id once, answering what the path's script says.
 */
export class WebhookReceiver {
  readonly receipts: Receipt[] = [];
  private readonly paths = new Map<string, PathState>();
  private constructor(private readonly server: Server, readonly baseUrl: string) {}

  static async start(): Promise<WebhookReceiver> {
    let receiver!: WebhookReceiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => void receiver.handle(req.url ?? '/', req.headers, Buffer.concat(chunks).toString('utf8')).then((a) => {
        res.writeHead(a.status, { 'content-type': 'text/plain', ...(a.headers ?? {}) });
        res.end(`answer ${a.status}`);
      }));
    });
    server.keepAliveTimeout = 1000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return receiver;
  }

  /** Register a path with the secrets it accepts; answers its URL. */
  path(name: string, options: { secrets?: string[]; script?: Answer[]; fallback?: Answer; trusting?: boolean } = {}): string {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    this.paths.set(`/${name}`, {
      released,
      release,
      secrets: options.secrets ?? [],
      script: [...(options.script ?? [])],
      fallback: options.fallback ?? { status: 200 },
      trusting: options.trusting ?? false,
      processed: new Map(),
      inFlight: 0,
      maxInFlight: 0,
    });
    return `${this.baseUrl}/${name}`;
  }

  state(name: string): PathState {
    const state = this.paths.get(`/${name}`);
    if (!state) throw new Error(`no path ${name}`);
    return state;
  }

  /** Let the path's held answers (`held: true`) go, those waiting now and any later ones. */
  release(name: string): void {
    this.state(name).release();
  }

  setSecrets(name: string, secrets: string[]): void {
    this.state(name).secrets = secrets;
  }

  of(name: string): Receipt[] {
    return this.receipts.filter((r) => r.path === `/${name}`);
  }

  private async handle(path: string, headers: IncomingHttpHeaders, body: string): Promise<Answer> {
    const state = this.paths.get(path);
    const h = (name: string) => String(headers[name] ?? '');
    const receipt: Receipt = { path, id: h('webhook-id'), timestamp: h('webhook-timestamp'), signatures: h('webhook-signature').split(' '), body, verifiedWith: -1, status: 404, at: Date.now() };
    this.receipts.push(receipt);
    if (!state) return { status: 404 };
    receipt.verifiedWith = state.secrets.findIndex((secret) => {
      try {
        new Webhook(secret).verify(body, { 'webhook-id': receipt.id, 'webhook-timestamp': receipt.timestamp, 'webhook-signature': h('webhook-signature') });
        return true;
      } catch {
        return false;
      }
    });
    if (receipt.verifiedWith === -1 && !state.trusting) return (receipt.status = 401), { status: 401 };
    const answer = state.script.shift() ?? state.fallback;
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    if (answer.delayMs) await new Promise((r) => setTimeout(r, answer.delayMs));
    if (answer.held) await state.released;
    state.inFlight--;
    receipt.status = answer.status;
    if (answer.status >= 200 && answer.status < 300 && !state.processed.has(receipt.id)) state.processed.set(receipt.id, JSON.parse(body));
    return answer;
  }

  close(): Promise<void> {
    for (const state of this.paths.values()) state.release();
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

import { Agent, request as httpRequest } from 'node:http';

/** One request as it goes on the wire: the raw path (with its query), headers and body bytes. */
export interface FuzzRequest {
  method: string;
  /** Sent as is: no normalisation of dot segments or percent-encoding. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
}

export type FuzzResponse =
  | { kind: 'response'; status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; ms: number }
  | { kind: 'no-response'; error: string; ms: number };

/**
 * A client for the system under test on a loopback port. It uses node:http rather than fetch so
 * that paths are sent byte for byte (fetch would resolve `..` and re-encode).
 */
export class LoopbackClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });

  constructor(
    private readonly port: number,
    private readonly timeoutMs: number,
  ) {}

  /**
   * Send once; again on a fresh connection when a kept-alive one turned out closed (the server ends
   * a connection after a malformed request, and the agent may already have handed it out again).
   */
  async send(req: FuzzRequest): Promise<FuzzResponse> {
    const first = await this.sendOnce(req);
    return first.kind === 'no-response' && first.reusedSocket ? this.sendOnce(req) : first;
  }

  private sendOnce(req: FuzzRequest): Promise<FuzzResponse & { reusedSocket?: boolean }> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    return new Promise((resolve) => {
      let settled = false;
      const done = (response: FuzzResponse & { reusedSocket?: boolean }) => {
        if (settled) return;
        settled = true;
        resolve(response);
      };
      try {
        const outgoing = httpRequest(
          { host: '127.0.0.1', port: this.port, method: req.method, path: req.path, agent: this.agent, headers: { ...req.headers, ...(req.body ? { 'content-length': String(req.body.length) } : {}) } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () => done({ kind: 'response', status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ms: elapsed() }));
            res.on('error', (err) => done({ kind: 'no-response', error: `response aborted: ${err.message}`, ms: elapsed() }));
          },
        );
        outgoing.setTimeout(this.timeoutMs, () => outgoing.destroy(new Error(`no answer within ${this.timeoutMs} ms`)));
        outgoing.on('error', (err) => done({ kind: 'no-response', error: err.message, ms: elapsed(), reusedSocket: outgoing.reusedSocket && (err as NodeJS.ErrnoException).code === 'ECONNRESET' }));
        outgoing.end(req.body);
      } catch (err) {
        // The client itself refused to send it (an invalid header character): not a finding.
        done({ kind: 'no-response', error: `unsendable: ${(err as Error).message}`, ms: elapsed() });
      }
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

import { Agent, request } from 'undici';
import { AddressRefused, guardedConnector, type Resolver } from '../domain/webhook-address-policy.js';
import { parseRetryAfter } from '../domain/webhook-retry-schedule.js';
import type { AttemptResult } from '../domain/webhook-delivery-outcome.js';

/** The longest response excerpt kept in the delivery log. */
export const EXCERPT_CHARS = 1024;
const READ_LIMIT_BYTES = 4096;

/**
 * Posts one signed delivery with undici (connection pooling per origin, separate header and body
 * timeouts, and a connector that applies the address rule to the very address each socket connects
 * to: IP literals before connecting, names through a checked lookup, and the connected address once
 * more; see `guardedConnector`). Redirects are never followed (undici's `request` follows none
 * unless a redirect interceptor is composed, and none is): a 3xx is a failed attempt.
 */
export class WebhookSender {
  private readonly agent: Agent;

  /** `resolve` replaces the system's DNS (tests of rebinding); the address rule is the same. */
  constructor(private readonly options: { timeoutMs: number; allowPrivateAddresses: boolean; resolve?: Resolver }) {
    this.agent = new Agent({
      connect: options.allowPrivateAddresses
        ? { timeout: options.timeoutMs }
        : guardedConnector({ timeoutMs: options.timeoutMs, ...(options.resolve ? { resolve: options.resolve } : {}) }),
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4000,
    });
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const started = performance.now();
    const latency = () => Math.round(performance.now() - started);
    const target = new URL(url);
    try {
      const res = await request(target, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'svc-webhooks/1', ...headers },
        body,
        dispatcher: this.agent,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
      const excerpt = await readExcerpt(res.body);
      const retryAfter = res.headers['retry-after'];
      const status = res.statusCode;
      return {
        statusCode: status,
        latencyMs: latency(),
        responseExcerpt: excerpt,
        error: status >= 300 && status < 400 ? `redirect to ${String(res.headers['location'] ?? '?').slice(0, 100)} not followed` : null,
        retryAfterMs: parseRetryAfter(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter, new Date()),
      };
    } catch (err) {
      return { statusCode: null, latencyMs: latency(), responseExcerpt: null, error: describe(err, this.options.timeoutMs), retryAfterMs: null };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= READ_LIMIT_BYTES) break;
    }
  } catch {
    // A body cut short still leaves what arrived.
  } finally {
    body.destroy();
  }
  const text = Buffer.concat(chunks).toString('utf8').slice(0, EXCERPT_CHARS);
  return text === '' ? null : text;
}

function describe(err: unknown, timeoutMs: number): string {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  const refused = chain.find((e): e is AddressRefused => e instanceof AddressRefused);
  if (refused) return refused.message;
  const codes = chain.map((e) => (e as { code?: unknown; name?: unknown }).code ?? (e as { name?: unknown }).name).filter((c): c is string => typeof c === 'string');
  if (codes.some((c) => /Timeout|ETIMEDOUT/i.test(c))) return `no answer within ${timeoutMs} ms`;
  if (codes.includes('EADDRREFUSED')) return 'address refused';
  if (codes.includes('ECONNREFUSED')) return 'connection refused';
  if (codes.includes('ENOTFOUND')) return 'host does not resolve';
  return (codes[0] ?? (err instanceof Error ? err.message : 'request failed')).slice(0, 200);
}

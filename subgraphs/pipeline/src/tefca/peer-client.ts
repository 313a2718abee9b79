import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import type { TefcaPeer } from '@svc/platform';
import { AddressRefused, bareHost, guardedLookup, isPublicAddress } from '../domain/webhook-address-policy.js';

/** The most a peer's answer may weigh (a retrieved document included). */
const MAX_ANSWER_BYTES = 20 * 1024 * 1024;

export type PeerAnswer = { ok: true; body: unknown; durationMs: number } | { ok: false; status: 'error' | 'timeout'; error: string; durationMs: number };

/**
 * Posts TEFCA requests to peer communities with undici: pooled connections per origin, an abort at
 * the exchange's deadline, and the webhooks' SSRF rules (a peer on a private, loopback or
 * link-local address is refused unless SVC_TEFCA_ALLOW_PRIVATE; the address is checked on the very
 * connection, so DNS rebinding gets nowhere). Redirects are not followed. What a peer answers in an
 * error is never kept (it could hold health data): only its status and problem `code`.
 */
export class TefcaPeerClient {
  private readonly agent: Agent;
  /** For the built-in sandbox peer only: it listens on loopback, at an address this process bound. */
  private readonly loopback: Agent;

  constructor(private readonly options: { allowPrivateAddresses: boolean; timeoutMs: number }) {
    this.agent = new Agent({
      connect: options.allowPrivateAddresses ? { timeout: options.timeoutMs } : { timeout: options.timeoutMs, lookup: guardedLookup() },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      keepAliveTimeout: 4000,
    });
    this.loopback = new Agent({ connect: { timeout: options.timeoutMs }, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs, keepAliveTimeout: 4000 });
  }

  async post(peer: TefcaPeer, path: string, body: Record<string, unknown>, deadline: number, requestId: string): Promise<PeerAnswer> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { ok: false, status: 'timeout', error: 'no time left before the exchange deadline', durationMs: 0 };
    const target = new URL(`${peer.baseUrl}${path}`);
    const host = bareHost(target);
    const trusted = this.options.allowPrivateAddresses || peer.sandbox === true;
    if (!trusted && isIP(host) && !isPublicAddress(host)) {
      return { ok: false, status: 'error', error: new AddressRefused(host).message, durationMs: 0 };
    }
    try {
      const res = await request(target, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'user-agent': 'svc-tefca/1',
          'x-request-id': requestId,
          ...(peer.token ? { authorization: `Bearer ${peer.token}` } : {}),
        },
        body: JSON.stringify(body),
        dispatcher: peer.sandbox === true ? this.loopback : this.agent,
        signal: AbortSignal.timeout(remaining),
      });
      const text = await readCapped(res.body);
      if (res.statusCode !== 200) {
        let code = '';
        try {
          const problem = JSON.parse(text ?? '') as { code?: unknown };
          if (typeof problem.code === 'string' && /^[A-Z_]{1,40}$/.test(problem.code)) code = ` ${problem.code}`;
        } catch {
          // not a problem document
        }
        return { ok: false, status: 'error', error: `HTTP ${res.statusCode}${code}`, durationMs: elapsed() };
      }
      if (text === null) return { ok: false, status: 'error', error: `answer larger than ${MAX_ANSWER_BYTES} bytes`, durationMs: elapsed() };
      try {
        return { ok: true, body: JSON.parse(text), durationMs: elapsed() };
      } catch {
        return { ok: false, status: 'error', error: 'answer is not JSON', durationMs: elapsed() };
      }
    } catch (err) {
      return { ok: false, ...describe(err, remaining), durationMs: elapsed() };
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.agent.close(), this.loopback.close()]);
  }
}

/** The body as text, or null when larger than the cap. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) return null;
      chunks.push(chunk);
    }
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(err: unknown, budgetMs: number): { status: 'error' | 'timeout'; error: string } {
  const chain: unknown[] = [];
  for (let e: unknown = err; e && chain.length < 5; e = (e as { cause?: unknown }).cause) chain.push(e);
  const refused = chain.find((e): e is AddressRefused => e instanceof AddressRefused);
  if (refused) return { status: 'error', error: refused.message };
  // A DOMException (the abort at the deadline) has a numeric code: its name says what happened.
  const codes = chain.flatMap((e) => [(e as { code?: unknown }).code, (e as { name?: unknown }).name]).filter((c): c is string => typeof c === 'string');
  if (codes.some((c) => /Timeout|ETIMEDOUT|AbortError/i.test(c))) return { status: 'timeout', error: `no answer within ${budgetMs} ms` };
  if (codes.includes('EADDRREFUSED')) return { status: 'error', error: 'address refused' };
  if (codes.includes('ECONNREFUSED')) return { status: 'error', error: 'connection refused' };
  if (codes.includes('ECONNRESET') || codes.includes('UND_ERR_SOCKET')) return { status: 'error', error: 'connection reset' };
  if (codes.includes('ENOTFOUND')) return { status: 'error', error: 'host does not resolve' };
  return { status: 'error', error: (codes[0] ?? 'request failed').slice(0, 100) };
}

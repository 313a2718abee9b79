import type { TokenProvider } from './auth.js';
import { deprecationOf } from './deprecation.js';
import { retryAfterOf } from './errors.js';
import type { ClientEventEmitter } from './events.js';

/** How the SDK retries. */
export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retries off). */
  maxRetries?: number;
  /** First backoff without a server hint, doubled each retry, with full jitter (default 500 ms). */
  baseDelayMs?: number;
  /** Longest backoff without a server hint (default 30 s). */
  maxDelayMs?: number;
  /**
   * Longest wait the SDK honours when the API names one (Retry-After, RateLimit reset); a longer one
   * is not waited for: the error is returned with its `retryAfterSeconds` (default 60 s).
   */
  maxRetryAfterSeconds?: number;
}

export interface TransportOptions {
  tokens: TokenProvider | undefined;
  retry: Required<RetryOptions>;
  fetch: typeof fetch;
  events: ClientEventEmitter;
  userAgent: string;
  sleep?: (ms: number) => Promise<void>;
}

/** Methods that may be sent twice without doing twice what they do. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE']);

export const DEFAULT_RETRY: Required<RetryOptions> = { maxRetries: 3, baseDelayMs: 500, maxDelayMs: 30_000, maxRetryAfterSeconds: 60 };

/**
 * The fetch every request of a client goes through:
 * - the bearer token (cached, refreshed before expiry; fetched again once after a 401 for OAuth);
 * - retries: a 429 or a 503 was refused before any work was done, so it is sent again after the
 *   wait the API names (Retry-After, else the RateLimit / X-RateLimit-Reset reset), or a backoff;
 *   a network failure or a 502/504 is retried only when the request is idempotent: GET, HEAD,
 *   OPTIONS, PUT, DELETE, or a request carrying If-None-Exist (FHIR conditional create) or
 *   Idempotency-Key;
 * - deprecation: a response with Deprecation/Sunset headers emits `deprecation` once per method and URL.
 */
export function transportFetch(options: TransportOptions): (input: Request) => Promise<Response> {
  const warned = new Set<string>();
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  return async (original: Request) => {
    const method = original.method.toUpperCase();
    const idempotent = IDEMPOTENT.has(method) || original.headers.has('if-none-exist') || original.headers.has('idempotency-key');
    let authRetried = false;
    for (let attempt = 0; ; attempt++) {
      const request = original.clone();
      if (!request.headers.has('user-agent')) request.headers.set('user-agent', options.userAgent);
      if (options.tokens && !request.headers.has('authorization')) request.headers.set('authorization', `Bearer ${await options.tokens.token()}`);
      let response: Response;
      try {
        response = await options.fetch(request);
      } catch (err) {
        if (!idempotent || attempt >= options.retry.maxRetries) throw err;
        const delayMs = backoff(options.retry, attempt);
        options.events.emit('retry', { method, url: original.url, attempt: attempt + 1, reason: 'network', delayMs });
        await sleep(delayMs);
        continue;
      }
      const deprecation = deprecationOf(method, original.url, response);
      if (deprecation && !warned.has(`${method} ${deprecation.url}`)) {
        warned.add(`${method} ${deprecation.url}`);
        options.events.emit('deprecation', deprecation);
      }
      if (response.status === 401 && options.tokens?.renewable && !authRetried && !original.headers.has('authorization')) {
        authRetried = true;
        options.tokens.invalidate();
        await response.body?.cancel();
        attempt--;
        continue;
      }
      const retryable = response.status === 429 || response.status === 503 || (idempotent && (response.status === 502 || response.status === 504));
      if (!retryable || attempt >= options.retry.maxRetries) return response;
      const hinted = serverWaitSeconds(response.headers, Date.now());
      if (hinted !== undefined && hinted > options.retry.maxRetryAfterSeconds) return response;
      const delayMs = hinted !== undefined ? hinted * 1000 : backoff(options.retry, attempt);
      options.events.emit('retry', { method, url: original.url, attempt: attempt + 1, reason: response.status, delayMs });
      await response.body?.cancel();
      await sleep(delayMs);
    }
  };
}

/** Full-jitter exponential backoff (AWS architecture blog): a random wait up to base × 2^attempt, capped. */
function backoff(retry: Required<RetryOptions>, attempt: number): number {
  return Math.round(Math.random() * Math.min(retry.maxDelayMs, retry.baseDelayMs * 2 ** attempt));
}

/**
 * The wait the API names: Retry-After first; else the reset of the IETF RateLimit field
 * (`"policy";r=0;t=12`) when nothing remains; else X-RateLimit-Reset (Unix seconds) when
 * X-RateLimit-Remaining is 0.
 */
export function serverWaitSeconds(headers: Headers, now: number): number | undefined {
  const retryAfter = retryAfterOf(headers, now);
  if (retryAfter !== undefined) return retryAfter;
  const field = headers.get('ratelimit');
  const remaining = field ? /;\s*r=(\d+)/.exec(field)?.[1] : undefined;
  const reset = field ? /;\s*t=(\d+)/.exec(field)?.[1] : undefined;
  if (remaining === '0' && reset !== undefined) return Number(reset);
  const legacyReset = headers.get('x-ratelimit-reset');
  if (headers.get('x-ratelimit-remaining') === '0' && legacyReset !== null && /^\d+$/.test(legacyReset)) return Math.max(0, Number(legacyReset) - Math.floor(now / 1000));
  return undefined;
}

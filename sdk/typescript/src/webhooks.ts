import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

/** The body of a delivery: the Standard Webhooks shape plus the event's id and partner. */
export interface WebhookEvent<Data = Record<string, unknown>> {
  /** `pipeline.sync.completed`, `tefca.query.completed`, `test.ping` … */
  type: string;
  /** When the event happened (ISO 8601). */
  timestamp: string;
  event_id: string;
  partner_gpid: string | null;
  data: Data;
}

export interface VerifyOptions {
  /**
   * How far the webhook-timestamp may be from now, in seconds (default 300, the Standard Webhooks
   * default): an old or future-dated delivery is refused, so a captured one cannot be replayed later.
   */
  toleranceSeconds?: number;
  now?: () => number;
}

/** A delivery that did not verify: answer it with a 4xx (the platform checks that receivers do). */
export class WebhookVerificationFailed extends Error {
  override readonly name = 'WebhookVerificationFailed';
}

/** A delivery that verified: its event and its delivery id (`webhook-id`, the same on every retry). */
export interface VerifiedDelivery<Data = Record<string, unknown>> {
  deliveryId: string;
  event: WebhookEvent<Data>;
}

/**
 * Verify a delivery: its Standard Webhooks signature (HMAC-SHA256 of `id.timestamp.body` with the
 * endpoint's `whsec_…` secret, computed by the standardwebhooks library) and its timestamp.
 *
 * - `body` must be the raw request body, byte for byte (not re-serialized JSON).
 * - `secrets`: the endpoint's secret; during a rotation, pass the old and the new one (the platform
 *   signs with both until the overlap ends, and either verifies).
 * - `headers`: the request's headers (a Headers object, or a Node-style record).
 *
 * @throws WebhookVerificationFailed naming what was wrong (missing header, stale timestamp, no signature matched).
 */
export function verifyWebhook<Data = Record<string, unknown>>(
  body: string | Uint8Array,
  headers: Headers | Record<string, string | string[] | undefined>,
  secrets: string | readonly string[],
  options: VerifyOptions = {},
): VerifiedDelivery<Data> {
  const header = (name: string): string => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name] ?? headers[name.toLowerCase()];
    const single = Array.isArray(value) ? value[0] : value;
    if (typeof single !== 'string' || single.length === 0) throw new WebhookVerificationFailed(`the ${name} header is missing`);
    return single;
  };
  const id = header('webhook-id');
  const timestamp = header('webhook-timestamp');
  const signatures = header('webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationFailed('webhook-timestamp is not a Unix time in seconds');
  const tolerance = options.toleranceSeconds ?? 300;
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const sentAt = Number(timestamp);
  if (Math.abs(now - sentAt) > tolerance) throw new WebhookVerificationFailed(`webhook-timestamp is ${now - sentAt} s from now, beyond the tolerance of ${tolerance} s`);
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const presented = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => Buffer.from(s.slice(3)));
  const matched = (typeof secrets === 'string' ? [secrets] : secrets).some((secret) => {
    const expected = Buffer.from(new Webhook(secret).sign(id, new Date(sentAt * 1000), text).slice(3));
    return presented.some((p) => p.length === expected.length && timingSafeEqual(p, expected));
  });
  if (!matched) throw new WebhookVerificationFailed('no webhook-signature matched the secret');
  let event: WebhookEvent<Data>;
  try {
    event = JSON.parse(text) as WebhookEvent<Data>;
  } catch {
    throw new WebhookVerificationFailed('the body is not JSON');
  }
  return { deliveryId: id, event };
}

/**
 * Remembers the delivery ids (`webhook-id`) a receiver has handled, so a delivery sent again (the
 * platform delivers at least once: after a timeout, a crash, or a redelivery someone asked for) is
 * acknowledged without being handled twice. Bounded: the oldest ids are forgotten first, and ids
 * older than `ttlMs`. In memory, so for one process: a receiver with several instances records the
 * ids in its own database under a unique constraint instead.
 */
export class DeliveryDeduplicator {
  private readonly seen = new Map<string, number>();
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: { maxEntries?: number; ttlMs?: number; now?: () => number } = {}) {
    this.maxEntries = options.maxEntries ?? 10_000;
    // The platform retries one delivery for more than a day, and a redelivery can come later.
    this.ttlMs = options.ttlMs ?? 4 * 24 * 3600_000;
    this.now = options.now ?? Date.now;
  }

  /** True the first time `deliveryId` is seen (handle it), false after (acknowledge it, do nothing). */
  firstDelivery(deliveryId: string): boolean {
    const now = this.now();
    const at = this.seen.get(deliveryId);
    if (at !== undefined && now - at < this.ttlMs) return false;
    this.seen.delete(deliveryId);
    this.seen.set(deliveryId, now);
    while (this.seen.size > this.maxEntries) this.seen.delete(this.seen.keys().next().value!);
    return true;
  }
}

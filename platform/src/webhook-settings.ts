/**
 * Webhook delivery settings (`SVC_WEBHOOK_*`), read by `loadConfig`. Kept apart from config.ts so the
 * defaults and their bounds sit next to what they mean. Timings are configurable so that tests can
 * run a whole retry schedule in milliseconds; the defaults span more than a day.
 */
export interface WebhookSettings {
  /** Deliver to private, loopback, link-local and metadata addresses (tests, closed networks). */
  allowPrivateAddresses: boolean;
  /** Delay before the first retry; each later retry waits `backoffFactor` times longer. */
  retryBaseMs: number;
  backoffFactor: number;
  /** Longest wait between two attempts (also caps a receiver's Retry-After). */
  retryMaxDelayMs: number;
  /** Attempts of one delivery, the first included; then it fails (and may disable its endpoint). */
  maxAttempts: number;
  /** How long one attempt may take (connect, headers and body) before it counts as failed. */
  timeoutMs: number;
  /** Sweep interval of the delivery worker (it is also woken when deliveries are created). */
  pollMs: number;
  /** Attempts in flight at once per endpoint, so one slow receiver cannot hold every slot. */
  perEndpointConcurrency: number;
  /** Attempts in flight at once per worker process. */
  workerConcurrency: number;
  /** Default overlap after a secret rotation, during which both signatures are sent. */
  rotationOverlapMs: number;
}

type IntReader = (name: string, fallback: number, min: number, max: number) => number;

const HOUR = 3_600_000;

/** The settings from the environment readers of `loadConfig`. */
export function readWebhookSettings(int: IntReader, bool: (name: string) => boolean): WebhookSettings {
  return {
    allowPrivateAddresses: bool('SVC_WEBHOOK_ALLOW_PRIVATE'),
    retryBaseMs: int('SVC_WEBHOOK_RETRY_BASE_MS', 10_000, 1, HOUR),
    backoffFactor: int('SVC_WEBHOOK_BACKOFF_FACTOR', 3, 1, 10),
    retryMaxDelayMs: int('SVC_WEBHOOK_RETRY_MAX_DELAY_MS', 6 * HOUR, 1, 24 * HOUR),
    maxAttempts: int('SVC_WEBHOOK_MAX_ATTEMPTS', 12, 1, 50),
    timeoutMs: int('SVC_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    pollMs: int('SVC_WEBHOOK_POLL_MS', 1000, 10, 60_000),
    perEndpointConcurrency: int('SVC_WEBHOOK_ENDPOINT_CONCURRENCY', 2, 1, 100),
    workerConcurrency: int('SVC_WEBHOOK_WORKER_CONCURRENCY', 16, 1, 1000),
    rotationOverlapMs: int('SVC_WEBHOOK_ROTATION_OVERLAP_MS', 24 * HOUR, 0, 30 * 24 * HOUR),
  };
}

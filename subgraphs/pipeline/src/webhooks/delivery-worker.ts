import { randomBytes } from 'node:crypto';
import { contextFromTraceparent, injectTraceHeaders, inSpan, isPostgres, makeEvent, newId, recordEvent, SpanKind, SpanStatusCode, type Logger, type Orm, type WebhookSettings } from '@svc/platform';
import { WebhookEntity, type Webhook } from '../entities/webhook.js';
import { WebhookAttemptEntity, WebhookDeliveryEntity, type WebhookDelivery } from '../entities/webhook-delivery.js';
import { webhookStore } from '../entities/webhook-store.js';
import { decideOutcome, isSuccess, type AttemptResult } from '../domain/webhook-delivery-outcome.js';
import { disableWebhook, signingSecrets } from '../domain/webhook-endpoints.js';
import { newWebhookSecret, signDelivery } from '../domain/webhook-signing.js';
import { TEST_PING } from '../domain/webhook-payload.js';
import { WebhookSender } from './webhook-sender.js';

/** A receiver that verifies signatures refuses a mis-signed body with a 4xx. */
export const signatureRefused = (status: number | null): boolean => status !== null && status >= 400 && status < 500;

/**
 * The durable delivery worker. Deliveries are rows; the worker claims due ones with a lease, posts
 * them, and records each attempt and the delivery's next state in one transaction. A worker that
 * dies leaves its rows `sending` until the lease runs out, then any worker takes them again, so a
 * restart or a kill resumes every delivery (at least once; receivers deduplicate by webhook-id).
 */
export class WebhookDeliveryWorker {
  private readonly sender: WebhookSender;
  private readonly workerId = randomBytes(6).toString('hex');
  private readonly postgres: boolean;
  private readonly tasks = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private claims = 0;

  constructor(
    private readonly orm: Orm,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
    private readonly publishCommitted: () => void,
    private readonly onError: (err: unknown) => void,
  ) {
    this.sender = new WebhookSender({ timeoutMs: settings.timeoutMs, allowPrivateAddresses: settings.allowPrivateAddresses });
    this.postgres = isPostgres(orm);
  }

  /**
   * A lease outlives any attempt: one attempt is bounded by the timeout (AbortSignal), a test.ping by
   * two (the ping and its forged probe), plus time to record it.
   */
  private get leaseMs(): number {
    return 2 * this.settings.timeoutMs + 2000;
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.wake(), this.settings.pollMs);
    this.timer.unref();
    this.wake();
  }

  /** Look for due deliveries now; concurrent wakes coalesce. */
  wake(): void {
    if (this.stopped) return;
    if (this.sweeping) {
      this.again = true;
      return;
    }
    this.sweeping = this.sweep()
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.sweeping = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stop claiming and let the attempts in flight finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.sweeping;
    await Promise.allSettled([...this.tasks]);
    await this.sender.close();
  }

  private async sweep(): Promise<void> {
    while (!this.stopped) {
      const free = this.settings.workerConcurrency - this.tasks.size;
      if (free <= 0) return;
      const claimed = await webhookStore.claimDue(this.orm.em.fork(), {
        claim: `${this.workerId}:${++this.claims}`,
        now: new Date(),
        leaseMs: this.leaseMs,
        limit: free,
        perEndpoint: this.settings.perEndpointConcurrency,
        postgres: this.postgres,
      });
      for (const delivery of claimed) this.launch(delivery);
      if (claimed.length < free) return;
    }
  }

  private launch(delivery: WebhookDelivery): void {
    const task = this.attempt(delivery)
      .catch((err: unknown) => this.onError(err))
      .finally(() => {
        this.tasks.delete(task);
        this.wake();
      });
    this.tasks.add(task);
  }

  private async attempt(delivery: WebhookDelivery): Promise<void> {
    const webhook = await this.orm.em.fork().findOne(WebhookEntity, { id: delivery.webhookId });
    const now = new Date();
    // A removed or disabled endpoint gets nothing (a test.ping may still check a disabled one).
    if (!webhook || webhook.removedAt || (!webhook.enabled && delivery.eventType !== TEST_PING)) {
      await this.orm.em.fork().nativeUpdate(
        WebhookDeliveryEntity,
        { id: delivery.id, claim: delivery.claim, status: 'sending' },
        { status: 'cancelled', claim: null, leaseUntil: null, nextAttemptAt: null, completedAt: now, lastError: webhook?.removedAt || !webhook ? 'endpoint removed' : 'endpoint disabled' },
      );
      return;
    }
    const headers = signDelivery(signingSecrets(webhook, now), delivery.id, now, delivery.payload);
    // One span per attempt, in the event's trace; the receiver gets its traceparent (W3C Trace Context).
    const result = await inSpan(
      'webhook attempt',
      { kind: SpanKind.CLIENT, parent: contextFromTraceparent(delivery.traceParent), attributes: { 'svc.event_type': delivery.eventType, 'svc.webhook.attempt': delivery.attempts + 1 } },
      async (span) => {
        const traced: Record<string, string> = { ...headers };
        injectTraceHeaders(traced);
        const answer = await this.sender.post(webhook.url, traced, delivery.payload);
        if (answer.statusCode !== null) span?.setAttribute('http.response.status_code', answer.statusCode);
        if (!isSuccess(answer.statusCode)) span?.setStatus({ code: SpanStatusCode.ERROR });
        return answer;
      },
    );
    let probeStatusCode: number | null = null;
    if (delivery.eventType === TEST_PING && isSuccess(result.statusCode)) {
      probeStatusCode = await this.probeWithWrongKey(webhook, delivery, result);
    }
    await this.record(delivery, result, probeStatusCode, now);
  }

  /**
   * A 2xx to a signed test.ping proves the endpoint answers, not that it verifies. The worker also
   * sends the same body under another id signed with a random key: only a receiver that refuses it
   * (4xx) counts as verified. The outcome is noted on the attempt.
   */
  private async probeWithWrongKey(webhook: Webhook, delivery: WebhookDelivery, result: AttemptResult): Promise<number> {
    const forged = signDelivery([newWebhookSecret()], newId('dlv'), new Date(), delivery.payload);
    const probe = await this.sender.post(webhook.url, { ...forged }, delivery.payload);
    result.error = signatureRefused(probe.statusCode)
      ? null
      : `not verified: the receiver answered ${probe.statusCode ?? probe.error ?? 'nothing'} to a probe with a wrong signature (it must refuse it with 4xx)`;
    // No answer at all is recorded as 0: the probe was sent and not refused.
    return probe.statusCode ?? 0;
  }

  private async record(delivery: WebhookDelivery, result: AttemptResult, probeStatusCode: number | null, startedAt: Date): Promise<void> {
    const pingVerified = signatureRefused(probeStatusCode);
    const now = new Date();
    let committed = false;
    await this.orm.em.fork().transactional(async (em) => {
      const webhook = await em.findOne(WebhookEntity, { id: delivery.webhookId });
      const outcome = decideOutcome(delivery, result, { lastSuccessAt: webhook?.lastSuccessAt ?? null }, this.settings, now);
      const attempt = delivery.attempts + 1;
      const updated = await em.nativeUpdate(
        WebhookDeliveryEntity,
        { id: delivery.id, claim: delivery.claim, status: 'sending' },
        {
          status: outcome.status,
          attempts: attempt,
          retryIndex: delivery.retryIndex + 1,
          nextAttemptAt: outcome.nextAttemptAt,
          claim: null,
          leaseUntil: null,
          lastStatusCode: result.statusCode,
          lastError: result.error?.slice(0, 200) ?? null,
          firstAttemptAt: delivery.firstAttemptAt ?? startedAt,
          completedAt: outcome.status === 'pending' ? null : now,
        },
      );
      // Another worker took the delivery over after this one's lease ran out: its attempt counts.
      if (updated === 0) return;
      em.create(WebhookAttemptEntity, {
        deliveryId: delivery.id,
        attempt,
        trigger: delivery.retryIndex === 0 && delivery.attempts > 0 ? 'manual' : 'schedule',
        attemptedAt: startedAt,
        statusCode: result.statusCode,
        latencyMs: result.latencyMs,
        responseExcerpt: result.responseExcerpt,
        error: result.error?.slice(0, 200) ?? null,
        nextRetryAt: outcome.nextAttemptAt,
        probeStatusCode,
      });
      if (webhook) {
        if (isSuccess(result.statusCode)) webhook.lastSuccessAt = now;
        // The latest test.ping decides: an endpoint that stops refusing forgeries is no longer verified.
        if (probeStatusCode !== null) webhook.signatureVerifiedAt = pingVerified ? now : null;
        if (outcome.disable) await disableWebhook(em, webhook, outcome.disable, delivery.id, now);
        if (pingVerified) {
          recordEvent(
            em,
            makeEvent('webhook.test_ping.verified', webhook.partnerGpid, {
              event: 'webhook.test_ping.verified',
              webhook_id: webhook.id,
              delivery_id: delivery.id,
              partner_gpid: webhook.partnerGpid,
              status: result.statusCode,
              probe_status: probeStatusCode,
              verified_at: now.toISOString(),
            }, now),
          );
        }
      }
      committed = true;
    });
    if (committed) this.publishCommitted();
    this.logger.debug({ deliveryId: delivery.id, webhookId: delivery.webhookId, status: result.statusCode, latencyMs: result.latencyMs }, 'webhook attempt');
  }
}

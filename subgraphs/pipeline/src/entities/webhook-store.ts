import { knexOf, rowsOf, storedDateOrNull } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import { WebhookEntity, type Webhook } from './webhook.js';
import { WebhookAttemptEntity, WebhookDeliveryEntity, type WebhookAttempt, type WebhookDelivery } from './webhook-delivery.js';

const DELIVERIES = 'pipeline_webhook_deliveries';

/** A delivery row as the intake inserts it. */
export type NewDelivery = Pick<WebhookDelivery, 'id' | 'webhookId' | 'partnerGpid' | 'eventId' | 'eventType' | 'payload' | 'maxAttempts' | 'traceParent'>;

/** Webhook endpoint, delivery and attempt queries. */
export const webhookStore = {
  /** A live (not removed) endpoint. */
  byId(em: EntityManager, id: string): Promise<Webhook | null> {
    return em.findOne(WebhookEntity, { id, removedAt: null });
  },

  /** Live endpoints of one partner, or of every partner when `partnerGpid` is null; oldest first. */
  list(em: EntityManager, partnerGpid: string | null): Promise<Webhook[]> {
    return em.find(WebhookEntity, { removedAt: null, ...(partnerGpid ? { partnerGpid } : {}) }, { orderBy: { id: 'asc' }, limit: 1000 });
  },

  countLive(em: EntityManager, partnerGpid: string): Promise<number> {
    return em.count(WebhookEntity, { removedAt: null, partnerGpid });
  },

  /** Enabled endpoints that may receive this partner's events. */
  enabledFor(em: EntityManager, partnerGpid: string): Promise<Webhook[]> {
    return em.find(WebhookEntity, { removedAt: null, enabled: true, partnerGpid });
  },

  /**
   * Insert deliveries in one statement; a (event id, endpoint) pair that already has one is left
   * alone, so the intake is idempotent by event id.
   */
  async insertDeliveries(em: EntityManager, rows: readonly NewDelivery[], now: Date): Promise<void> {
    if (rows.length === 0) return;
    const date = (d: Date) => em.getPlatform().processDateProperty(d);
    await knexOf(em)(DELIVERIES)
      .insert(
        rows.map((r) => ({
          id: r.id,
          webhook_id: r.webhookId,
          partner_gpid: r.partnerGpid,
          event_id: r.eventId,
          event_type: r.eventType,
          payload: r.payload,
          trace_parent: r.traceParent ?? null,
          status: 'pending',
          attempts: 0,
          retry_index: 0,
          max_attempts: r.maxAttempts,
          next_attempt_at: date(now),
          created_at: date(now),
        })),
      )
      .onConflict(['event_id', 'webhook_id'])
      .ignore();
  },

  delivery(em: EntityManager, id: string): Promise<WebhookDelivery | null> {
    return em.findOne(WebhookDeliveryEntity, { id });
  },

  /** One page of an endpoint's deliveries, newest first (size + 1 rows, to tell if there are more). */
  deliveriesPage(em: EntityManager, webhookId: string, size: number, beforeId: string | null, status: string | null): Promise<WebhookDelivery[]> {
    const where: Record<string, unknown> = { webhookId };
    if (beforeId) where['id'] = { $lt: beforeId };
    if (status) where['status'] = status;
    return em.find(WebhookDeliveryEntity, where, { orderBy: { id: 'desc' }, limit: size + 1 });
  },

  attempts(em: EntityManager, deliveryIds: readonly string[]): Promise<WebhookAttempt[]> {
    return em.find(WebhookAttemptEntity, { deliveryId: { $in: [...deliveryIds] } }, { orderBy: { deliveryId: 'asc', attempt: 'asc' } });
  },

  /**
   * Claim due deliveries for one worker: pending ones whose time has come, and `sending` ones whose
   * lease ran out (their worker died). At most `perEndpoint` attempts per endpoint are in flight,
   * counting those other workers hold. The conditional update re-checks every row, so two workers
   * never claim the same one (PostgreSQL also skips rows another claim has locked).
   */
  async claimDue(em: EntityManager, options: { claim: string; now: Date; leaseMs: number; limit: number; perEndpoint: number; postgres: boolean }): Promise<WebhookDelivery[]> {
    const knex = knexOf(em);
    const date = (d: Date) => em.getPlatform().processDateProperty(d);
    const now = date(options.now);
    const due = (t: string) => `((${t}status = 'pending' and ${t}next_attempt_at <= ?) or (${t}status = 'sending' and ${t}lease_until < ?))`;
    const candidates: { id: string }[] = await knex
      .raw(
        `select id from (
           select d.id, d.next_attempt_at,
             row_number() over (partition by d.webhook_id order by d.next_attempt_at, d.id) as rn,
             (select count(*) from ${DELIVERIES} s where s.webhook_id = d.webhook_id and s.status = 'sending' and s.lease_until >= ?) as busy
           from ${DELIVERIES} d where ${due('d.')}
         ) x where rn + busy <= ? order by next_attempt_at, id limit ?`,
        [now, now, now, options.perEndpoint, options.limit],
      )
      .then((r: unknown) => rowsOf<{ id: string }>(r));
    if (candidates.length === 0) return [];
    const ids = candidates.map((c) => c.id);
    const lease = date(new Date(options.now.getTime() + options.leaseMs));
    const marks = ids.map(() => '?').join(', ');
    const lockable = options.postgres
      ? `id in (select id from ${DELIVERIES} where id in (${marks}) and ${due('')} for update skip locked)`
      : `id in (${marks}) and ${due('')}`;
    await knex.raw(`update ${DELIVERIES} set status = 'sending', claim = ?, lease_until = ? where ${lockable}`, [options.claim, lease, ...ids, now, now]);
    return em.find(WebhookDeliveryEntity, { claim: options.claim, status: 'sending' });
  },

  /**
   * Attempts per endpoint since `since` and how many were answered 2xx (the portal's success rate);
   * an endpoint without attempts is absent.
   */
  async attemptStats(em: EntityManager, webhookIds: readonly string[], since: Date): Promise<Map<string, { attempts: number; succeeded: number }>> {
    const stats = new Map<string, { attempts: number; succeeded: number }>();
    if (webhookIds.length === 0) return stats;
    const marks = webhookIds.map(() => '?').join(', ');
    const rows = rowsOf<{ webhook_id: string; attempts: number | string; succeeded: number | string | null }>(
      await knexOf(em).raw(
        `select d.webhook_id, count(*) as attempts, sum(case when a.status_code between 200 and 299 then 1 else 0 end) as succeeded
         from pipeline_webhook_attempts a join ${DELIVERIES} d on d.id = a.delivery_id
         where d.webhook_id in (${marks}) and a.attempted_at >= ? group by d.webhook_id`,
        [...webhookIds, em.getPlatform().processDateProperty(since)],
      ),
    );
    for (const row of rows) stats.set(row.webhook_id, { attempts: Number(row.attempts), succeeded: Number(row.succeeded ?? 0) });
    return stats;
  },

  /**
   * What pipeline health reports of webhook delivery, for one partner or all (`partnerGpid` null):
   * the backlog (pending or sending deliveries, how many are past due, when the oldest was created)
   * and the attempts made since `since` with how many failed (no 2xx answer).
   */
  async deliveryHealth(
    em: EntityManager,
    since: Date,
    now: Date,
    partnerGpid: string | null,
  ): Promise<{ pending: number; due: number; oldestPendingAt: Date | null; attempts: number; failedAttempts: number }> {
    const knex = knexOf(em);
    const at = (d: Date) => em.getPlatform().processDateProperty(d);
    const partner = partnerGpid ? ' and d.partner_gpid = ?' : '';
    const partnerArgs = partnerGpid ? [partnerGpid] : [];
    // Attempts first: an attempt commits with its delivery's new state, so a backlog read after it
    // never shows a delivery as still due whose failed attempt was already counted.
    const [attempts] = rowsOf<{ attempts: number | string; failed: number | string | null }>(
      await knex.raw(
        `select count(*) as attempts, sum(case when a.status_code between 200 and 299 then 0 else 1 end) as failed
         from pipeline_webhook_attempts a join ${DELIVERIES} d on d.id = a.delivery_id where a.attempted_at >= ?${partner}`,
        [at(since), ...partnerArgs],
      ),
    );
    const [backlog] = rowsOf<{ pending: number | string; due: number | string | null; oldest: unknown }>(
      await knex.raw(
        `select count(*) as pending, sum(case when d.status = 'pending' and d.next_attempt_at <= ? then 1 else 0 end) as due, min(d.created_at) as oldest
         from ${DELIVERIES} d where d.status in ('pending', 'sending')${partner}`,
        [at(now), ...partnerArgs],
      ),
    );
    return {
      pending: Number(backlog?.pending ?? 0),
      due: Number(backlog?.due ?? 0),
      oldestPendingAt: storedDateOrNull(backlog?.oldest),
      attempts: Number(attempts?.attempts ?? 0),
      failedAttempts: Number(attempts?.failed ?? 0),
    };
  },
};


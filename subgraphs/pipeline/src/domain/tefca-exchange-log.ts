import type { EntityManager } from '@mikro-orm/core';
import { isId, type EventEnvelope, type TefcaExchangeRecord } from '@svc/platform';
import { TefcaExchangeEntity, type TefcaExchangeRow } from '../entities/tefca-exchange.js';

/**
 * The TEFCA exchange audit log: every exchange, inbound (answered by the identity and fhir
 * subgraphs) and outbound (this subgraph's fan-out), as the projection of its `tefca.*` event, which
 * each part writes through its own transactional outbox. Rows are only ever inserted (idempotent by
 * exchange id: at-least-once delivery), never updated or deleted: the log is immutable.
 */
export async function projectTefcaExchange(em: EntityManager, event: EventEnvelope): Promise<void> {
  if (!event.type.startsWith('tefca.')) return;
  const d = event.data as Partial<TefcaExchangeRecord>;
  if (!isId('xch', d.exchange_id)) return;
  if (await em.findOne(TefcaExchangeEntity, { id: d.exchange_id })) return;
  em.create(TefcaExchangeEntity, {
    id: d.exchange_id,
    eventId: event.id,
    eventType: event.type,
    partnerGpid: event.partner_gpid,
    credentialId: d.credential_id ?? null,
    kind: String(d.kind),
    direction: String(d.direction),
    purposeOfUse: d.purpose_of_use ?? null,
    requestingCommunityId: d.requesting_community_id ?? null,
    respondingCommunityIds: d.responding_community_ids ?? [],
    communities: d.communities ?? [],
    outcome: String(d.outcome),
    resultCount: d.result_count ?? 0,
    errorCode: d.error_code ?? null,
    requestId: String(d.request_id ?? ''),
    startedAt: new Date(d.started_at ?? event.occurred_at),
    durationMs: d.duration_ms ?? 0,
    recordedAt: new Date(),
  });
  try {
    await em.flush();
  } catch (err) {
    // A concurrent consumer recorded it first: the idempotent outcome.
    if (!(await em.fork().findOne(TefcaExchangeEntity, { id: d.exchange_id }))) throw err;
  }
}

/** One page, newest first: one partner's exchanges (null: every partner's, for operators). */
export function tefcaExchangePage(
  em: EntityManager,
  options: { partnerGpid: string | null; direction: string | null; size: number; beforeId: string | null },
): Promise<TefcaExchangeRow[]> {
  const where: Record<string, unknown> = {};
  if (options.partnerGpid) where['partnerGpid'] = options.partnerGpid;
  if (options.direction) where['direction'] = options.direction;
  if (options.beforeId) where['id'] = { $lt: options.beforeId };
  return em.find(TefcaExchangeEntity, where, { orderBy: { id: 'desc' }, limit: options.size + 1 });
}

/** One exchange, if the partner may see it. */
export async function findTefcaExchange(em: EntityManager, id: string, partnerGpid: string | null): Promise<TefcaExchangeRow | null> {
  const row = await em.findOne(TefcaExchangeEntity, { id });
  if (!row || (partnerGpid !== null && row.partnerGpid !== partnerGpid)) return null;
  return row;
}

import type { EntityManager } from '@mikro-orm/core';
import { DomainError } from '../errors.js';
import type { EventEnvelope } from '../events/envelope.js';
import { commitEvent } from '../events/outbox.js';
import type { Principal } from '../auth/principal.js';
import { validationError } from '../errors.js';
import { readPurposeOfUse, type TefcaPurposeOfUse } from './purpose-of-use.js';
import {
  isHomeCommunityId,
  newExchangeId,
  TEFCA_REFUSED_EVENT,
  tefcaEventType,
  tefcaExchangeEvent,
  type TefcaCommunityOutcome,
  type TefcaDirection,
  type TefcaExchangeKind,
  type TefcaExchangeRecord,
  type TefcaOutcome,
} from './exchange.js';

/** What the work of an exchange reports besides its answer. */
export interface ExchangeWorkResult<T> {
  answer: T;
  resultCount: number;
  outcome: TefcaOutcome;
  respondingCommunityIds: string[];
  communities?: TefcaCommunityOutcome[];
  errorCode?: string | null;
}

export interface ExchangeRun<T> {
  kind: TefcaExchangeKind;
  direction: TefcaDirection;
  principal: Principal;
  requestId: string;
  /** As received; validated here so that a refusal is audited too. */
  purposeOfUse: unknown;
  /** Inbound: the community the peer says it is (optional, checked when given). Outbound: ours. */
  requestingCommunityId: unknown;
  /** Stage the event in the owner's outbox and commit it (each subgraph writes its own outbox). */
  stage(event: EventEnvelope<TefcaExchangeRecord>): Promise<void>;
  work(purpose: TefcaPurposeOfUse, exchangeId: string): Promise<ExchangeWorkResult<T>>;
}

/**
 * `stage` for a subgraph whose outbox lives on its MikroORM entity manager: commit the event now
 * (`commitEvent`), then wake the outbox relay.
 */
export function commitThenWake(em: EntityManager, wake: () => void): ExchangeRun<unknown>['stage'] {
  return async (event) => {
    await commitEvent(em, event);
    wake();
  };
}

/**
 * Runs one TEFCA exchange the same way in every part: the purpose of use is validated (a missing or
 * unknown code is refused with a 422 naming `purpose_of_use`, and audited as
 * `tefca.exchange.refused`), the work runs, and its outcome is recorded as one `tefca.*` event
 * through the owner's transactional outbox. A refusal of the work itself (bad input, unknown
 * document) is audited as `tefca.exchange.refused` as well, a failure on the way (a peer down, an
 * unknown document) as the kind's failed event; a crash that is no DomainError is not audited.
 */
export async function runTefcaExchange<T>(run: ExchangeRun<T>): Promise<T & { exchangeId: string; purposeOfUse: TefcaPurposeOfUse }> {
  const exchangeId = newExchangeId();
  const started = new Date();
  const t0 = performance.now();
  const base = {
    exchange_id: exchangeId,
    kind: run.kind,
    direction: run.direction,
    partner_gpid: run.principal.partnerGpid,
    credential_id: run.principal.tokenId ?? run.principal.clientId ?? null,
    request_id: run.requestId,
    started_at: started.toISOString(),
  };
  const requesting = run.requestingCommunityId === undefined || run.requestingCommunityId === null ? null : run.requestingCommunityId;
  let purpose: TefcaPurposeOfUse | null = null;
  try {
    purpose = readPurposeOfUse(run.purposeOfUse);
    if (requesting !== null && !isHomeCommunityId(requesting)) {
      throw validationError([{ field: 'requesting_community_id', message: 'must be a home community id (urn:oid:…)' }], 'requesting_community_id is not a home community id.');
    }
    const done = await run.work(purpose, exchangeId);
    const record: Omit<TefcaExchangeRecord, 'event'> = {
      ...base,
      purpose_of_use: purpose,
      requesting_community_id: requesting as string | null,
      responding_community_ids: done.respondingCommunityIds,
      communities: done.communities ?? [],
      outcome: done.outcome,
      result_count: done.resultCount,
      error_code: done.errorCode ?? null,
      duration_ms: Math.round(performance.now() - t0),
    };
    await run.stage(tefcaExchangeEvent(tefcaEventType(run.kind, run.direction, done.outcome), record));
    return { ...done.answer, exchangeId, purposeOfUse: purpose };
  } catch (err) {
    if (err instanceof DomainError) {
      const record: Omit<TefcaExchangeRecord, 'event'> = {
        ...base,
        purpose_of_use: purpose,
        requesting_community_id: typeof requesting === 'string' && isHomeCommunityId(requesting) ? requesting : null,
        responding_community_ids: [],
        communities: [],
        outcome: 'failure',
        result_count: 0,
        error_code: err.code,
        duration_ms: Math.round(performance.now() - t0),
      };
      // A failure on the way (a peer down, an unknown document) is a failed exchange; bad input, a
      // missing purpose or a refused policy is a refusal.
      const failed = err.status >= 500 || (run.kind === 'xca.retrieve' && err.code === 'NOT_FOUND');
      const type = failed ? tefcaEventType(run.kind, run.direction, 'failure') : TEFCA_REFUSED_EVENT;
      await run.stage(tefcaExchangeEvent(type, record));
    }
    throw err;
  }
}

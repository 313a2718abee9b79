import type { EntityManager } from '@mikro-orm/core';
import { commitEvent, makeEvent, recordEvent, type Principal } from '@svc/platform';
import type { StoredAnalyticsQuery } from '../../entities/analytics-query-store.js';

/**
 * The audit trail of analytics: who read a question for which purpose of use, who ran it, and
 * whose score was computed, staged in the fhir outbox (ids, codes, counts and concept names only;
 * never the question's text, which a partner may have written patient details into).
 */

function queryFacts(q: StoredAnalyticsQuery) {
  return {
    query_id: q.id,
    purpose_of_use: q.purposeOfUse,
    measure: q.query.measure,
    concepts: [...(q.query.cohort.conditions?.concepts ?? []), ...q.query.cohort.excluded_conditions].map((c) => c.concept),
    observation: q.query.observation?.concept ?? null,
  };
}

/** analytics.query.created: a question was read and stored (same transaction as the stored row). */
export function recordQueryCreated(em: EntityManager, principal: Principal, q: StoredAnalyticsQuery, at: Date): void {
  recordEvent(
    em,
    makeEvent('analytics.query.created', principal.partnerGpid, { event: 'analytics.query.created', partner_gpid: principal.partnerGpid, token_id: principal.tokenId ?? null, ...queryFacts(q), expires_at: q.expiresAt }, at),
  );
}

/** analytics.query.executed: a stored query ran; `patients` is the number of patients behind the result. */
export async function recordQueryExecuted(em: EntityManager, principal: Principal, q: StoredAnalyticsQuery, patients: number, at: Date): Promise<void> {
  await commitEvent(
    em,
    makeEvent('analytics.query.executed', principal.partnerGpid, { event: 'analytics.query.executed', partner_gpid: principal.partnerGpid, token_id: principal.tokenId ?? null, ...queryFacts(q), patients }, at),
  );
}

/** analytics.score.computed: a patient's score was computed. */
export async function recordScoreComputed(em: EntityManager, principal: Principal, patientId: string, weights: string, score: number, at: Date): Promise<void> {
  await commitEvent(
    em,
    makeEvent('analytics.score.computed', principal.partnerGpid, { event: 'analytics.score.computed', partner_gpid: principal.partnerGpid, token_id: principal.tokenId ?? null, patient_id: patientId, algorithm: 'charlson', weights, score }, at),
  );
}

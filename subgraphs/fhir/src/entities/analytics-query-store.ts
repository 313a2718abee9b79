import { knexOf } from '@svc/platform';
import type { EntityManager } from '@mikro-orm/core';
import type { Reading, StructuredQuery } from '../domain/analytics/structured-query.js';

const QUERIES = 'fhir_analytics_queries';

/** A question read into a structured query, as stored for review and execution. */
export interface StoredAnalyticsQuery {
  id: string;
  partnerGpid: string | null;
  question: string;
  purposeOfUse: string;
  query: StructuredQuery;
  readings: Reading[];
  summary: string;
  createdAt: string;
  expiresAt: string;
}

interface Row {
  id: string;
  partner_gpid: string | null;
  question: string;
  purpose_of_use: string;
  structured_query: string;
  explanation: string;
  created_at: string;
  expires_at: string;
}

function toStored(r: Row): StoredAnalyticsQuery {
  const explanation = JSON.parse(r.explanation) as { readings: Reading[]; summary: string };
  return {
    id: r.id,
    partnerGpid: r.partner_gpid,
    question: r.question,
    purposeOfUse: r.purpose_of_use,
    query: JSON.parse(r.structured_query) as StructuredQuery,
    readings: explanation.readings,
    summary: explanation.summary,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

export const analyticsQueryStore = {
  /** Store a query, and drop the ones that expired before `now` (they can no longer be executed). */
  async insert(em: EntityManager, q: StoredAnalyticsQuery, now: string): Promise<void> {
    const knex = knexOf(em);
    await knex(QUERIES).where('expires_at', '<', now).delete();
    await knex(QUERIES).insert({
      id: q.id,
      partner_gpid: q.partnerGpid,
      question: q.question,
      purpose_of_use: q.purposeOfUse,
      structured_query: JSON.stringify(q.query),
      explanation: JSON.stringify({ readings: q.readings, summary: q.summary }),
      created_at: q.createdAt,
      expires_at: q.expiresAt,
    });
  },

  async get(em: EntityManager, id: string): Promise<StoredAnalyticsQuery | null> {
    const row = (await knexOf(em)(QUERIES).where({ id }).first()) as Row | undefined;
    return row ? toStored(row) : null;
  },
};

import type { EntityManager } from '@mikro-orm/core';
import { DomainError, isId, newId, validationError, type Principal } from '@svc/platform';
import { assertMayPerform } from '../access.js';
import { readViewOf } from '../sharing-rules.js';
import { analyticsQueryStore, type StoredAnalyticsQuery } from '../../entities/analytics-query-store.js';
import { runAggregate } from '../../entities/analytics-sql.js';
import { patientConditions } from '../../entities/analytics-score-sql.js';
import { interpretQuestion, MAX_QUESTION_LENGTH } from './interpret.js';
import { readPurposeOfUse } from './purpose-of-use.js';
import { charlsonIndex, CHARLSON_ALGORITHMS, type CharlsonResult, type CharlsonWeights } from './charlson.js';
import type { StructuredQuery } from './structured-query.js';
import { recordQueryCreated, recordQueryExecuted, recordScoreComputed } from './events.js';

/** How long a stored query can be executed after it was read (its review window). */
export const QUERY_TTL_MS = 24 * 60 * 60 * 1000;
/** The most buckets a grouped result lists (50 years by month). */
export const MAX_BUCKETS = 600;

export interface InterpretInput {
  question: unknown;
  purposeOfUse: unknown;
}

/** Read a question and store the structured query for review and execution. */
export async function interpretAndStore(em: EntityManager, principal: Principal, input: InterpretInput, now: Date): Promise<StoredAnalyticsQuery> {
  const purposeOfUse = readPurposeOfUse(input.purposeOfUse);
  if (typeof input.question !== 'string' || input.question.trim() === '') throw validationError([{ field: 'question', message: 'is required: a question in English' }]);
  if (input.question.length > MAX_QUESTION_LENGTH) throw validationError([{ field: 'question', message: `must be at most ${MAX_QUESTION_LENGTH} characters` }]);
  const question = input.question.trim();
  const { query, readings, summary } = interpretQuestion(question, now);
  const stored: StoredAnalyticsQuery = {
    id: newId('anq', now.getTime()),
    partnerGpid: principal.partnerGpid,
    question,
    purposeOfUse,
    query,
    readings,
    summary,
    createdAt: now.toISOString(),
    expiresAt: new Date(now.getTime() + QUERY_TTL_MS).toISOString(),
  };
  await em.transactional(async (tx) => {
    await analyticsQueryStore.insert(tx, stored, now.toISOString());
    recordQueryCreated(tx, principal, stored, now);
  });
  return stored;
}

/** The FHIR types a query reads; the caller needs search permission on each. */
function typesRead(q: StructuredQuery): string[] {
  const types = ['Patient'];
  if (q.cohort.conditions || q.cohort.excluded_conditions.length > 0) types.push('Condition');
  if (q.measure === 'observation_average') types.push('Observation');
  return types;
}

export interface ExecutionResult {
  query: StoredAnalyticsQuery;
  executedAt: string;
  /** The day ages were computed on. */
  asOf: string;
  /** The single value (ungrouped), or the total over the buckets for counts (null for a grouped average). */
  value: number | null;
  unit: string | null;
  series: { period: string; value: number | null; patients: number; observations: number }[] | null;
  patients: number;
  observations: number;
  /** Observations left out because their unit is not the query's. */
  observationsInOtherUnits: number;
}

/** The calendar buckets of a period, so months without data answer 0 (or null for an average). */
function bucketsOf(period: StructuredQuery['period'], groupBy: 'month' | 'year'): string[] | null {
  if (!period?.start) return null;
  const out: string[] = [];
  let y = Number(period.start.slice(0, 4));
  let m = Number(period.start.slice(5, 7));
  const endY = Number(period.end.slice(0, 4));
  const endM = Number(period.end.slice(5, 7));
  while ((y < endY || (y === endY && (groupBy === 'year' || m <= endM))) && out.length <= MAX_BUCKETS) {
    out.push(groupBy === 'year' ? String(y) : `${y}-${String(m).padStart(2, '0')}`);
    if (groupBy === 'year') y++;
    else if (++m > 12) {
      m = 1;
      y++;
    }
  }
  return out;
}

/**
 * Run a stored query with the caller's scopes and read view. Another partner's query, like an
 * unknown id, is 404; an expired one is 410 for its owner.
 */
export async function executeStored(em: EntityManager, principal: Principal, queryId: unknown, now: Date): Promise<ExecutionResult> {
  if (!isId('anq', queryId)) throw validationError([{ field: 'query_id', message: 'must be a query id (anq_…) from /analytics/v1/query/nl' }]);
  const stored = await analyticsQueryStore.get(em, queryId);
  if (!stored || stored.partnerGpid !== principal.partnerGpid) throw new DomainError('NOT_FOUND', `There is no analytics query ${queryId}.`);
  if (stored.expiresAt <= now.toISOString()) {
    throw new DomainError('GONE', `Analytics query ${queryId} expired at ${stored.expiresAt}; ask the question again.`, { details: { expired_at: stored.expiresAt } });
  }
  const q = stored.query;
  for (const type of typesRead(q)) assertMayPerform(principal, 'search', type);
  const view = await readViewOf(em, principal);
  const asOf = now.toISOString().slice(0, 10);
  const { rows, otherUnits } = await runAggregate(em, { view, asOf }, q);
  const unit = q.measure === 'observation_average' ? q.observation!.unit : null;
  const patients = rows.reduce((s, r) => s + r.patients, 0);
  const observations = rows.reduce((s, r) => s + r.observations, 0);
  await recordQueryExecuted(em, principal, stored, patients, now);
  if (!q.group_by) {
    const row = rows[0];
    return { query: stored, executedAt: now.toISOString(), asOf, value: row?.value ?? (q.measure === 'observation_average' ? null : 0), unit, series: null, patients: row?.patients ?? 0, observations, observationsInOtherUnits: otherUnits };
  }
  const byBucket = new Map(rows.filter((r) => r.bucket !== null).map((r) => [r.bucket!, r]));
  const buckets = bucketsOf(q.period, q.group_by) ?? [...byBucket.keys()].sort();
  const empty = q.measure === 'observation_average' ? null : 0;
  const series = buckets.slice(0, MAX_BUCKETS).map((period) => {
    const r = byBucket.get(period);
    return { period, value: r?.value ?? empty, patients: r?.patients ?? 0, observations: r?.observations ?? 0 };
  });
  const total = q.measure === 'condition_count' ? series.reduce((s, p) => s + (p.value ?? 0), 0) : null;
  return { query: stored, executedAt: now.toISOString(), asOf, value: total, unit, series, patients, observations, observationsInOtherUnits: otherUnits };
}

export interface ScoreInput {
  patientId: unknown;
  algorithm?: unknown;
  ageAdjusted?: unknown;
}

export interface ScoreResult extends CharlsonResult {
  patientId: string;
  algorithm: 'charlson';
  computedAt: string;
}

const FHIR_ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** The Charlson Comorbidity Index of one patient the caller may read, from its Conditions. */
export async function computeScore(em: EntityManager, principal: Principal, input: ScoreInput, now: Date): Promise<ScoreResult> {
  const raw = typeof input.patientId === 'string' ? input.patientId.replace(/^Patient\//, '') : input.patientId;
  if (typeof raw !== 'string' || !FHIR_ID.test(raw)) throw validationError([{ field: 'patient_id', message: 'is required: the logical id of a Patient (or Patient/<id>)' }]);
  const weights = (input.algorithm ?? 'quan-2011') as CharlsonWeights;
  if (!CHARLSON_ALGORITHMS.includes(weights)) throw validationError([{ field: 'weights', message: `must be one of ${CHARLSON_ALGORITHMS.join(', ')}` }]);
  if (input.ageAdjusted !== undefined && input.ageAdjusted !== null && typeof input.ageAdjusted !== 'boolean') throw validationError([{ field: 'age_adjusted', message: 'must be true or false' }]);
  assertMayPerform(principal, 'read', 'Patient');
  assertMayPerform(principal, 'search', 'Condition');
  const view = await readViewOf(em, principal);
  const found = await patientConditions(em, view, raw);
  if (!found) throw new DomainError('NOT_FOUND', `There is no Patient ${raw}.`);
  const ageAdjusted = input.ageAdjusted === true;
  let age: number | null = null;
  if (ageAdjusted) {
    if (!found.birthDate) throw validationError([{ field: 'age_adjusted', message: `Patient ${raw} has no birthDate, so the score cannot be age-adjusted` }]);
    age = completedYears(found.birthDate, now);
  }
  const result = charlsonIndex(found.conditions, weights, age);
  await recordScoreComputed(em, principal, raw, weights, result.score, now);
  return { ...result, patientId: raw, algorithm: 'charlson', computedAt: now.toISOString() };
}

function completedYears(birthLow: string, now: Date): number {
  const b = new Date(birthLow);
  let years = now.getUTCFullYear() - b.getUTCFullYear();
  if (now.getUTCMonth() < b.getUTCMonth() || (now.getUTCMonth() === b.getUTCMonth() && now.getUTCDate() < b.getUTCDate())) years--;
  return years;
}

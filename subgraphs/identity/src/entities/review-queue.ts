import { storedDate, storedJson } from '@svc/platform';
import type { ChangeActor, ReviewCandidate, SourceOrigin } from '../domain/index.js';
import { type Sql } from './sql.js';

export const REVIEW_ITEMS = 'identity_review_items';
export const MATCH_LABELS = 'identity_match_labels';

export type ReviewStatus = 'OPEN' | 'CLOSED';

/** A decided pair of a review item: a training label of the scoring model. */
export interface MatchLabel {
  itemId: string;
  /** The record the item is about (the new record of the resolve). */
  leftRecordId: string;
  /** The candidate it was compared with. */
  rightRecordId: string;
  same: boolean;
  decidedBy: ChangeActor;
  decidedSource: SourceOrigin;
  decidedAt: Date;
  note: string | null;
  /** The merge request a "same" decision opened (applied once a second principal approves it). */
  mergeRequestId: string | null;
}

export interface ReviewItem {
  id: string;
  subjectGpid: string;
  status: ReviewStatus;
  candidates: ReviewCandidate[];
  /** The partner whose resolve proposed the item (null: an operator's or the platform's). */
  partnerGpid: string | null;
  source: SourceOrigin;
  createdAt: Date;
  closedAt: Date | null;
  /** The decided pairs, in decision order. */
  labels: MatchLabel[];
}

function labelFromRow(row: Record<string, unknown>): MatchLabel {
  return {
    itemId: String(row['item_id']),
    leftRecordId: String(row['left_gpid']),
    rightRecordId: String(row['right_gpid']),
    same: row['same'] === true || row['same'] === 1 || row['same'] === '1',
    decidedBy: storedJson<ChangeActor>(row['decided_by']),
    decidedSource: row['decided_source'] as SourceOrigin,
    decidedAt: storedDate(row['decided_at']),
    note: (row['note'] as string | null) ?? null,
    mergeRequestId: (row['merge_request_id'] as string | null) ?? null,
  };
}

async function labelsOf(sql: Sql, itemIds: readonly string[]): Promise<Map<string, MatchLabel[]>> {
  const out = new Map<string, MatchLabel[]>();
  if (itemIds.length === 0) return out;
  const rows = (await sql.table(MATCH_LABELS).whereIn('item_id', [...new Set(itemIds)]).orderBy('seq')) as Array<Record<string, unknown>>;
  for (const row of rows) {
    const label = labelFromRow(row);
    const list = out.get(label.itemId) ?? [];
    list.push(label);
    out.set(label.itemId, list);
  }
  return out;
}

function itemFromRow(row: Record<string, unknown>, labels: MatchLabel[]): ReviewItem {
  return {
    id: String(row['id']),
    subjectGpid: String(row['subject_gpid']),
    status: row['status'] as ReviewStatus,
    candidates: storedJson<ReviewCandidate[]>(row['candidates']),
    partnerGpid: (row['partner_gpid'] as string | null) ?? null,
    source: row['source'] as SourceOrigin,
    createdAt: storedDate(row['created_at']),
    closedAt: row['closed_at'] === null || row['closed_at'] === undefined ? null : storedDate(row['closed_at']),
    labels,
  };
}

export async function insertReviewItem(
  tx: Sql,
  item: { id: string; subjectGpid: string; candidates: readonly ReviewCandidate[]; partnerGpid: string | null; source: SourceOrigin; createdAt: Date },
): Promise<void> {
  await tx.table(REVIEW_ITEMS).insert({
    id: item.id,
    subject_gpid: item.subjectGpid,
    status: 'OPEN',
    candidates: JSON.stringify(item.candidates),
    partner_gpid: item.partnerGpid,
    source: item.source,
    created_at: tx.date(item.createdAt),
    closed_at: null,
  });
}

/** One item with its labels; on PostgreSQL inside a transaction with `lock`, row-locked. */
export async function getReviewItem(sql: Sql, id: string, options: { lock?: boolean } = {}): Promise<ReviewItem | null> {
  let query = sql.table(REVIEW_ITEMS).where('id', id);
  if (options.lock && sql.postgres && sql.inTransaction) query = query.forUpdate();
  const row = (await query.first()) as Record<string, unknown> | undefined;
  if (!row) return null;
  return itemFromRow(row, (await labelsOf(sql, [id])).get(id) ?? []);
}

/** Items oldest first (the queue order), of one status, after the item `afterId`; at most `limit`. */
export async function listReviewItems(sql: Sql, options: { status: ReviewStatus | null; afterId: string | null; limit: number }): Promise<ReviewItem[]> {
  let query = sql.table(REVIEW_ITEMS).orderBy('id').limit(options.limit);
  if (options.status) query = query.where('status', options.status);
  if (options.afterId) query = query.where('id', '>', options.afterId);
  const rows = (await query) as Array<Record<string, unknown>>;
  const labels = await labelsOf(sql, rows.map((r) => String(r['id'])));
  return rows.map((row) => itemFromRow(row, labels.get(String(row['id'])) ?? []));
}

export async function insertMatchLabel(tx: Sql, label: MatchLabel): Promise<void> {
  await tx.table(MATCH_LABELS).insert({
    item_id: label.itemId,
    left_gpid: label.leftRecordId,
    right_gpid: label.rightRecordId,
    same: label.same,
    decided_by: JSON.stringify(label.decidedBy),
    decided_source: label.decidedSource,
    decided_at: tx.date(label.decidedAt),
    note: label.note,
    merge_request_id: label.mergeRequestId,
  });
}

export async function closeReviewItem(tx: Sql, id: string, at: Date): Promise<void> {
  await tx.table(REVIEW_ITEMS).where({ id, status: 'OPEN' }).update({ status: 'CLOSED', closed_at: tx.date(at) });
}

/**
 * Every operator decision so far, oldest first: the training labels of the scoring model
 * (`{ leftRecordId, rightRecordId, same, decidedBy, decidedAt }`, record ids are GPIDs). The
 * trainer reads the two records' fingerprints by GPID; a MERGED record keeps its own.
 */
export async function listMatchLabels(sql: Sql, options: { afterSeq?: number; limit?: number } = {}): Promise<Array<MatchLabel & { seq: number }>> {
  let query = sql.table(MATCH_LABELS).orderBy('seq');
  if (options.afterSeq !== undefined) query = query.where('seq', '>', options.afterSeq);
  if (options.limit !== undefined) query = query.limit(options.limit);
  const rows = (await query) as Array<Record<string, unknown>>;
  return rows.map((row) => ({ ...labelFromRow(row), seq: Number(row['seq']) }));
}

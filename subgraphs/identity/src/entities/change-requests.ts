import { storedDate, storedJson } from '@svc/platform';
import type { ChangeActor, SourceOrigin } from '../domain/index.js';
import { CHANGE_REQUESTS } from './identity-record.js';
import { type Sql } from './sql.js';

export type ChangeKind = 'merge' | 'split';
/** PENDING until approved (APPLIED) or rejected (REJECTED); a PENDING request past its expiry reads as EXPIRED. */
export type ChangeStatus = 'PENDING' | 'APPLIED' | 'REJECTED' | 'EXPIRED';

/** A merge (`mrg_…`) or split (`spl_…`) request awaiting, or past, its second principal. */
export interface ChangeRequest {
  id: string;
  kind: ChangeKind;
  status: ChangeStatus;
  reason: string;
  note: string | null;
  /** Merge: the survivor. Split: the survivor the GPID is split from (as of the request). */
  survivorGpid: string | null;
  /** Merge: the GPIDs to merge. Split: the one GPID to split. */
  gpids: string[];
  requestedBy: ChangeActor;
  requestedSource: SourceOrigin;
  requestedAt: Date;
  expiresAt: Date;
  decidedBy: ChangeActor | null;
  decidedSource: SourceOrigin | null;
  decidedAt: Date | null;
  decisionNote: string | null;
  /** The audit entry an applied request wrote. */
  auditSeq: number | null;
}

function fromRow(row: Record<string, unknown>, now: Date): ChangeRequest {
  const expiresAt = storedDate(row['expires_at']);
  const stored = row['status'] as ChangeStatus;
  return {
    id: String(row['id']),
    kind: row['kind'] as ChangeKind,
    status: stored === 'PENDING' && expiresAt.getTime() <= now.getTime() ? 'EXPIRED' : stored,
    reason: String(row['reason']),
    note: (row['note'] as string | null) ?? null,
    survivorGpid: (row['survivor_gpid'] as string | null) ?? null,
    gpids: storedJson<string[]>(row['gpids']),
    requestedBy: storedJson<ChangeActor>(row['requested_by']),
    requestedSource: row['requested_source'] as SourceOrigin,
    requestedAt: storedDate(row['requested_at']),
    expiresAt,
    decidedBy: row['decided_by'] ? storedJson<ChangeActor>(row['decided_by']) : null,
    decidedSource: (row['decided_source'] as SourceOrigin | null) ?? null,
    decidedAt: row['decided_at'] === null || row['decided_at'] === undefined ? null : storedDate(row['decided_at']),
    decisionNote: (row['decision_note'] as string | null) ?? null,
    auditSeq: row['audit_seq'] === null || row['audit_seq'] === undefined ? null : Number(row['audit_seq']),
  };
}

export async function insertChangeRequest(tx: Sql, request: ChangeRequest): Promise<void> {
  await tx.table(CHANGE_REQUESTS).insert({
    id: request.id,
    kind: request.kind,
    status: 'PENDING',
    reason: request.reason,
    note: request.note,
    survivor_gpid: request.survivorGpid,
    gpids: JSON.stringify(request.gpids),
    requested_by: JSON.stringify(request.requestedBy),
    requested_partner_gpid: request.requestedBy.partnerGpid,
    requested_source: request.requestedSource,
    requested_at: tx.date(request.requestedAt),
    expires_at: tx.date(request.expiresAt),
    decided_by: null,
    decided_source: null,
    decided_at: null,
    decision_note: null,
    audit_seq: null,
  });
}

/** One request; on PostgreSQL inside a transaction with `lock`, row-locked until the decision commits. */
export async function getChangeRequest(sql: Sql, id: string, now: Date, options: { lock?: boolean } = {}): Promise<ChangeRequest | null> {
  let query = sql.table(CHANGE_REQUESTS).where('id', id);
  if (options.lock && sql.postgres && sql.inTransaction) query = query.forUpdate();
  const row = (await query.first()) as Record<string, unknown> | undefined;
  return row ? fromRow(row, now) : null;
}

export async function getChangeRequests(sql: Sql, ids: readonly string[], now: Date): Promise<Map<string, ChangeRequest>> {
  const rows = (await sql.table(CHANGE_REQUESTS).whereIn('id', [...new Set(ids)])) as Array<Record<string, unknown>>;
  return new Map(rows.map((row) => [String(row['id']), fromRow(row, now)]));
}

/** Records the decision of a PENDING request; false when it was decided concurrently. */
export async function decideChangeRequest(
  tx: Sql,
  id: string,
  decision: { status: 'APPLIED' | 'REJECTED'; decidedBy: ChangeActor; decidedSource: SourceOrigin; decidedAt: Date; decisionNote: string | null; auditSeq: number | null },
): Promise<boolean> {
  const changed = await tx.table(CHANGE_REQUESTS).where({ id, status: 'PENDING' }).update({
    status: decision.status,
    decided_by: JSON.stringify(decision.decidedBy),
    decided_source: decision.decidedSource,
    decided_at: tx.date(decision.decidedAt),
    decision_note: decision.decisionNote,
    audit_seq: decision.auditSeq,
  });
  return Number(changed) === 1;
}

/**
 * Requests newest first (by the time-ordered part of the id, so merges and splits interleave),
 * optionally of one effective status, kind and requesting partner, before the request `beforeId`.
 */
export async function listChangeRequests(
  sql: Sql,
  options: { status: ChangeStatus | null; kind: ChangeKind | null; size: number; beforeId: string | null; now: Date; partnerGpid?: string | null },
): Promise<ChangeRequest[]> {
  let query = sql.table(CHANGE_REQUESTS).orderByRaw('substr(id, 5) desc').limit(options.size + 1);
  const now = sql.date(options.now);
  if (options.status === 'PENDING') query = query.where('status', 'PENDING').where('expires_at', '>', now);
  else if (options.status === 'EXPIRED') query = query.where('status', 'PENDING').where('expires_at', '<=', now);
  else if (options.status) query = query.where('status', options.status);
  if (options.kind) query = query.where('kind', options.kind);
  if (options.partnerGpid !== undefined) query = query.where('requested_partner_gpid', options.partnerGpid ?? '-');
  if (options.beforeId) query = query.whereRaw('substr(id, 5) < ?', [options.beforeId.slice(4)]);
  return ((await query) as Array<Record<string, unknown>>).map((row) => fromRow(row, options.now));
}

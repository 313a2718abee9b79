/**
 * The append-only audit table of identity corrections. This repository can append and read; it has
 * no update or delete, and the database refuses both anyway (triggers of migration m002).
 */
import { AuditChainVerifier, sealAuditEntry, type AuditContent, type AuditEntry, type AuditVerification } from '../domain/index.js';
import { AUDIT } from './identity-record.js';
import type { Sql } from './sql.js';

/** A fixed advisory-lock id for "appending to the identity audit chain" (PostgreSQL). */
const AUDIT_APPEND_LOCK = '7301463372116250625';

export interface StoredAuditEntry extends AuditEntry {
  partnerGpid: string | null;
}

function fromRow(row: Record<string, unknown>): StoredAuditEntry {
  return {
    seq: Number(row['seq']),
    eventId: String(row['event_id']),
    type: String(row['type']),
    occurredAt: String(row['occurred_at']),
    partnerGpid: (row['partner_gpid'] as string | null) ?? null,
    payload: String(row['payload']),
    prevHash: String(row['prev_hash']),
    hash: String(row['hash']),
  };
}

/**
 * Appends an entry after the current head, inside `tx`. Appenders are serialized (an advisory lock
 * on PostgreSQL; the single writer on SQLite) and `prev_hash` is unique, so the chain cannot fork.
 */
export async function appendAudit(tx: Sql, content: AuditContent & { partnerGpid: string | null }): Promise<StoredAuditEntry> {
  if (tx.postgres) await tx.rows('select pg_advisory_xact_lock(?::bigint)', [AUDIT_APPEND_LOCK]);
  const head = (await tx.table(AUDIT).orderBy('seq', 'desc').first('seq', 'hash')) as { seq: number | string; hash: string } | undefined;
  const entry = sealAuditEntry(head ? { seq: Number(head.seq), hash: head.hash } : null, content);
  await tx.table(AUDIT).insert({
    seq: entry.seq,
    event_id: entry.eventId,
    type: entry.type,
    occurred_at: entry.occurredAt,
    partner_gpid: content.partnerGpid,
    payload: entry.payload,
    prev_hash: entry.prevHash,
    hash: entry.hash,
  });
  return { ...entry, partnerGpid: content.partnerGpid };
}

/** Walks the whole chain from the first entry, a page at a time. */
export async function verifyAudit(sql: Sql, pageSize = 500): Promise<AuditVerification> {
  const verifier = new AuditChainVerifier();
  let after = 0;
  for (;;) {
    const rows = (await sql.table(AUDIT).where('seq', '>', after).orderBy('seq').limit(pageSize)) as Array<Record<string, unknown>>;
    for (const row of rows) {
      if (!verifier.push(fromRow(row))) return verifier.result();
    }
    if (rows.length < pageSize) return verifier.result();
    after = Number(rows[rows.length - 1]!['seq']);
  }
}

/** Entries in chain order after `afterSeq`; with `partnerGpid`, only the changes that partner requested. */
export async function listAudit(sql: Sql, options: { afterSeq: number; size: number; types?: readonly string[] | null; partnerGpid?: string }): Promise<StoredAuditEntry[]> {
  let query = sql.table(AUDIT).where('seq', '>', options.afterSeq).orderBy('seq').limit(options.size + 1);
  if (options.types?.length) query = query.whereIn('type', [...options.types]);
  if (options.partnerGpid !== undefined) query = query.where('partner_gpid', options.partnerGpid);
  return ((await query) as Array<Record<string, unknown>>).map(fromRow);
}

/**
 * The tamper-evident audit chain of identity corrections (`identity.merged.v1`,
 * `identity.split.v1`). Every entry carries the SHA-256 of the previous entry's hash followed by its
 * own canonical content, so changing, removing or reordering any entry breaks every hash after it.
 *
 *   hash_n = sha256_hex( hash_{n-1} ‖ "\n" ‖ seq ‖ "\n" ‖ event_id ‖ "\n" ‖ type ‖ "\n" ‖ occurred_at ‖ "\n" ‖ payload )
 *
 * `payload` is canonical JSON (object keys sorted, no insignificant whitespace) and is stored as that
 * exact text; hash_0 is 64 zeros. Sequence numbers start at 1 with no gaps. Removing the newest
 * entries leaves a valid shorter chain: the head (seq, hash) is published with every audit event
 * (the event log, webhooks), so outside copies can tell a truncated chain from a complete one.
 */
import { createHash } from 'node:crypto';

export const GENESIS_HASH = '0'.repeat(64);

/** The content of an entry, before it is sealed into the chain. */
export interface AuditContent {
  eventId: string;
  type: string;
  /** ISO 8601 UTC, as stored. */
  occurredAt: string;
  /** Canonical JSON text of the event payload. */
  payload: string;
}

export interface AuditEntry extends AuditContent {
  seq: number;
  prevHash: string;
  hash: string;
}

/** JSON with object keys sorted at every level: one text per value, whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeys(v);
    }
    return out;
  }
  return value;
}

/** The hash of an entry given its predecessor's hash. */
export function auditHash(prevHash: string, seq: number, content: AuditContent): string {
  return createHash('sha256')
    .update(prevHash)
    .update('\n')
    .update(String(seq))
    .update('\n')
    .update(content.eventId)
    .update('\n')
    .update(content.type)
    .update('\n')
    .update(content.occurredAt)
    .update('\n')
    .update(content.payload)
    .digest('hex');
}

/** Seals content as the entry after `head` (null for the first entry). */
export function sealAuditEntry(head: { seq: number; hash: string } | null, content: AuditContent): AuditEntry {
  const seq = (head?.seq ?? 0) + 1;
  const prevHash = head?.hash ?? GENESIS_HASH;
  return { ...content, seq, prevHash, hash: auditHash(prevHash, seq, content) };
}

export interface AuditVerification {
  valid: boolean;
  /** Entries checked. */
  checked: number;
  headSeq: number | null;
  headHash: string | null;
  /** The first entry that does not verify, and why. */
  firstInvalidSeq: number | null;
  problem: string | null;
}

/**
 * Walks the chain in order, entry by entry (feed it pages of any size). Stops judging at the first
 * broken entry; `result()` says where and why.
 */
export class AuditChainVerifier {
  private expectedSeq = 1;
  private prevHash = GENESIS_HASH;
  private checked = 0;
  private broken: { seq: number; problem: string } | null = null;

  /** Checks the next entry; returns false once the chain is broken. */
  push(entry: AuditEntry): boolean {
    if (this.broken) return false;
    const fail = (problem: string) => {
      this.broken = { seq: entry.seq, problem };
      return false;
    };
    if (entry.seq !== this.expectedSeq) {
      return fail(entry.seq > this.expectedSeq ? `entries ${this.expectedSeq}–${entry.seq - 1} are missing` : `entry ${entry.seq} is out of order`);
    }
    if (entry.prevHash !== this.prevHash) return fail(`entry ${entry.seq} does not link to the hash of entry ${entry.seq - 1}`);
    if (auditHash(entry.prevHash, entry.seq, entry) !== entry.hash) return fail(`entry ${entry.seq} was altered: its content does not match its hash`);
    this.checked += 1;
    this.expectedSeq += 1;
    this.prevHash = entry.hash;
    return true;
  }

  result(): AuditVerification {
    const headSeq = this.checked === 0 ? null : this.expectedSeq - 1;
    return {
      valid: this.broken === null,
      checked: this.checked,
      headSeq,
      headHash: headSeq === null ? null : this.prevHash,
      firstInvalidSeq: this.broken?.seq ?? null,
      problem: this.broken?.problem ?? null,
    };
  }
}

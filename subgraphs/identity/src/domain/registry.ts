/**
 * The storage port of identity resolution. The domain never talks to a database: it asks an
 * `IdentityRegistry` for candidates by blocking key and hands it one atomic change per resolve.
 * The database layer implements this interface (for example one table of records and one table of
 * `(blocking_key, gpid)` rows indexed on `blocking_key`); `InMemoryIdentityRegistry` is the
 * reference implementation used by the tests and the accuracy benchmark.
 *
 * A record holds no clear demographics: only keyed fingerprints per comparison field and the
 * keyed blocking keys (see `fingerprint.ts`, `fields.ts`).
 */
import { DomainError } from '../../../../platform/src/errors.js';
import type { IdentityStatus, SourceOrigin } from './enums.js';
import type { EntityTypeId } from './entity-types.js';
import type { FieldSets } from './fields.js';
import type { TransitionTrigger } from './state-machine.js';

export interface IdentityRecord {
  readonly gpid: string;
  readonly entityType: EntityTypeId;
  readonly status: IdentityStatus;
  /** Field-level fingerprints used for scoring (sets; see `fields.ts`). */
  readonly fields: FieldSets;
  /** Keyed blocking keys this record is indexed under. */
  readonly blockingKeys: readonly string[];
  /** Distinct source origins that asserted this identity, first one first. */
  readonly sources: readonly SourceOrigin[];
  /** Related GPIDs awaiting review: possible duplicates (PROVISIONAL) or strong conflicts (CONFLICT). */
  readonly links: readonly string[];
  /** Survivor GPID once MERGED. */
  readonly mergedInto: string | null;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Optimistic-concurrency version: 1 on insert, +1 on every update. */
  readonly version: number;
}

/** One status change, for events and audit. `from` is null when the record is created. */
export interface StatusTransition {
  gpid: string;
  from: IdentityStatus | null;
  to: IdentityStatus;
  trigger: TransitionTrigger | 'created';
  source: SourceOrigin | null;
}

export interface RegistryCandidate {
  record: IdentityRecord;
  /** How many of the probed blocking keys this record shares. */
  keyHits: number;
}

/** One atomic write: everything or nothing. */
export interface RegistryChange {
  inserts: readonly IdentityRecord[];
  /** Each record replaces the stored one whose version equals `expectedVersion`. */
  updates: ReadonlyArray<{ record: IdentityRecord; expectedVersion: number }>;
  /** The status changes this write performs (the storage layer may write them to its outbox). */
  transitions: readonly StatusTransition[];
}

/** What the storage layer must provide. */
export interface IdentityRegistry {
  /**
   * Records indexed under at least one of `keys`, the most shared keys first (ties in any stable
   * order), at most `limit`. Records of every status may be returned; the pipeline skips MERGED.
   */
  findByBlockingKeys(keys: readonly string[], limit: number): Promise<RegistryCandidate[]>;
  /** One record by GPID. */
  get(gpid: string): Promise<IdentityRecord | undefined>;
  /**
   * Applies a change atomically, re-indexing the blocking keys of every written record. Throws a
   * `CONFLICT` DomainError with `details.reason` `stale_version` when an update's expected version
   * is not the stored one, or `gpid_taken` when an insert reuses a GPID; nothing is written then.
   */
  commit(change: RegistryChange): Promise<void>;
}

export type RegistryConflictReason = 'stale_version' | 'gpid_taken' | 'not_found';

export function registryConflict(reason: RegistryConflictReason, gpid: string): DomainError {
  return new DomainError('CONFLICT', `Identity record ${gpid} changed concurrently (${reason}).`, {
    details: { reason, gpid },
  });
}

/** True for the retryable write conflicts of `commit`. */
export function isRetryableRegistryConflict(error: unknown): boolean {
  return (
    error instanceof DomainError &&
    error.code === 'CONFLICT' &&
    (error.details.reason === 'stale_version' || error.details.reason === 'gpid_taken')
  );
}

function freeze(record: IdentityRecord): IdentityRecord {
  const fields: FieldSets = {};
  for (const [k, v] of Object.entries(record.fields)) (fields as Record<string, readonly string[]>)[k] = Object.freeze([...v]);
  return Object.freeze({
    ...record,
    fields: Object.freeze(fields),
    blockingKeys: Object.freeze([...record.blockingKeys]),
    sources: Object.freeze([...record.sources]),
    links: Object.freeze([...record.links]),
  });
}

/** Reference implementation: two maps, no persistence. Not for production. */
export class InMemoryIdentityRegistry implements IdentityRegistry {
  private readonly records = new Map<string, IdentityRecord>();
  private readonly index = new Map<string, Set<string>>();
  /** Every committed status change, in order (handy in tests). */
  readonly transitions: StatusTransition[] = [];

  get size(): number {
    return this.records.size;
  }

  all(): IterableIterator<IdentityRecord> {
    return this.records.values();
  }

  async findByBlockingKeys(keys: readonly string[], limit: number): Promise<RegistryCandidate[]> {
    const hits = new Map<string, number>();
    for (const key of new Set(keys)) {
      const gpids = this.index.get(key);
      if (!gpids) continue;
      for (const gpid of gpids) hits.set(gpid, (hits.get(gpid) ?? 0) + 1);
    }
    return [...hits]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .slice(0, Math.max(0, limit))
      .map(([gpid, keyHits]) => ({ record: this.records.get(gpid)!, keyHits }));
  }

  async get(gpid: string): Promise<IdentityRecord | undefined> {
    return this.records.get(gpid);
  }

  async commit(change: RegistryChange): Promise<void> {
    // Validate everything first: the write is all or nothing.
    const inserting = new Set<string>();
    for (const record of change.inserts) {
      if (this.records.has(record.gpid) || inserting.has(record.gpid)) throw registryConflict('gpid_taken', record.gpid);
      inserting.add(record.gpid);
    }
    for (const { record, expectedVersion } of change.updates) {
      const stored = this.records.get(record.gpid);
      if (!stored) throw registryConflict('not_found', record.gpid);
      if (stored.version !== expectedVersion) throw registryConflict('stale_version', record.gpid);
    }
    for (const record of change.inserts) this.write(record);
    for (const { record } of change.updates) this.write(record);
    this.transitions.push(...change.transitions);
  }

  private write(record: IdentityRecord): void {
    const previous = this.records.get(record.gpid);
    if (previous) {
      for (const key of previous.blockingKeys) this.index.get(key)?.delete(record.gpid);
    }
    const stored = freeze(record);
    this.records.set(record.gpid, stored);
    for (const key of stored.blockingKeys) {
      let set = this.index.get(key);
      if (!set) this.index.set(key, (set = new Set()));
      set.add(record.gpid);
    }
  }
}

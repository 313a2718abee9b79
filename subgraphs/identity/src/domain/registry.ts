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
import { DomainError } from '@svc/platform';
import type { IdentityStatus, MatchType, SourceOrigin } from './enums.js';
import type { EntityTypeId } from './entity-types.js';
import type { FieldSets } from './fields.js';
import type { DemographicFingerprints } from './stage2-fingerprint.js';
import { KeyedMutex } from './keyed-mutex.js';
import type { TransitionTrigger } from './state-machine.js';
import type { ResolveDecisionKind } from './stage5-assign.js';
import type { ReviewCandidate } from './review-queue.js';

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

/**
 * What one resolve decided. The storage layer keeps it, in the same transaction as the records, as
 * match history, as a source confirmation and as the `identity.match` event.
 */
export interface ResolutionOutcome {
  /** The GPID the subject resolved to (existing or new). */
  gpid: string;
  entityType: EntityTypeId;
  /** Status of `gpid` after the resolve. */
  status: IdentityStatus;
  decision: ResolveDecisionKind;
  matchType: MatchType;
  confidence: number;
  created: boolean;
  /**
   * The existing registry GPID the subject's demographics matched: `gpid` itself when an existing
   * record was returned, the closest linked record when a new PROVISIONAL or CONFLICT record was
   * created, null when nothing matched (new SHADOW record).
   */
  subjectGpid: string | null;
  source: SourceOrigin;
  /** Opaque reference of who asked (the partner GPID); stored with the history, never interpreted. */
  actor: string | null;
  /** Opaque: whether the actor sees every record (an operator), for what storage tells it. */
  actorSeesAll?: boolean;
  /** Opaque: the write path the request came through (boundary-header evidence); storage's default when absent. */
  via?: string;
  /** ISO 8601 time of the decision. */
  at: string;
  /**
   * A new record linked for review (NEW_PROVISIONAL, NEW_CONFLICT): the candidates it was linked
   * to, with their scores and agreement, for the review queue (kept in the same transaction).
   */
  review?: readonly ReviewCandidate[];
  /** The subject's own keyed fingerprints and blocking keys as this resolve read them (training's raw input). */
  observed: DemographicFingerprints;
}

/** One atomic write: everything or nothing. */
export interface RegistryChange {
  inserts: readonly IdentityRecord[];
  /** Each record replaces the stored one whose version equals `expectedVersion`. */
  updates: ReadonlyArray<{ record: IdentityRecord; expectedVersion: number }>;
  /** The status changes this write performs (the storage layer may write them to its outbox). */
  transitions: readonly StatusTransition[];
  /** Set by resolve: its decision, for history, confirmations and events in the same transaction. */
  resolution?: ResolutionOutcome;
}

/** What the storage layer must provide. */
export interface IdentityRegistry {
  /**
   * Records indexed under at least one of `keys`, the most shared keys first (ties in any stable
   * order), at most `limit`. Records of every status may be returned; the pipeline skips MERGED.
   */
  findByBlockingKeys(keys: readonly string[], limit: number): Promise<RegistryCandidate[]>;
  /**
   * Optional: `findByBlockingKeys` for several probes at once (one answer per probe, in order, each
   * exactly what `findByBlockingKeys(probe, limit)` answers), in one round trip.
   */
  findByBlockingKeysMany?(probes: ReadonlyArray<readonly string[]>, limit: number): Promise<RegistryCandidate[][]>;
  /** One record by GPID. */
  get(gpid: string): Promise<IdentityRecord | undefined>;
  /**
   * Applies a change atomically, re-indexing the blocking keys of every written record. Throws a
   * `CONFLICT` DomainError with `details.reason` `stale_version` when an update's expected version
   * is not the stored one, or `gpid_taken` when an insert reuses a GPID; nothing is written then.
   */
  commit(change: RegistryChange): Promise<void>;
  /**
   * The next number of the system GPID sequence of (product, entity type), starting at 1. Inside
   * `exclusive` it belongs to the same unit of work as the commit (a rolled-back resolve returns it).
   */
  nextSequence(product: string, entityType: EntityTypeId): Promise<number>;
  /**
   * Optional: runs `work` holding `keys` exclusively, with a registry bound to one unit of work
   * (a database transaction). Holders of overlapping key sets run one after the other, in this
   * process and, for shared storage, across processes; so two concurrent resolves of one person
   * (whose blocking keys overlap) cannot both create a record. Implementations may run `work` again
   * after a retryable conflict. Without it the pipeline still retries lost updates, but two
   * simultaneous first resolves of one person could create two records.
   */
  exclusive?<T>(keys: readonly string[], work: (registry: IdentityRegistry) => Promise<T>): Promise<T>;
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
  private readonly sequences = new Map<string, number>();
  private readonly locks = new KeyedMutex();
  /** Every committed status change, in order (handy in tests). */
  readonly transitions: StatusTransition[] = [];
  /** Every committed resolve decision, in order. */
  readonly resolutions: ResolutionOutcome[] = [];

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
    if (change.resolution) this.resolutions.push(change.resolution);
  }

  async nextSequence(product: string, entityType: EntityTypeId): Promise<number> {
    const key = `${product}\u001f${entityType}`;
    const next = (this.sequences.get(key) ?? 0) + 1;
    this.sequences.set(key, next);
    return next;
  }

  /** Serializes overlapping key sets in this process (the map is the unit of work). */
  exclusive<T>(keys: readonly string[], work: (registry: IdentityRegistry) => Promise<T>): Promise<T> {
    return this.locks.run(keys, () => work(this));
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

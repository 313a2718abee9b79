/**
 * The `IdentityRegistry` port on SQL (SQLite and PostgreSQL through MikroORM's knex).
 *
 * - Lookup is index-driven: one statement aggregates the postings of the probed blocking keys
 *   (primary key `(blocking_key, gpid)`) and joins the best `limit` records. Its cost depends on how
 *   many records share the probed keys, not on how many records exist.
 * - `commit` is one transaction: version-checked updates (`stale_version`), GPID-checked inserts
 *   (`gpid_taken`; a single insert, a resolve's, is checked by its own `on conflict do nothing`), the key index rewritten as a diff, then the caller's effects (history,
 *   confirmations, outbox events) in the same transaction.
 * - `exclusive` serializes resolves whose blocking keys overlap: an in-process keyed mutex (so
 *   waiting costs no database connection) and, on PostgreSQL, `pg_advisory_xact_lock` on every
 *   hashed key inside the transaction, which holds across replicas. SQLite has a single writer per
 *   file and this process is its only user, so the mutex is enough there.
 */
import { chunks, coalescedReads, storedJson } from '@svc/platform';
import { createHash } from 'node:crypto';
import {
  isRetryableRegistryConflict,
  KeyedMutex,
  registryConflict,
  type EntityTypeId,
  type IdentityRecord,
  type IdentityRegistry,
  type RegistryCandidate,
  type RegistryChange,
} from '../domain/index.js';
import { BLOCKING_KEYS, indexedKeys, RECORD_COLUMNS, RECORDS, recordFromRow, rowFromRecord, SEQUENCES, type IdentityRecordRow } from './identity-record.js';
import { isRetryableDatabaseError, type Sql } from './sql.js';

/** Writes that belong to the same transaction as a registry change (history, events, …). */
export type CommitEffects = (sql: Sql, change: RegistryChange) => Promise<void>;

export interface SqlRegistryOptions {
  locks?: KeyedMutex;
  effects?: CommitEffects;
  /** Transactions `exclusive` runs before giving up on retryable conflicts. Default 5. */
  maxAttempts?: number;
}

const COLUMNS = RECORD_COLUMNS.map((c) => `r.${c}`).join(', ');

/** The advisory-lock id of a blocking key: 64 bits of its SHA-256, in a namespace of our own. */
function advisoryLockId(key: string): bigint {
  return createHash('sha256').update('identity.blocking_key\u001f').update(key).digest().readBigInt64BE(0);
}

export class SqlIdentityRegistry implements IdentityRegistry {
  private readonly locks: KeyedMutex;
  /** Reads by GPID outside a transaction, batched across concurrent requests (`identity(gpid)`, entity references). */
  private readonly sharedReads: ((gpids: readonly string[]) => Promise<Map<string, IdentityRecord>>) | undefined;

  constructor(
    readonly sql: Sql,
    private readonly options: SqlRegistryOptions = {},
  ) {
    this.locks = options.locks ?? new KeyedMutex();
    this.sharedReads = sql.inTransaction ? undefined : coalescedReads((gpids) => this.read(gpids, ''));
  }

  /** The same registry inside the transaction of `sql`. */
  bind(sql: Sql): SqlIdentityRegistry {
    return new SqlIdentityRegistry(sql, { ...this.options, locks: this.locks });
  }

  async findByBlockingKeys(keys: readonly string[], limit: number): Promise<RegistryCandidate[]> {
    const unique = [...new Set(keys)];
    if (unique.length === 0 || limit <= 0) return [];
    const placeholders = unique.map(() => '?').join(', ');
    const rows = await this.sql.rows<IdentityRecordRow & { hits: number | string }>(
      `select ${COLUMNS}, h.hits from (` +
        `select gpid, count(*) as hits from ${BLOCKING_KEYS} where blocking_key in (${placeholders}) group by gpid order by count(*) desc, gpid limit ?` +
        `) h join ${RECORDS} r on r.gpid = h.gpid order by h.hits desc, r.gpid`,
      [...unique, Math.floor(limit)],
    );
    return rows.map((row) => ({ record: recordFromRow(row), keyHits: Number(row.hits) }));
  }

  /**
   * On PostgreSQL one statement for every probe (a lateral join runs the single lookup per probe,
   * the same aggregate, order and limit); on SQLite, in this process, one lookup after the other.
   */
  async findByBlockingKeysMany(probes: ReadonlyArray<readonly string[]>, limit: number): Promise<RegistryCandidate[][]> {
    if (!this.sql.postgres) {
      const out: RegistryCandidate[][] = [];
      for (const keys of probes) out.push(await this.findByBlockingKeys(keys, limit));
      return out;
    }
    const out: RegistryCandidate[][] = probes.map(() => []);
    const asked = probes.map((keys, i) => ({ i, keys: [...new Set(keys)] })).filter((p) => p.keys.length > 0);
    if (asked.length === 0 || limit <= 0) return out;
    const rows = await this.sql.rows<IdentityRecordRow & { probe: number | string; hits: number | string }>(
      `select p.probe, ${COLUMNS}, h.hits from unnest(?::int[], ?::text[]) as p(probe, keys) ` +
        `cross join lateral (` +
        `select gpid, count(*) as hits from ${BLOCKING_KEYS} where blocking_key = any(p.keys::text[]) group by gpid order by count(*) desc, gpid limit ?` +
        `) h join ${RECORDS} r on r.gpid = h.gpid order by p.probe, h.hits desc, r.gpid`,
      [`{${asked.map((p) => p.i).join(',')}}`, pgArray(asked.map((p) => pgArray(p.keys))), Math.floor(limit)],
    );
    const parsed = new Map<string, IdentityRecord>();
    for (const row of rows) {
      const record = parsed.get(row.gpid) ?? recordFromRow(row);
      parsed.set(row.gpid, record);
      out[Number(row.probe)]!.push({ record, keyHits: Number(row.hits) });
    }
    return out;
  }

  async get(gpid: string): Promise<IdentityRecord | undefined> {
    const [row] = await this.sql.rows<IdentityRecordRow>(`select ${RECORD_COLUMNS.join(', ')} from ${RECORDS} where gpid = ?`, [gpid]);
    return row ? recordFromRow(row) : undefined;
  }

  /**
   * Several records by GPID (missing ones are absent); on PostgreSQL inside a transaction, row-locked.
   * Outside a transaction the reads of concurrent requests share one statement.
   */
  async getMany(gpids: readonly string[], options: { lock?: boolean } = {}): Promise<Map<string, IdentityRecord>> {
    if (this.sharedReads) return this.sharedReads(gpids);
    return this.read(gpids, options.lock && this.sql.postgres ? ' for update' : '');
  }

  /**
   * Written as SQL text, not built: on the `identity(gpid)` read the query builder's compiling was
   * 6 % of the subgraph's CPU time (bench/RESULTS.md).
   */
  private async read(gpids: readonly string[], lock: string): Promise<Map<string, IdentityRecord>> {
    const out = new Map<string, IdentityRecord>();
    for (const part of chunks([...new Set(gpids)], 500)) {
      const sql = `select ${RECORD_COLUMNS.join(', ')} from ${RECORDS} where gpid in (${part.map(() => '?').join(', ')}) order by gpid${lock}`;
      for (const row of await this.sql.rows<IdentityRecordRow>(sql, part)) out.set(row.gpid, recordFromRow(row));
    }
    return out;
  }

  async commit(change: RegistryChange): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await writeChange(tx, change);
      await this.options.effects?.(tx, change);
    });
  }

  async nextSequence(product: string, entityType: EntityTypeId): Promise<number> {
    const rows = await this.sql.rows<{ last_value: number | string }>(
      `insert into ${SEQUENCES} (product, entity_type, last_value) values (?, ?, 1) ` +
        `on conflict (product, entity_type) do update set last_value = ${SEQUENCES}.last_value + 1 returning last_value`,
      [product, entityType],
    );
    return Number(rows[0]!.last_value);
  }

  async exclusive<T>(keys: readonly string[], work: (registry: IdentityRegistry) => Promise<T>): Promise<T> {
    // Already inside a unit of work that holds its keys: run in it.
    if (this.sql.inTransaction) return work(this);
    const release = await this.locks.acquire(keys);
    try {
      const maxAttempts = this.options.maxAttempts ?? 5;
      for (let attempt = 1; ; attempt++) {
        try {
          return await this.sql.transaction(async (tx) => {
            if (tx.postgres) await lockKeysAcrossReplicas(tx, keys);
            return work(this.bind(tx));
          });
        } catch (error) {
          if (attempt < maxAttempts && (isRetryableRegistryConflict(error) || isRetryableDatabaseError(error))) continue;
          throw error;
        }
      }
    } finally {
      release();
    }
  }
}

/** `pg_advisory_xact_lock` on every key, in one statement, in ascending id order (no lock cycles). */
async function lockKeysAcrossReplicas(tx: Sql, keys: readonly string[]): Promise<void> {
  const ids = [...new Set(keys.map(advisoryLockId))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (ids.length === 0) return;
  // Volatile functions in the select list run after ORDER BY, so the locks are taken in order.
  await tx.rows('select pg_advisory_xact_lock(k) from unnest(?::bigint[]) with ordinality as u(k, n) order by n', [`{${ids.join(',')}}`]);
}

/** A PostgreSQL array literal of text values (each quoted and escaped). */
function pgArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;
}

interface StoredState {
  gpid: string;
  version: number | string;
  status: string;
  blocking_keys: unknown;
}

/** The writes of one change, in `tx`. Checks everything before writing anything. */
async function writeChange(tx: Sql, change: RegistryChange): Promise<void> {
  const insertGpids = change.inserts.map((r) => r.gpid);
  if (new Set(insertGpids).size !== insertGpids.length) throw registryConflict('gpid_taken', insertGpids.find((g, i) => insertGpids.indexOf(g) !== i)!);
  // A resolve inserts one record: its GPID is checked by the insert itself (below), a statement less.
  const single = change.inserts.length === 1 ? change.inserts[0]! : null;
  if (!single) {
    for (const part of chunks(insertGpids, 500)) {
      const taken = (await tx.table(RECORDS).whereIn('gpid', part).select('gpid')) as { gpid: string }[];
      if (taken.length > 0) throw registryConflict('gpid_taken', taken[0]!.gpid);
    }
  }

  const stored = new Map<string, StoredState>();
  const updateGpids = change.updates.map((u) => u.record.gpid);
  for (const part of chunks(updateGpids, 500)) {
    let query = tx.table(RECORDS).whereIn('gpid', part).select('gpid', 'version', 'status', 'blocking_keys').orderBy('gpid');
    if (tx.postgres) query = query.forUpdate();
    for (const row of (await query) as StoredState[]) stored.set(row.gpid, row);
  }
  for (const { record, expectedVersion } of change.updates) {
    const current = stored.get(record.gpid);
    if (!current) throw registryConflict('not_found', record.gpid);
    if (Number(current.version) !== expectedVersion) throw registryConflict('stale_version', record.gpid);
  }

  const keyRows: Array<{ blocking_key: string; gpid: string }> = [];
  if (single) {
    // The last check: nothing is written yet when the GPID is taken.
    const inserted = await tx.table(RECORDS).insert(rowFromRecord(tx, single)).onConflict('gpid').ignore().returning('gpid');
    if ((inserted as unknown[]).length !== 1) throw registryConflict('gpid_taken', single.gpid);
  } else for (const part of chunks(change.inserts, 200)) await tx.table(RECORDS).insert(part.map((r) => rowFromRecord(tx, r)));
  for (const record of change.inserts) for (const key of indexedKeys(record)) keyRows.push({ blocking_key: key, gpid: record.gpid });

  // Updates in GPID order, so two writers lock rows in the same order.
  const updates = [...change.updates].sort((a, b) => (a.record.gpid < b.record.gpid ? -1 : 1));
  const removals: Array<{ gpid: string; keys: string[] }> = [];
  for (const { record, expectedVersion } of updates) {
    const { gpid: _gpid, created_at: _created, ...values } = rowFromRecord(tx, record);
    const changed = await tx.table(RECORDS).where({ gpid: record.gpid, version: expectedVersion }).update(values);
    if (Number(changed) !== 1) throw registryConflict('stale_version', record.gpid);
    const current = stored.get(record.gpid)!;
    const before = new Set(current.status === 'MERGED' ? [] : storedJson<string[]>(current.blocking_keys));
    const after = new Set(indexedKeys(record));
    const removed = [...before].filter((k) => !after.has(k));
    if (removed.length > 0) removals.push({ gpid: record.gpid, keys: removed });
    for (const key of after) if (!before.has(key)) keyRows.push({ blocking_key: key, gpid: record.gpid });
  }
  for (const { gpid, keys } of removals) {
    for (const part of chunks(keys, 500)) await tx.table(BLOCKING_KEYS).where('gpid', gpid).whereIn('blocking_key', part).delete();
  }
  for (const part of chunks(keyRows, 400)) await tx.table(BLOCKING_KEYS).insert(part).onConflict(['blocking_key', 'gpid']).ignore();
}

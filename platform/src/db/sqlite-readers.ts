import type { Knex } from '@mikro-orm/knex';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { DependencyUnavailable } from '../dependency-health.js';
import { inSqlSpan } from '../tracing/sql.js';
import { rowsOf } from './stored-values.js';

/**
 * Reads of an embedded SQLite database on worker threads, so that the event loop goes on with other
 * requests while a statement runs, and a second core does database work.
 *
 * better-sqlite3 runs every statement to completion on the calling thread. On the FHIR store a
 * sorted search spends about half its time inside SQLite (walking an index, counting matches,
 * reading twenty rows), all of it on the event loop, so requests queued behind one another's
 * statements and one core of two did the work. Here a select that runs outside a transaction is
 * sent to one of `count` workers, each with its own read-only connection to the same file. In WAL
 * mode such a connection reads the last committed state when its statement starts: a read issued
 * after a commit sees it, exactly as on the event loop's connection. Selects inside a transaction,
 * and every write, stay on the event loop's connection.
 *
 * A connection loads the planner statistics (sqlite_stat1) when it opens, and ANALYZE on another
 * connection does not make it load them again: `reopen` gives every worker a new connection after
 * the statistics changed, or a reader opened on a young store would plan on no statistics for good.
 *
 * A worker that dies fails the reads it was running as a dependency outage (503 with Retry-After on
 * every surface: the caller may retry, and nothing was written) and is replaced on the next read.
 * The reads are not retried on the event loop: a statement that could exhaust a worker's memory
 * must not get the chance to exhaust the whole process's.
 */
export interface SqliteReaders {
  /** The rows of one select, with its bindings as better-sqlite3 takes them. */
  all(sql: string, bindings: readonly unknown[]): Promise<unknown[]>;
  /**
   * The rows of a select that reads a few rows by key, on a read-only connection of the calling
   * thread (opened on first use): in WAL mode it never waits for the write lock either, and such a
   * statement takes microseconds, less than the round trip to a worker (a message each way, the
   * structured clone of its rows, the worker's own loop), which was most of the CPU of a FHIR read
   * by id. Undefined when that connection found the database busy (a WAL being recovered or
   * reset): the caller reads on a worker instead.
   */
  allHere(sql: string, bindings: readonly unknown[]): unknown[] | undefined;
  /** Each worker opens its connection anew after the reads sent before (to load new planner statistics). */
  reopen(): void;
  close(): Promise<void>;
}

/** How each reader's connection is set up: as the event loop's (database.ts). */
export interface ReaderConnection {
  /** The page cache pragma, e.g. `cache_size = -65536`. */
  cachePragma: string;
  /** Prepared statements kept, least recently used dropped first. */
  statements: number;
}

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const statements = new Map();
let db;
const open = () => {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  db.pragma('busy_timeout = 5000');
  db.pragma(workerData.cachePragma);
};
open();
parentPort.on('message', ({ id, sql, bindings, reopen }) => {
  if (reopen) {
    statements.clear();
    db.close();
    open();
    return;
  }
  try {
    let statement = statements.get(sql);
    if (statement) statements.delete(sql);
    else {
      statement = db.prepare(sql);
      if (statements.size >= workerData.statements) statements.delete(statements.keys().next().value);
    }
    statements.set(sql, statement);
    parentPort.postMessage({ id, rows: statement.all(bindings) });
  } catch (err) {
    parentPort.postMessage({ id, error: { message: String((err && err.message) || err), code: err && err.code } });
  }
});
`;

interface Pending {
  resolve(rows: unknown[]): void;
  reject(err: Error): void;
}

interface Reader {
  worker: Worker;
  pending: Map<number, Pending>;
}

interface HereConnection {
  prepare(sql: string): { all(bindings: readonly unknown[]): unknown[] };
  pragma(pragma: string): unknown;
  close(): void;
}

export function startSqliteReaders(file: string, count: number, connection: ReaderConnection): SqliteReaders {
  const require = createRequire(import.meta.url);
  const driver = require.resolve('better-sqlite3');
  const readers: (Reader | undefined)[] = Array.from({ length: count }, () => undefined);
  let nextId = 0;
  let closed = false;
  /** The calling thread's read-only connection (allHere) and its prepared statements, least recently used first. */
  let here: { db: HereConnection; statements: Map<string, ReturnType<HereConnection['prepare']>> } | undefined;
  const openHere = () => {
    const Database = require(driver) as new (file: string, options: { readonly: boolean; fileMustExist: boolean }) => HereConnection;
    const db = new Database(file, { readonly: true, fileMustExist: true });
    // Never block the event loop: a busy database sends the read to a worker instead.
    db.pragma('busy_timeout = 0');
    db.pragma(connection.cachePragma);
    return { db, statements: new Map<string, ReturnType<HereConnection['prepare']>>() };
  };

  const spawn = (slot: number): Reader => {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, ...connection } });
    worker.unref();
    const reader: Reader = { worker, pending: new Map() };
    worker.on('message', (m: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const p = reader.pending.get(m.id);
      if (!p) return;
      reader.pending.delete(m.id);
      if (m.error) p.reject(Object.assign(new Error(m.error.message), m.error.code ? { code: m.error.code } : {}));
      else p.resolve(m.rows ?? []);
    });
    const fail = (cause: Error) => {
      if (readers[slot] === reader) readers[slot] = undefined;
      const err = new DependencyUnavailable('sqlite reader', cause);
      for (const p of reader.pending.values()) p.reject(err);
      reader.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`SQLite reader of ${file} exited (${code})`)));
    readers[slot] = reader;
    return reader;
  };

  /** The reader with the fewest statements in flight (a new one in an empty slot). */
  const pick = (): Reader => {
    let best: Reader | undefined;
    for (let slot = 0; slot < readers.length; slot++) {
      const reader = readers[slot] ?? spawn(slot);
      if (reader.pending.size === 0) return reader;
      if (!best || reader.pending.size < best.pending.size) best = reader;
    }
    return best!;
  };

  return {
    all(sql, bindings) {
      if (closed) return Promise.reject(new Error(`SQLite readers of ${file} are closed`));
      const reader = pick();
      const id = nextId++;
      return new Promise<unknown[]>((resolve, reject) => {
        reader.pending.set(id, { resolve, reject });
        reader.worker.ref();
        reader.worker.postMessage({ id, sql, bindings });
      }).finally(() => {
        if (reader.pending.size === 0) reader.worker.unref();
      });
    },
    allHere(sql, bindings) {
      if (closed) throw new Error(`SQLite readers of ${file} are closed`);
      here ??= openHere();
      let statement = here.statements.get(sql);
      if (statement) here.statements.delete(sql);
      else {
        statement = here.db.prepare(sql);
        if (here.statements.size >= connection.statements) here.statements.delete(here.statements.keys().next().value as string);
      }
      here.statements.set(sql, statement);
      try {
        return statement.all(bindings);
      } catch (err) {
        if ((err as { code?: unknown } | null)?.code === 'SQLITE_BUSY') return undefined;
        throw err;
      }
    },
    reopen() {
      for (const reader of readers) reader?.worker.postMessage({ reopen: true });
      here?.db.close();
      here = undefined;
    },
    async close() {
      closed = true;
      here?.db.close();
      here = undefined;
      await Promise.all(readers.map((reader) => reader?.worker.terminate()));
    },
  };
}

const readersOf = new WeakMap<Knex, SqliteReaders>();

/** Makes `readRows(knex, …)` run on `readers` (the root query builder of an embedded SQLite ORM). */
export function registerSqliteReaders(knex: Knex, readers: SqliteReaders): void {
  readersOf.set(knex, readers);
}

/**
 * The rows of a select: on a reader thread when `knex` is an embedded SQLite database's root query
 * builder with readers, otherwise (PostgreSQL, no readers, inside a transaction, whose query
 * builder is another object) through `knex` itself. The statement is announced as knex announces
 * its own (`query` event), so statement counts stay whole.
 */
export async function readRows<T>(knex: Knex, query: Knex.QueryBuilder | Knex.Raw): Promise<T[]> {
  const readers = readersOf.get(knex);
  if (!readers) return (await query) as T[];
  const { sql, bindings } = query.toSQL().toNative();
  const client = knex.client as { _formatBindings(bindings: readonly unknown[]): unknown[] };
  knex.client.emit('query', { sql, bindings });
  return (await inSqlSpan(sql, 'sqlite', () => readers.all(sql, client._formatBindings(bindings)))) as T[];
}

/**
 * The rows of a select that reads a few rows by key (`sql` with `?` placeholders): on an embedded
 * SQLite database with readers, on the calling thread's own read-only connection (see
 * `SqliteReaders.allHere`), so it neither waits behind this process's writes nor pays a worker's
 * round trip; otherwise through `knex` itself, as `readRows`. Not for searches or scans: those
 * belong on a worker (`readRows`), off the event loop. Announced as knex announces its own.
 */
export async function readRowsByKey<T>(knex: Knex, sql: string, bindings: readonly unknown[]): Promise<T[]> {
  const readers = readersOf.get(knex);
  if (!readers) {
    if (!knex.isTransaction && knex.client.dialect === 'postgresql') return postgresRows<T>(knex.client as unknown as KnexClient, sql, bindings);
    return rowsOf<T>(await knex.raw(sql, [...bindings] as Knex.RawBinding[]));
  }
  const client = knex.client as { _formatBindings(bindings: readonly unknown[]): unknown[] };
  const formatted = client._formatBindings(bindings);
  knex.client.emit('query', { sql, bindings });
  return (await inSqlSpan(sql, 'sqlite', async () => readers.allHere(sql, formatted) ?? readers.all(sql, formatted))) as T[];
}


/** What `postgresRows` uses of knex's client: its pool, its statement event and its dialect's one-statement call. */
interface KnexClient {
  acquireConnection(): Promise<{ __knexUid?: string }>;
  releaseConnection(connection: unknown): Promise<void>;
  emit(event: 'query', data: object): boolean;
  _query(connection: unknown, obj: { sql: string; bindings: unknown[]; response?: { rows: unknown[] } }): Promise<unknown>;
}

/** `?` placeholders as PostgreSQL's `$1`, `$2`, … (SQL texts of readRowsByKey are few and fixed). */
const numbered = new Map<string, string>();

function postgresSql(sql: string): string {
  let text = numbered.get(sql);
  if (text === undefined) {
    let n = 0;
    text = sql.replace(/\?/g, () => `$${++n}`);
    if (numbered.size < 1000) numbered.set(sql, text);
  }
  return text;
}

/**
 * One select outside a transaction on PostgreSQL, on a connection of knex's own pool, through the
 * dialect's own statement call (so statement spans and the `query` event that counts statements
 * are as for any other) but without the query runner around it: its builder, compiler and
 * per-statement bookkeeping were about a tenth of a read by id's CPU. `sql` must not hold a `?`
 * other than its placeholders.
 */
async function postgresRows<T>(client: KnexClient, sql: string, bindings: readonly unknown[]): Promise<T[]> {
  const connection = await client.acquireConnection();
  try {
    const obj: { sql: string; bindings: unknown[]; response?: { rows: unknown[] } } = { sql: postgresSql(sql), bindings: [...bindings] };
    client.emit('query', { __knexUid: connection.__knexUid, ...obj });
    await client._query(connection, obj);
    return (obj.response?.rows ?? []) as T[];
  } finally {
    await client.releaseConnection(connection);
  }
}

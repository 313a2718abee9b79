import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MikroORM, type EntityManager, type Options } from '@mikro-orm/core';
import type { Knex } from '@mikro-orm/knex';
import { BetterSqliteDriver } from '@mikro-orm/better-sqlite';
import { PostgreSqlDriver } from '@mikro-orm/postgresql';
import { Migrator, type Migration } from '@mikro-orm/migrations';
import type { Config } from '../config.js';
import { ensurePrivateDirectory, ensurePrivateFile, restrictToOwner } from './private-files.js';
import type { Logger } from '../logging.js';
import { DomainError } from '../errors.js';
import { RETRY_AFTER_SECONDS } from '../dependency-health.js';
import { checkpointWalInBackground } from './wal-checkpointer.js';
import { traceSqlStatements } from '../tracing/sql.js';
import { registerSqliteReaders, startSqliteReaders, type SqliteReaders } from './sqlite-readers.js';

export type Orm = MikroORM;

/**
 * The query builder behind an entity manager (or an ORM's global one): inside `em.transactional` it
 * is that transaction, so a raw read or write joins what the caller is doing. For the statements the
 * ORM does not express well (multi-row inserts, window functions) and for read paths that need plain
 * rows rather than managed entities.
 */
export function knexOf(em: EntityManager | Orm): Knex {
  const manager = em instanceof MikroORM ? em.em : em;
  return manager.getTransactionContext<Knex.Transaction>() ?? (manager.getConnection() as unknown as { getKnex(): Knex }).getKnex();
}

export interface MigrationEntry {
  name: string;
  class: new (...args: ConstructorParameters<typeof Migration>) => Migration;
}

export interface DatabaseOptions {
  config: Pick<Config, 'databaseUrl' | 'dataDir'> & Partial<Pick<Config, 'databasePoolMax'>>;
  /** The owner's name; it prefixes the migrations table and names the SQLite file. */
  owner: string;
  entities: NonNullable<Options['entities']>;
  migrations: MigrationEntry[];
  /** Where the driver's own messages go, as JSON lines (instead of plain text on stdout). */
  logger?: Logger;
  /** SQLite only: worker threads that run the selects made outside a transaction (see sqlite-readers.ts). Default none. */
  readers?: number;
  /**
   * Another connection of a process that has already opened the database (a job thread): the
   * schema is already up to date, and the WAL checkpoints and planner statistics are looked after
   * by the first one.
   */
  secondary?: boolean;
}

/**
 * Knex prints its warnings with console.log. Route them to the process logger instead; a dropped
 * connection ("Connection Error: …") is an outage the dependency tracker already logs once, so it
 * goes to debug.
 */
function driverLog(logger: Logger, owner: string) {
  const text = (message: unknown) => (typeof message === 'string' ? message : String(message)).slice(0, 500);
  return {
    debug: (message: unknown) => logger.debug({ owner, detail: text(message) }, 'database driver message'),
    warn: (message: unknown) =>
      /^Connection Error/.test(text(message))
        ? logger.debug({ owner, detail: text(message) }, 'database connection dropped')
        : logger.warn({ owner, detail: text(message) }, 'database driver warning'),
    error: (message: unknown) => logger.error({ owner, detail: text(message) }, 'database driver error'),
    deprecate: (method: string, alternative: string) => logger.warn({ owner, detail: `${method} is deprecated, use ${alternative}` }, 'database driver warning'),
  };
}

/**
 * Open the owner's database and bring its schema up to date. On the embedded default every owner
 * (subgraph) has its own SQLite file, so no two owners ever contend for one write lock; on
 * PostgreSQL they share a database and keep to their own prefixed tables.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Orm> {
  const { config, owner } = options;
  const common: Partial<Options> = {
    entities: options.entities,
    extensions: [Migrator],
    discovery: { warnWhenNoEntities: false },
    allowGlobalContext: false,
    forceUtcTimezone: true,
    debug: false,
    migrations: {
      migrationsList: options.migrations,
      tableName: `${owner}_migrations`,
      transactional: true,
      allOrNothing: true,
      snapshot: false,
      silent: true,
    },
  };
  let orm: Orm;
  if (config.databaseUrl) {
    const driverOptions = options.logger ? { log: driverLog(options.logger, owner) } : {};
    orm = await MikroORM.init({ ...common, driver: PostgreSqlDriver, clientUrl: config.databaseUrl, pool: { min: 0, max: config.databasePoolMax ?? 10 }, driverOptions } as Options);
    traceSqlStatements(knexOf(orm).client, 'postgresql');
  } else {
    // Owner-only on disk: a new data directory 0700, the database file 0600 before SQLite opens it.
    ensurePrivateDirectory(config.dataDir);
    const file = join(config.dataDir, `${owner}.sqlite`);
    ensurePrivateFile(file);
    orm = await MikroORM.init({ ...common, driver: BetterSqliteDriver, dbName: file } as Options);
    // Before sqliteStatements takes the dialect's _query: its statements are then traced too.
    traceSqlStatements(knexOf(orm).client, 'sqlite');
    const connection = orm.em.getConnection();
    // 16 KiB pages for a new file (an existing one keeps its own; the pragma must come before WAL):
    // a commit writes each dirty page to the WAL as one frame, and the store's inserts fill pages
    // in order, so fewer, larger frames cost less. FHIR ingest: COMMIT time -30 %, all SQL -8 %.
    await connection.execute('pragma page_size = 16384');
    // WAL lets readers run beside the writer; the busy timeout rides out a concurrent writer.
    await connection.execute('pragma journal_mode = wal');
    // No waiting inside SQLite: its busy handler sleeps in the calling thread, which here is an event
    // loop. A connection that finds the write lock taken (by a job thread's connection) waits for it
    // between event-loop turns instead (see sqliteStatements).
    await connection.execute('pragma busy_timeout = 0');
    await connection.execute('pragma synchronous = normal');
    // A page cache of up to 64 MiB instead of better-sqlite3's default of about 16 MB: a search that
    // checks a thousand matches' rows touched a thousand pages and evicted every other query's,
    // which then read them back from the file: in a process started on a 100,000-resource store,
    // `Observation?code=…&_sort=-date` took half the time (bench/RESULTS.md). The cache grows only
    // as far as a database is read.
    await connection.execute(`pragma ${SQLITE_CACHE_PRAGMA}`);
    sqliteStatements(orm);
    // SQLite creates these with the database file's mode; files left by earlier versions are tightened.
    for (const suffix of ['-wal', '-shm']) restrictToOwner(`${file}${suffix}`);
  }
  if (options.secondary) return orm;
  await orm.getMigrator().up();
  if (!config.databaseUrl) {
    const file = join(config.dataDir, `${owner}.sqlite`);
    checkpointInBackground(orm, file, owner, options.logger);
    const readers = options.readers ? readOnWorkers(orm, file, options.readers) : undefined;
    keepSqliteStatistics(orm, () => readers?.reopen());
  }
  return orm;
}

/** The page cache of every connection to an embedded SQLite database (the event loop's and the readers'). */
const SQLITE_CACHE_PRAGMA = 'cache_size = -65536';

/** Runs `stop` when the ORM is closed, before the ORM itself closes. */
function stopBeforeClose(orm: Orm, stop: () => Promise<void>): void {
  const close = orm.close.bind(orm);
  orm.close = async (force?: boolean) => {
    await stop();
    return close(force);
  };
}

/**
 * Hand the WAL checkpoints of a heavily written SQLite database to a worker thread (see
 * wal-checkpointer.ts); closing the ORM stops the worker first.
 */
function checkpointInBackground(orm: Orm, file: string, owner: string, logger: Logger | undefined): void {
  const connection = orm.em.getConnection();
  const checkpointer = checkpointWalInBackground(
    file,
    async (pages) => {
      await connection.execute(`pragma wal_autocheckpoint = ${pages}`);
    },
    (err) => logger?.warn({ owner, detail: String(err instanceof Error ? err.message : err).slice(0, 500) }, 'background WAL checkpoint failed'),
  );
  stopBeforeClose(orm, () => checkpointer.stop());
}

/** How often the embedded SQLite checks whether its planner statistics are stale (PRAGMA optimize). */
const SQLITE_STATISTICS_CHECK_MS = 60_000;

/** Rows per index that one refresh of the statistics reads (a sample of each index). */
const SQLITE_ANALYSIS_LIMIT = 1000;

const statisticsRefreshOf = new WeakMap<Orm, () => Promise<void>>();

/**
 * SQLite plans without statistics until ANALYZE has run, and then can pick an index that is
 * selective in general but not here (every row of one partner), so a search grows with the whole
 * table: on a 100,000-resource FHIR store, `Observation?subject=…&code=…` took 7 ms without
 * statistics and 0.06 ms with them. `PRAGMA optimize` (what SQLite recommends for long-lived
 * connections) analyzes the tables that are new or grew or shrank a lot since their last analysis;
 * mask 0x10002 checks every table, not only those this connection queried (the searches run on the
 * reader threads, so this connection queries few of them). It runs at start and every minute: a
 * check that finds nothing to do takes well under a millisecond, and a growing table is analyzed again
 * at about every tenfold growth. `analysis_limit` bounds each analysis to a sample of every index;
 * on that store the sampled statistics gave every search of the FHIR bench the plan the full ones
 * give. When the statistics changed since the last check (here or by an ANALYZE elsewhere),
 * `onChange` lets the other connections load them.
 */
function keepSqliteStatistics(orm: Orm, onChange: () => void): void {
  const connection = orm.em.getConnection();
  const statistics = async (): Promise<string> => {
    const [table] = await connection.execute<{ name: string }[]>("select name from sqlite_schema where name = 'sqlite_stat1'");
    if (!table) return '';
    const [row] = await connection.execute<{ stats: string | null }[]>("select group_concat(tbl || ' ' || coalesce(idx, '') || ' ' || stat, ';') as stats from sqlite_stat1");
    return row?.stats ?? '';
  };
  // The statistics the other connections were last told of (an ANALYZE run elsewhere, by an
  // operator or a tool, changes them too).
  let announced: string | undefined;
  const refresh = async () => {
    announced ??= await statistics();
    await connection.execute(`pragma analysis_limit = ${SQLITE_ANALYSIS_LIMIT}`);
    await connection.execute('pragma optimize = 0x10002');
    const now = await statistics();
    if (now === announced) return;
    announced = now;
    onChange();
  };
  const run = () => refresh().catch(() => undefined);
  statisticsRefreshOf.set(orm, run);
  void run();
  const timer = setInterval(run, SQLITE_STATISTICS_CHECK_MS);
  timer.unref();
  stopBeforeClose(orm, async () => clearInterval(timer));
}

/**
 * Bring an embedded SQLite database's planner statistics up to date now, as its minutely check
 * does, and have its reader threads load them. Nothing on PostgreSQL (its autovacuum analyzes).
 */
export async function refreshSqliteStatistics(orm: Orm): Promise<void> {
  await statisticsRefreshOf.get(orm)?.();
}

/** Prepared statements kept per SQLite connection (least recently used dropped first). */
const STATEMENT_CACHE_SIZE = 500;

/** How long a statement waits for another connection's write lock before the request is refused with 503. */
export const SQLITE_LOCK_WAIT_MS = 15_000;
/** The longest pause between two tries for the write lock. */
const SQLITE_LOCK_RETRY_MAX_MS = 25;

interface SqliteConnection {
  prepare(sql: string): unknown;
  readonly inTransaction: boolean;
}

const isBusy = (err: unknown) => (err as { code?: unknown } | null)?.code === 'SQLITE_BUSY';

/**
 * How our statements run on an embedded SQLite connection:
 *
 * - Prepared statements are reused. Knex's better-sqlite3 dialect prepares every query anew, which
 *   costs about as much as running it (SQLite parses and plans the SQL each time); a bounded LRU of
 *   statements per connection, keyed by the SQL text, removes that. better-sqlite3 runs a statement
 *   to completion synchronously (`all`/`run`), so one statement is never busy when it is handed out
 *   again, and SQLite re-prepares a cached statement itself after a schema change.
 * - Transactions begin IMMEDIATE: they take the write lock at BEGIN. A database is written by more
 *   than one connection (the event loop's and a job thread's, see platform/src/jobs), and a deferred
 *   transaction that has read and then tries to write after the other connection committed fails
 *   with SQLITE_BUSY_SNAPSHOT, which no wait can cure; at BEGIN nothing has been read yet.
 * - A statement that finds the write lock taken (SQLITE_BUSY, on a BEGIN or a write outside a
 *   transaction: nothing of it took effect) is tried again after a pause, as a timer, so the event
 *   loop serves other requests meanwhile; SQLite's own busy handler would sleep in the thread. After
 *   {@link SQLITE_LOCK_WAIT_MS} the request gets 503 SERVER_BUSY with Retry-After.
 */
function sqliteStatements(orm: Orm): void {
  const client = (orm.em.getConnection() as unknown as { getKnex(): { client: { _query(connection: SqliteConnection, obj: unknown): Promise<unknown> } } }).getKnex().client;
  const query = client._query.bind(client);
  const wrapped = new WeakSet<SqliteConnection>();
  client._query = (connection, obj) => {
    if (connection && !wrapped.has(connection)) {
      wrapped.add(connection);
      const prepare = connection.prepare.bind(connection);
      const statements = new Map<string, unknown>();
      // Knex begins a transaction with "BEGIN;" through the dialect's own _query (a transaction's
      // client is a copy of the dialect, not this one), so the connection answers it.
      const begin = prepare('BEGIN IMMEDIATE') as SqliteStatement;
      const beginImmediate = { reader: false, safeIntegers: () => beginImmediate, run: () => waitForWriteLock(() => begin.run()) };
      connection.prepare = (sql: string) => {
        if (sql === 'BEGIN;') return beginImmediate;
        let statement = statements.get(sql);
        if (statement !== undefined) {
          statements.delete(sql);
        } else {
          statement = prepare(sql);
          if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value as string);
        }
        statements.set(sql, statement);
        return statement;
      };
    }
    // Outside a transaction a statement is its own; one that found the lock taken did nothing.
    return connection?.inTransaction ? query(connection, obj) : waitForWriteLock(() => query(connection, obj));
  };
}

interface SqliteStatement {
  run(): unknown;
}

/** Run `attempt` until it does not find the write lock taken, pausing between tries (see sqliteStatements). */
async function waitForWriteLock<T>(attempt: () => T | Promise<T>): Promise<T> {
  const deadline = performance.now() + SQLITE_LOCK_WAIT_MS;
  for (let pause = 1; ; pause = Math.min(SQLITE_LOCK_RETRY_MAX_MS, pause * 2)) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err)) throw err;
      if (performance.now() + pause > deadline) {
        throw new DomainError('SERVER_BUSY', 'The database is busy with a long write; retry shortly.', { cause: err, details: { retry_after: RETRY_AFTER_SECONDS } });
      }
      await sleep(pause);
    }
  }
}

/**
 * Reader threads for the selects that `readRows` is given outside a transaction
 * (sqlite-readers.ts); closing the ORM stops them.
 */
function readOnWorkers(orm: Orm, file: string, count: number): SqliteReaders {
  const readers = startSqliteReaders(file, count, { cachePragma: SQLITE_CACHE_PRAGMA, statements: STATEMENT_CACHE_SIZE });
  registerSqliteReaders(knexOf(orm), readers);
  stopBeforeClose(orm, () => readers.close());
  return readers;
}

/** True when the database answers a trivial query: the readiness probe. */
export async function databaseReachable(orm: Orm): Promise<boolean> {
  try {
    await orm.em.getConnection().execute('select 1');
    return true;
  } catch {
    return false;
  }
}

export function isPostgres(orm: Orm): boolean {
  return orm.config.get('driver') === PostgreSqlDriver;
}

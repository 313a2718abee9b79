import type { Knex } from '@mikro-orm/knex';
import { sqliteReadersOf } from './sqlite-readers.js';
import { rowsOf } from './stored-values.js';

export interface ReadRowsOptions {
  /**
   * On PostgreSQL: run the select as a named prepared statement, without the query builder's
   * runner, on the connection knex would use (a pooled one, or the transaction's inside one). PostgreSQL then parses and plans it once per
   * connection, and the driver sends only Bind and Execute afterwards. For the fixed hot reads
   * (one page of partners, a batch of sync jobs), where parsing and planning in PostgreSQL and the
   * runner's layers in ours were a third of the subgraph's CPU beside the statement itself
   * (bench/RESULTS.md). Not for selects whose best plan depends on the bound values (searches):
   * after five runs PostgreSQL may keep one generic plan for every value. The statement must name
   * its columns (no `select *`): a prepared `*` fails once a migration adds a column.
   */
  prepared?: boolean;
}

/**
 * Names given out, one per distinct statement text, for the process's life: every pooled connection
 * parses and keeps each name it runs. Beyond this many texts, a statement runs unnamed.
 */
const PREPARED_NAMES_MAX = 128;
const preparedNames = new Map<string, string>();

function preparedNameOf(sql: string): string | undefined {
  let name = preparedNames.get(sql);
  if (name === undefined && preparedNames.size < PREPARED_NAMES_MAX) preparedNames.set(sql, (name = `svc_read_${preparedNames.size + 1}`));
  return name;
}

/** The parts of node-postgres's client and of knex's dialect client that a prepared read uses. */
interface PgConnection {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}
interface PostgresClient {
  dialect: string;
  acquireConnection(): Promise<PgConnection>;
  releaseConnection(connection: PgConnection): Promise<unknown>;
  prepBindings(bindings: readonly unknown[]): unknown[];
  emit(event: 'query', data: { sql: string; bindings: readonly unknown[] }): boolean;
}

/**
 * knex's client when `knex` is on PostgreSQL. A transaction's client hands out the transaction's
 * connection, and takes it back without releasing it.
 */
function postgresClientOf(knex: Knex): PostgresClient | undefined {
  const client = knex.client as PostgresClient;
  return client.dialect === 'postgresql' ? client : undefined;
}

/**
 * `column in (values)` for a prepared read: on PostgreSQL one array binding (`column = any(?)`), so
 * every batch size is the same statement text and the same prepared name; elsewhere one binding per
 * value. `values` must not be empty.
 */
export function inValues(knex: Knex, column: string, values: readonly string[]): { sql: string; bindings: Knex.RawBinding[] } {
  if (postgresClientOf(knex)) return { sql: `${column} = any(?)`, bindings: [[...values]] };
  return { sql: `${column} in (${values.map(() => '?').join(', ')})`, bindings: [...values] };
}

/**
 * The rows of a select, whichever database answers:
 * - an embedded SQLite database's root query builder with readers: on a reader thread
 *   (sqlite-readers.ts);
 * - PostgreSQL, when `options.prepared`: as a named prepared statement;
 * - otherwise (an SQLite transaction, whose query builder is another object, SQLite without
 *   readers, PostgreSQL unprepared): through `knex` itself.
 * A statement that skips knex's runner is announced as knex announces its own (`query` event), so
 * statement counts stay whole.
 */
export async function readRows<T>(knex: Knex, query: Knex.QueryBuilder | Knex.Raw, options: ReadRowsOptions = {}): Promise<T[]> {
  const readers = sqliteReadersOf(knex);
  if (readers) {
    const { sql, bindings } = query.toSQL().toNative();
    const client = knex.client as { _formatBindings(bindings: readonly unknown[]): unknown[] };
    knex.client.emit('query', { sql, bindings });
    return (await readers.all(sql, client._formatBindings(bindings))) as T[];
  }
  const postgres = options.prepared ? postgresClientOf(knex) : undefined;
  if (!postgres) return rowsOf<T>(await query);
  const { sql, bindings } = query.toSQL().toNative();
  const values = postgres.prepBindings(bindings);
  postgres.emit('query', { sql, bindings: values });
  const name = preparedNameOf(sql);
  const connection = await postgres.acquireConnection();
  try {
    return (await connection.query({ ...(name ? { name } : {}), text: sql, values })).rows as T[];
  } finally {
    await postgres.releaseConnection(connection);
  }
}

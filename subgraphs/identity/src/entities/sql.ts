import type { Knex } from '@mikro-orm/knex';
import { knexOf, isPostgres, type Orm } from '@svc/platform';

/**
 * The identity subgraph's way to the database: MikroORM's knex, optionally bound to one transaction,
 * plus the two dialect differences the repositories care about (dates and raw results).
 * Dates are written the way MikroORM writes them (epoch milliseconds on SQLite, timestamptz on
 * PostgreSQL), so rows stay readable by MikroORM entities too.
 */
export class Sql {
  private constructor(
    readonly knex: Knex,
    readonly trx: Knex.Transaction | null,
    readonly postgres: boolean,
  ) {}

  static of(orm: Orm): Sql {
    return new Sql(knexOf(orm), null, isPostgres(orm));
  }

  /** A query builder on `table`, inside this transaction when there is one. */
  table(name: string): Knex.QueryBuilder {
    return this.trx ? this.trx(name) : this.knex(name);
  }

  /** Raw SQL (with `?` bindings); returns the rows on both dialects. */
  async rows<T = Record<string, unknown>>(sql: string, bindings: readonly unknown[] = []): Promise<T[]> {
    const result = (await (this.trx ?? this.knex).raw(sql, bindings as Knex.RawBinding[])) as unknown;
    if (Array.isArray(result)) return result as T[];
    return ((result as { rows?: T[] }).rows ?? []) as T[];
  }

  get inTransaction(): boolean {
    return this.trx !== null;
  }

  /** Runs `work` in a transaction (or in the current one). */
  async transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    if (this.trx) return work(this);
    return this.knex.transaction((trx) => work(new Sql(this.knex, trx, this.postgres)));
  }

  /** A date as this dialect stores it. */
  date(value: Date): Date | number {
    return this.postgres ? value : value.getTime();
  }
}

/** PostgreSQL errors after which the whole transaction may simply be run again. */
export function isRetryableDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // 40001 serialization failure, 40P01 deadlock, 23505 unique violation (a racing insert of the same key).
  return code === '40001' || code === '40P01' || code === '23505';
}

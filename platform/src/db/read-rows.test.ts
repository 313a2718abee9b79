import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knexOf, openDatabase, type Orm } from './database.js';
import { SchemaMigration } from './schema-migration.js';
import { inValues, readRows } from './read-rows.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from '../../../test/support/databases.js';

class CreateNotes extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => s.createTable('notes', (t) => {
      t.integer('id').primary();
      t.text('body').notNullable();
    }));
  }
}

const PAGE = 'select id, body from notes where id > ? order by id limit ?';

/**
 * `readRows(…, { prepared: true })`: on PostgreSQL a named prepared statement, on the transaction's
 * connection inside one; on SQLite the same rows as knex gives.
 */
describe(`readRows, prepared (${USE_POSTGRES ? 'PostgreSQL' : 'SQLite'})`, () => {
  let storage: TestStorage;
  let orm: Orm;
  const statements: string[] = [];

  beforeAll(async () => {
    storage = await freshStorage();
    // One connection: the prepared statement, pg_prepared_statements and a transaction all meet on it.
    orm = await openDatabase({
      config: { dataDir: storage.env['SVC_DATA_DIR']!, databaseUrl: storage.env['SVC_DATABASE_URL'], databasePoolMax: 1 },
      owner: 'notes',
      entities: [],
      migrations: [{ name: 'm1', class: CreateNotes }],
    });
    const knex = knexOf(orm);
    knex.on('query', (q: { sql: string }) => statements.push(q.sql));
    await knex('notes').insert([{ id: 1, body: 'Zoë’s chart' }, { id: 2, body: 'second' }, { id: 3, body: 'third' }]);
  });
  afterAll(async () => {
    await orm?.close();
    await storage?.dispose();
  });

  it('gives the rows knex gives, and announces the statement', async () => {
    const knex = knexOf(orm);
    statements.length = 0;
    const rows = await readRows(knex, knex.raw(PAGE, [1, 10]), { prepared: true });
    expect(rows).toEqual([{ id: 2, body: 'second' }, { id: 3, body: 'third' }]);
    expect(await readRows(knex, knex.raw(PAGE, [0, 1]), { prepared: true })).toEqual([{ id: 1, body: 'Zoë’s chart' }]);
    expect(statements.filter((sql) => sql.includes('from notes'))).toHaveLength(2);
  });

  it.runIf(USE_POSTGRES)('is a named prepared statement on the pooled connection, parsed once', async () => {
    const knex = knexOf(orm);
    await readRows(knex, knex.raw(PAGE, [0, 5]), { prepared: true });
    const prepared = await readRows<{ name: string; statement: string }>(knex, knex.raw('select name, statement from pg_prepared_statements'));
    const ours = prepared.filter((p) => p.statement.includes('from notes where id >'));
    expect(ours).toHaveLength(1);
    expect(ours[0]!.name).toMatch(/^svc_read_\d+$/);
  });

  it('binds a list of any length as one statement text on PostgreSQL (inValues)', async () => {
    const knex = knexOf(orm);
    const byBodies = async (bodies: string[]) => {
      const bodyIn = inValues(knex, 'body', bodies);
      return readRows<{ id: number }>(knex, knex.raw(`select id from notes where ${bodyIn.sql} order by id`, bodyIn.bindings), { prepared: true });
    };
    statements.length = 0;
    expect(await byBodies(['second'])).toEqual([{ id: 2 }]);
    expect(await byBodies(['Zoë’s chart', 'third', 'nobody'])).toEqual([{ id: 1 }, { id: 3 }]);
    expect(new Set(statements.filter((sql) => sql.includes('where body'))).size).toBe(USE_POSTGRES ? 1 : 2);
  });

  it('inside a transaction runs on the transaction, and reads its uncommitted rows', async () => {
    const knex = knexOf(orm);
    const rollback = new Error('roll back');
    let inside: unknown;
    // With one pooled connection, a read that left the transaction would wait for the pool forever.
    await expect(
      knex.transaction(async (trx) => {
        await trx('notes').insert({ id: 4, body: 'uncommitted' });
        inside = await readRows(trx, trx.raw(PAGE, [3, 10]), { prepared: true });
        throw rollback;
      }),
    ).rejects.toBe(rollback);
    expect(inside).toEqual([{ id: 4, body: 'uncommitted' }]);
    expect(await readRows(knex, knex.raw(PAGE, [3, 10]), { prepared: true })).toEqual([]);
  });

  it.runIf(USE_POSTGRES)('keeps working after a migration adds a column, since the statement names its columns', async () => {
    const knex = knexOf(orm);
    await readRows(knex, knex.raw(PAGE, [0, 5]), { prepared: true });
    await knex.raw('alter table notes add column extra text');
    expect(await readRows(knex, knex.raw(PAGE, [2, 5]), { prepared: true })).toEqual([{ id: 3, body: 'third' }]);
  });
});

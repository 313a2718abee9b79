import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { knexOf, openDatabase, refreshSqliteStatistics, type Orm } from './database.js';
import { SchemaMigration } from './schema-migration.js';
import { DependencyUnavailable } from '../dependency-health.js';
import { readRows, readRowsByKey, startSqliteReaders } from './sqlite-readers.js';

class CreateNotes extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => s.createTable('notes', (t) => {
      t.integer('id').primary();
      t.text('body').notNullable();
      t.boolean('done').notNullable();
    }));
  }
}

/** Selects given to `readRows` run on reader threads of the embedded SQLite, and read what is committed. */
describe('SQLite reader threads', () => {
  let dir: string;
  let orm: Orm;
  const statements: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-readers-'));
    orm = await openDatabase({ config: { dataDir: dir, databaseUrl: undefined }, owner: 'notes', entities: [], migrations: [{ name: 'm1', class: CreateNotes }], readers: 2 });
    knexOf(orm).on('query', (q: { sql: string }) => statements.push(q.sql));
  });
  afterAll(async () => {
    await orm?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the rows the event loop connection would, with bindings of every type', async () => {
    const knex = knexOf(orm);
    await knex('notes').insert([{ id: 1, body: 'Zoë’s chart', done: true }, { id: 2, body: 'second', done: false }]);
    const q = () => knex('notes').where('done', true).orWhere('id', '>', 1).orderBy('id').select('*');
    statements.length = 0;
    expect(await readRows(knex, q())).toEqual(await q());
    expect(statements.filter((sql) => sql.includes('notes'))).toHaveLength(2);
    expect(await readRows(knex, knex('notes').count({ n: '*' }))).toEqual([{ n: 2 }]);
  });

  it('sees a write committed just before, and many reads at once each get their own rows', async () => {
    const knex = knexOf(orm);
    await knex('notes').insert({ id: 3, body: 'third', done: false });
    const answers = await Promise.all([1, 2, 3, 4, 3, 2, 1].map((id) => readRows<{ body: string }>(knex, knex('notes').where({ id }).select('body'))));
    expect(answers.map((rows) => rows[0]?.body)).toEqual(["Zoë’s chart", 'second', 'third', undefined, 'third', 'second', "Zoë’s chart"]);
  });

  it('reads inside a transaction on its connection, uncommitted writes included', async () => {
    const knex = knexOf(orm);
    await orm.em.transactional(async (em) => {
      const trx = knexOf(em);
      await trx('notes').insert({ id: 4, body: 'pending', done: false });
      expect(await readRows(trx, trx('notes').where({ id: 4 }).select('body'))).toEqual([{ body: 'pending' }]);
      // A reader thread does not see it before the commit.
      expect(await readRows(knex, knex('notes').where({ id: 4 }).select('body'))).toEqual([]);
    });
    expect(await readRows(knex, knex('notes').where({ id: 4 }).select('body'))).toEqual([{ body: 'pending' }]);
  });

  it('reads rows by key on the event loop\'s read-only connection: what is committed, announced as a statement, and a transaction\'s own rows inside it', async () => {
    const knex = knexOf(orm);
    const byId = (db: typeof knex, id: number) => readRowsByKey<{ body: string; done: number }>(db, 'select body, done from notes where id = ?', [id]);
    statements.length = 0;
    expect(await byId(knex, 1)).toEqual([{ body: 'Zoë’s chart', done: 1 }]);
    expect(await byId(knex, 99)).toEqual([]);
    expect(statements).toEqual(['select body, done from notes where id = ?', 'select body, done from notes where id = ?']);
    await orm.em.transactional(async (em) => {
      const trx = knexOf(em);
      await trx('notes').insert({ id: 5, body: 'uncommitted', done: false });
      expect(await byId(trx, 5)).toEqual([{ body: 'uncommitted', done: 0 }]);
      expect(await byId(knex, 5)).toEqual([]);
    });
    expect(await byId(knex, 5)).toEqual([{ body: 'uncommitted', done: 0 }]);
    await knexOf(orm)('notes').where({ id: 5 }).delete();
    expect(await byId(knex, 5)).toEqual([]);
  });

  it('fails a bad statement like the database does, and goes on reading', async () => {
    const knex = knexOf(orm);
    await expect(readRows(knex, knex('no_such_table').select('*'))).rejects.toThrow(/no such table: no_such_table/);
    expect(await readRows(knex, knex('notes').count({ n: '*' }))).toEqual([{ n: 4 }]);
  });

  it('fails the reads of a reader that stops as an outage (retry later), not as a bad statement', async () => {
    const readers = startSqliteReaders(join(dir, 'notes.sqlite'), 1, { cachePragma: 'cache_size = -2000', statements: 10 });
    const long = readers.all('with recursive n(i) as (select 1 union all select i + 1 from n where i < 100000000) select count(*) as c from n', []);
    const outcome = long.then(() => 'answered', (err: unknown) => err);
    await readers.close();
    const err = await outcome;
    expect(err).toBeInstanceOf(DependencyUnavailable);
    expect(err).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', details: { retry_after: expect.any(Number) } });
  });

  it('plan with the statistics refreshed after the readers opened, not with those they opened on', async () => {
    const knex = knexOf(orm);
    await knex.raw('create table tasks (id integer primary key, kind text, open integer, owner text)');
    await knex.raw('create index tasks_kind_open on tasks (kind, open)');
    await knex.raw('create index tasks_owner on tasks (owner)');
    const plan = async () => {
      const rows = await readRows<{ detail: string }>(knex, knex.raw("explain query plan select * from tasks where kind = 'x' and open = 1 and owner = 'o5'"));
      return rows.map((r) => r.detail).join(' | ');
    };
    // Without statistics an equality on two columns looks narrower than one on a single column.
    expect(await plan()).toContain('tasks_kind_open');
    for (let i = 0; i < 4; i++) await knex('tasks').insert(Array.from({ length: 250 }, (_, j) => ({ kind: 'x', open: 1, owner: `o${i * 250 + j}` })));
    await refreshSqliteStatistics(orm);
    // Every row has kind x and open 1; an owner has one row.
    expect(await plan()).toContain('tasks_owner');
    expect(await readRows(knex, knex('tasks').where({ owner: 'o5' }).select('id'))).toHaveLength(1);
  });
});

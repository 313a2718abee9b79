import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { knexOf, openDatabase, type Orm } from './database.js';
import { SchemaMigration } from './schema-migration.js';

class CreateBlobs extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => s.createTable('blobs', (t) => t.text('body').notNullable()));
  }
}

const threshold = async (orm: Orm): Promise<number> => {
  const rows = (await orm.em.getConnection().execute('pragma wal_autocheckpoint')) as { wal_autocheckpoint: number }[];
  return Number(rows[0]?.wal_autocheckpoint);
};

/** Writes of about `mb` MiB in one transaction. */
const write = (orm: Orm, mb: number) =>
  orm.em.transactional(async (em) => {
    const body = 'x'.repeat(64 * 1024);
    for (let i = 0; i < mb * 16; i++) await knexOf(em)('blobs').insert({ body: `${i}${body}` });
  });

/** Generous: the worker starts and checkpoints on its own timers, which a busy machine delays. */
async function until(check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The embedded SQLite checkpoints a heavily written WAL on a worker thread, not inside commits. */
describe('background WAL checkpoints (embedded SQLite)', () => {
  let dir: string;
  let orm: Orm;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-wal-'));
    orm = await openDatabase({ config: { dataDir: dir, databaseUrl: undefined }, owner: 'walt', entities: [], migrations: [{ name: 'm1', class: CreateBlobs }] });
  });
  afterEach(async () => {
    await orm.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves a lightly written database to SQLite, and takes over the checkpoints of a heavily written one, keeping the log bounded', async () => {
    await write(orm, 1);
    await new Promise((r) => setTimeout(r, 1500));
    expect(await threshold(orm)).toBe(1000);

    await write(orm, 6);
    await until(async () => (await threshold(orm)) > 1000);
    // Commits no longer checkpoint (a far threshold); the worker does, and the writer starts the log over.
    for (let i = 0; i < 12; i++) {
      await write(orm, 2);
      await new Promise((r) => setTimeout(r, 600));
    }
    expect(statSync(join(dir, 'walt.sqlite-wal')).size).toBeLessThan(16 * 1024 * 1024);
    const [row] = (await orm.em.getConnection().execute('select count(*) as n from blobs')) as { n: number }[];
    expect(Number(row?.n)).toBe((1 + 6 + 24) * 16);
  });

  it('closes with its worker', async () => {
    await write(orm, 6);
    await until(async () => (await threshold(orm)) > 1000);
    // The worker stops on its message, or is terminated 2 s later should it not answer (a busy
    // machine, a checkpoint under way): either way close resolves and the data is on disk.
    await orm.close();
    orm = await openDatabase({ config: { dataDir: dir, databaseUrl: undefined }, owner: 'walt', entities: [], migrations: [{ name: 'm1', class: CreateBlobs }] });
    const [row] = (await orm.em.getConnection().execute('select count(*) as n from blobs')) as { n: number }[];
    expect(Number(row?.n)).toBe(6 * 16);
  });
});

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/** Which backing services this run of the suite uses: SQLite (default) or PostgreSQL + Redis. */
export const USE_POSTGRES = process.env['SVC_TEST_DATABASE'] === 'postgres';
export const ADMIN_DATABASE_URL = process.env['SVC_TEST_ADMIN_DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test';
export const TEST_REDIS_URL = process.env['SVC_TEST_REDIS_URL'] ?? 'redis://127.0.0.1:6379';

export interface TestStorage {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * Fresh, isolated storage for one test file: a temporary SQLite directory, or a new PostgreSQL
 * database plus a private Redis key prefix, so test files run in parallel without meeting.
 */
export async function freshStorage(): Promise<TestStorage> {
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const env: Record<string, string> = { SVC_DATA_DIR: dataDir };
  let dropDatabase = async () => {};
  if (USE_POSTGRES) {
    const name = `svc_t_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(ADMIN_DATABASE_URL);
    url.pathname = `/${name}`;
    env['SVC_DATABASE_URL'] = url.toString();
    env['SVC_REDIS_URL'] = TEST_REDIS_URL;
    env['SVC_REDIS_PREFIX'] = name;
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    };
  }
  return {
    env,
    async dispose() {
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

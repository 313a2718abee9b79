import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { loadConfig, openDatabase, type MigrationEntry } from '@svc/platform';
import { migrations as partnerMigrations } from '../../subgraphs/partner/src/migrations/index.js';
import { migrations as identityMigrations } from '../../subgraphs/identity/src/migrations/index.js';
import { migrations as fhirMigrations } from '../../subgraphs/fhir/src/migrations/index.js';
import { migrations as pipelineMigrations } from '../../subgraphs/pipeline/src/migrations/index.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The PostgreSQL database every test file's database is copied from (global-setup.ts). */
    postgresTemplate: string;
  }
}

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
    // A copy of the migrated template when the run made one (global-setup.ts), else an empty database the subgraphs migrate.
    const template = inject('postgresTemplate');
    await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
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

/** Every subgraph's migrations, by owner, as the subgraphs run them at start. */
const MIGRATIONS: Record<string, MigrationEntry[]> = { partner: partnerMigrations, identity: identityMigrations, fhir: fhirMigrations, pipeline: pipelineMigrations };

/** A PostgreSQL database with every subgraph's schema migrated and no rows, to copy test databases from. */
export async function createTemplateDatabase(): Promise<{ name: string; drop(): Promise<void> }> {
  const name = `svc_template_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
    const url = new URL(ADMIN_DATABASE_URL);
    url.pathname = `/${name}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-template-'));
    try {
      const config = loadConfig({ SVC_DATA_DIR: dataDir, SVC_DATABASE_URL: url.toString(), SVC_REDIS_URL: TEST_REDIS_URL });
      for (const [owner, migrations] of Object.entries(MIGRATIONS)) await (await openDatabase({ config, owner, entities: [], migrations })).close();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await admin.end();
  }
  return {
    name,
    async drop() {
      const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

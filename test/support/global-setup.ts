import type { TestProject } from 'vitest/node';
import { buildServer } from '../../build.js';
import { createTemplateDatabase, USE_POSTGRES } from './databases.js';

/**
 * Once per test run: compile the service into dist/ (build.ts), which the child processes of the
 * distributed-mode tests run (`startProcess`), as `npm start` does. Sources changed since the last
 * build are always what the tests run.
 *
 * On PostgreSQL, also a template database that holds every subgraph's migrated schema and no rows:
 * each test file's database is a copy of it (`freshStorage`), a file copy inside the server instead
 * of the migrations run again for every system a file boots.
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  await buildServer();
  if (!USE_POSTGRES) return undefined;
  const template = await createTemplateDatabase();
  project.provide('postgresTemplate', template.name);
  return template.drop;
}

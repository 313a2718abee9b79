import { buildServer } from '../../build.js';

/**
 * Once per test run: compile the service into dist/ (build.ts), which the child processes of the
 * distributed-mode tests run (`startProcess`), as `npm start` does. Sources changed since the last
 * build are always what the tests run.
 */
export default async function setup(): Promise<void> {
  await buildServer();
}

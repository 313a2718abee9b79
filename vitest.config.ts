import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/** `npm run test:pg`: the suite again on PostgreSQL + Redis, with the distributed mode as separate processes. */
const POSTGRES_PASS = process.env['SVC_TEST_DATABASE'] === 'postgres';

/**
 * What the PostgreSQL pass runs: the end-to-end files (test/), which boot the system on its
 * storage, and the unit files that reach PostgreSQL or Redis themselves (the event streams). The
 * other unit files (validators, parsers, the matching pipeline, SQLite's own helpers) touch no
 * storage the pass could change, and run once, in the SQLite pass.
 */
const POSTGRES_PASS_INCLUDE = ['test/**/*.test.ts', 'platform/src/events/*.test.ts'];

/**
 * End-to-end files whose subject involves no storage (what the route table, the committed
 * schemas and the portal's documents generate, the SDKs and the Postman collection built from
 * them; limits and error shapes decided before anything is stored): the same on both databases,
 * so they too run once, in the SQLite pass.
 */
const STORAGE_FREE = [
  'test/route-catalog.test.ts',
  'test/sdk-catalog.test.ts',
  'test/sdk-typescript.test.ts',
  'test/sdk-package.test.ts',
  'test/sdk-python.test.ts',
  'test/postman-collection.test.ts',
  'test/payload-limits.test.ts',
  'test/rest-graphql-coverage.test.ts',
  'test/supergraph.test.ts',
  'test/portal-documents.test.ts',
  'test/deferred-child-logger.test.ts',
  'test/hardening/01-operation-limits.test.ts',
  'test/hardening/11-graphql-error-masking.test.ts',
  'test/hardening/11-http-layer-errors.test.ts',
  'subgraphs/identity/src/domain/identifier-levels.test.ts',
];

export default defineConfig({
  resolve: {
    // Node loads graphql's CommonJS build (its package.json has no "exports"); Vite would otherwise
    // pick the .mjs build for our own files, and two graphql realms cannot share a schema.
    // The SDK's tests and examples import it by its package name, from its sources (no build needed).
    alias: [
      { find: /^graphql$/, replacement: require.resolve('graphql') },
      { find: /^@health-partner\/sdk$/, replacement: new URL('./sdk/typescript/src/index.ts', import.meta.url).pathname },
    ],
  },
  test: {
    include: POSTGRES_PASS ? POSTGRES_PASS_INCLUDE : ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'bench/**', ...(POSTGRES_PASS ? STORAGE_FREE : [])],
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
    // Vitest's default is one worker fewer than the cores (one, on a 2-core machine); the files here
    // mostly wait on databases, timers and child processes, so two run side by side. The PostgreSQL
    // pass (`npm run test:pg`) runs three: its files wait even more, on child processes and on the
    // database and Redis servers, which run outside the test workers.
    maxWorkers: 2,
    // Files share a worker's module cache (the FHIR definitions, the schemas) instead of importing
    // everything again per file; every file boots its own system on its own storage, so no state
    // crosses files through modules.
    isolate: false,
    // Generous, for a 2-core machine shared by three workers and by whatever else runs on it: on
    // such a machine a hook that boots the system twice took two and a half minutes, and a test
    // that boots it twice (restarts, persistence) must not fail on a busy moment either. Only a test
    // that hangs waits this long. Tests that wait for something say how long they wait themselves
    // (test/support/patience.ts), well within these.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});

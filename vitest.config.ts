import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

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
    include: ['**/*.test.ts'],
    exclude: ['**/node_modules/**', 'bench/**'],
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

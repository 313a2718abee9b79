import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

/**
 * The portal's browser suite (npm run test:browser): Debian's Chromium driven by playwright-core.
 * Kept out of `npm test`, since a fresh machine has no Chromium.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  resolve: { alias: [{ find: /^graphql$/, replacement: require.resolve('graphql') }] },
  test: {
    include: ['portal/test/**/*.browser.ts'],
    pool: 'forks',
    // Each file runs its own service and Chromium, and waits on both: two files side by side.
    maxWorkers: 2,
    // As patient as the main suite (vitest.config.ts): a busy 2-core machine boots a service slowly.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});

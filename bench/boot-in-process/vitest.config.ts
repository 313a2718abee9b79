import { defineConfig } from 'vitest/config';
import root from '../../vitest.config.js';

/** The root configuration (aliases, global setup), for this folder's one file only. */
export default defineConfig({ ...root, test: { ...root.test, include: ['bench/boot-in-process/*.test.ts'], exclude: ['**/node_modules/**'], maxWorkers: 1 } });

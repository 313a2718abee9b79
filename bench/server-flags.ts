import { readFileSync } from 'node:fs';

/**
 * The Node.js flags `npm start` runs the service with, read from package.json's "start" script
 * (`node <flags> dist/server.mjs`), so there is one place that sets them. Every server process a benchmark
 * starts gets them, ours and the ones ours is compared with; `npm run bench` gives them to the
 * benchmark process itself (the FHIR suite and the default rows boot the system in it, and forked
 * children inherit them).
 */
export const SERVER_NODE_FLAGS: readonly string[] = (() => {
  const start = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: Record<string, string> }).scripts['start'] ?? '';
  const match = /^node((?: --[\w-]+(?:=\S+)?)*) dist\/server\.mjs$/.exec(start);
  if (!match) throw new Error(`package.json "start" is not "node [flags] dist/server.mjs": ${start}`);
  return match[1]!.trim().split(' ').filter(Boolean);
})();

/** Flags of SERVER_NODE_FLAGS this process was not started with (empty when run by `npm run bench`). */
export function missingServerFlags(): string[] {
  return SERVER_NODE_FLAGS.filter((flag) => !process.execArgv.includes(flag));
}

import { setImmediate as nextTurn } from 'node:timers/promises';

/** How long a run of work keeps the event loop before it lets the rest of the process have a turn. */
export const EVENT_LOOP_SLICE_MS = 20;

/**
 * For long work that awaits only synchronous calls in disguise (better-sqlite3 behind a promise,
 * validation, indexing): call the answer between steps, and once a slice has run for `sliceMs` it
 * waits one turn of the event loop, so health probes, other requests and 503s of the load shedder
 * are answered meanwhile instead of after the whole batch.
 */
export function eventLoopSlices(sliceMs = EVENT_LOOP_SLICE_MS): () => Promise<void> {
  let started = performance.now();
  return async () => {
    if (performance.now() - started < sliceMs) return;
    await nextTurn();
    started = performance.now();
  };
}

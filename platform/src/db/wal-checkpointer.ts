import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * A write-heavy embedded SQLite database checkpoints its WAL on a worker thread instead of in the
 * event loop.
 *
 * In WAL mode SQLite copies the log back into the database file (a checkpoint, with an fsync)
 * whenever a commit leaves more than `wal_autocheckpoint` pages (1,000 by default) in the log, and
 * it does so inside that COMMIT, on the connection's thread: the event loop. A transaction Bundle
 * of a few hundred resources writes more than that by itself, so every Bundle's commit paid a
 * whole checkpoint (about 70-100 ms, a fifth of the ingest's CPU on SQLite, with the process doing
 * nothing else meanwhile).
 *
 * Here the log of a database whose WAL has grown past {@link START_BYTES} is checkpointed every
 * {@link INTERVAL_MS} by a worker thread with its own connection, in PASSIVE mode (it never waits
 * for or blocks the writer or readers: it copies what is committed, and the writer starts the log
 * over once all of it is copied). The connection of the event loop then keeps only a far checkpoint
 * threshold ({@link FALLBACK_PAGES}) as a safety net, should the worker fall behind or stop.
 * Databases that are never written much (most, and every test's) never start a worker.
 */

/** How often the WAL's size is looked at until a worker runs. */
const WATCH_MS = 1000;
/** The WAL size (bytes) from which a worker checkpoints it: SQLite's own 1,000-page threshold with 4 KiB pages. */
const START_BYTES = 4 * 1024 * 1024;
/** How often the worker checkpoints: about as often as a busy writer commits a Bundle, so each fsync carries many pages. */
const INTERVAL_MS = 1000;
/** The event loop's own checkpoint threshold while a worker runs: 64 MiB of 16 KiB pages (the page size of a new file). */
const FALLBACK_PAGES = 4_096;
/** SQLite's default threshold, restored when the worker stops. */
const DEFAULT_PAGES = 1000;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('wal_autocheckpoint = 0');
const timer = setInterval(() => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface WalCheckpointer {
  stop(): Promise<void>;
}

/**
 * Watch `file`'s WAL and hand its checkpoints to a worker once it is written to heavily.
 * `setThreshold` sets the event loop connection's `wal_autocheckpoint`; `onError` hears a worker's
 * failure (the event loop's own checkpoints then take over again).
 */
export function checkpointWalInBackground(file: string, setThreshold: (pages: number) => Promise<void>, onError: (err: unknown) => void): WalCheckpointer {
  let worker: Worker | undefined;
  let stopped = false;
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');

  const start = async (): Promise<void> => {
    const started = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver, intervalMs: INTERVAL_MS } });
    started.unref();
    worker = started;
    started.on('message', (m: { error?: string }) => {
      if (m.error) onError(new Error(`WAL checkpoint of ${file}: ${m.error}`));
    });
    started.on('error', (err) => onError(err));
    started.on('exit', () => {
      if (worker !== started) return;
      worker = undefined;
      if (!stopped) void setThreshold(DEFAULT_PAGES).catch(onError);
    });
    await setThreshold(FALLBACK_PAGES);
  };

  const watch = setInterval(() => {
    if (worker || stopped) return;
    stat(`${file}-wal`)
      .then(
        (s) => (s.size >= START_BYTES && !worker && !stopped ? start() : undefined),
        () => undefined, // no WAL yet
      )
      .catch(onError);
  }, WATCH_MS);
  watch.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(watch);
      const running = worker;
      worker = undefined;
      if (!running) return;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      running.postMessage('stop');
      const timer = setTimeout(() => void running.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}

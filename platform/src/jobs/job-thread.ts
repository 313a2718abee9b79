import { Worker } from 'node:worker_threads';
import type { Logger } from '../logging.js';
import { JOB_THREAD_CONTROL, type JobThreadMessage, type JobThreadStart } from './thread-host.js';

export type { JobThreadHost, JobThreadMessage, JobThreadModule } from './thread-host.js';

/**
 * A worker thread that runs a subgraph's background jobs beside the event loop that serves
 * requests (the embedded default, where everything shares one process). The thread has its own
 * event loop, its own database connections and its own copy of the domain code, so a job that
 * validates and writes a thousand resources uses the other core instead of holding up /health and
 * every other caller; the threads only exchange small messages (wake up, a commit to publish).
 *
 * If the thread dies (an uncaught error, an out-of-memory abort), it is started again after a
 * pause that doubles up to {@link MAX_RESTART_DELAY_MS}; the jobs themselves are durable rows, so
 * the new thread requeues what the old one was running.
 */
export interface JobThread {
  /** Send a message to the module running in the thread (dropped while the thread restarts). */
  post(message: JobThreadMessage): void;
  /** Resolves once the module has started (for tests and logs; callers need not wait). */
  readonly started: Promise<void>;
  /** Ask the module to stop (it finishes or gives back its current job), then end the thread. */
  stop(): Promise<void>;
}

export interface JobThreadOptions {
  /** A name for logs, e.g. `fhir-jobs`. */
  name: string;
  /** file: URL of the module the thread runs (it exports `runJobThread`, see thread-host.ts). */
  module: string;
  /** Structured-clone data given to the module. */
  data: unknown;
  logger: Logger;
  /** Messages the module sends. */
  onMessage(message: JobThreadMessage): void;
}

const FIRST_RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
/** How long `stop` waits for the module to stop before ending the thread anyway. */
const STOP_TIMEOUT_MS = 30_000;

export function startJobThread(options: JobThreadOptions): JobThread {
  const log = options.logger.child({ thread: options.name });
  let worker: Worker | undefined;
  let stopping = false;
  let restartDelay = FIRST_RESTART_DELAY_MS;
  let restartTimer: NodeJS.Timeout | undefined;
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => (markStarted = resolve));

  const spawn = () => {
    const start: JobThreadStart = { module: options.module, data: options.data };
    const thread = new Worker(new URL('./thread-entry.mjs', import.meta.url), { workerData: start, execArgv: [], stdout: false, stderr: false });
    thread.unref();
    worker = thread;
    thread.on('message', (message: JobThreadMessage) => {
      if (message.type === JOB_THREAD_CONTROL.STARTED) {
        restartDelay = FIRST_RESTART_DELAY_MS;
        markStarted();
      } else if (message.type === JOB_THREAD_CONTROL.FAILED) {
        log.error({ detail: message['message'] }, 'job thread failed');
      } else if (message.type !== JOB_THREAD_CONTROL.STOPPED) {
        options.onMessage(message);
      }
    });
    thread.on('error', (err) => log.error({ err }, 'job thread crashed'));
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined;
      if (stopping) return;
      log.error({ exitCode: code, restartInMs: restartDelay }, 'job thread ended; starting it again');
      restartTimer = setTimeout(spawn, restartDelay);
      restartTimer.unref();
      restartDelay = Math.min(MAX_RESTART_DELAY_MS, restartDelay * 2);
    });
  };
  spawn();

  return {
    started,
    post(message) {
      worker?.postMessage(message);
    },
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const thread = worker;
      if (!thread) return;
      // The module's stop has returned once it says so (or the thread ended); what it leaves behind
      // (a logger's stream, a loader's port) may keep the thread's loop alive, so end it then.
      const done = new Promise<void>((resolve) => {
        thread.once('exit', () => resolve());
        thread.on('message', (message: JobThreadMessage) => {
          if (message.type === JOB_THREAD_CONTROL.STOPPED || message.type === JOB_THREAD_CONTROL.FAILED) resolve();
        });
      });
      thread.postMessage({ type: JOB_THREAD_CONTROL.STOP });
      const timer = setTimeout(() => void thread.terminate(), STOP_TIMEOUT_MS);
      await done;
      clearTimeout(timer);
      await thread.terminate();
    },
  };
}

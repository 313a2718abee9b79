import { Worker } from 'node:worker_threads';
import type { Logger } from '../logging.js';
import type { Metrics } from '../metrics.js';
import { DependencyUnavailable } from '../dependency-health.js';
import { DomainError, ERROR_STATUS, type ErrorCode, type FieldError } from '../errors.js';
import { JOB_THREAD_CONTROL, type JobThreadMessage, type JobThreadStart, type ThrownAcross } from './thread-host.js';
import { currentTraceparent, inSpan } from '../tracing/spans.js';

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
  /**
   * Run the module's handler `name` (see JobThreadHost.onCall) on the thread and answer its result:
   * CPU-heavy work a request waits for, done off the event loop. A DomainError thrown there is
   * thrown here with its code, field errors and details; a thread that dies meanwhile is a 503.
   */
  call<T>(name: string, payload: unknown): Promise<T>;
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
  /** Where calls and restarts are counted (svc_job_thread_* on /metrics). */
  metrics?: Metrics;
  /** Messages the module sends; optional for a thread that only answers calls. */
  onMessage?(message: JobThreadMessage): void;
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
  let nextCall = 1;
  const pending = new Map<number, { resolve(value: unknown): void; reject(err: Error): void }>();
  const failPending = (why: string) => {
    for (const waiter of pending.values()) waiter.reject(new DependencyUnavailable(`job thread ${options.name}`, new Error(why)));
    pending.clear();
  };

  const spawn = () => {
    const start: JobThreadStart = { module: options.module, data: options.data };
    const thread = new Worker(new URL('./thread-entry.mjs', import.meta.url), { workerData: start, execArgv: [], stdout: false, stderr: false });
    thread.unref();
    worker = thread;
    thread.on('message', (message: JobThreadMessage) => {
      if (message.type === JOB_THREAD_CONTROL.STARTED) {
        restartDelay = FIRST_RESTART_DELAY_MS;
      } else if (message.type === JOB_THREAD_CONTROL.ANSWER) {
        const waiter = pending.get(Number(message['id']));
        if (!waiter) return;
        pending.delete(Number(message['id']));
        if (message['ok'] === true) waiter.resolve(message['value']);
        else waiter.reject(errorFrom(message['error'] as ThrownAcross));
      } else if (message.type === JOB_THREAD_CONTROL.LOG) {
        relog(log, String(message['line']));
      } else if (message.type === JOB_THREAD_CONTROL.FAILED) {
        log.error({ detail: message['message'] }, 'job thread failed');
      } else if (message.type !== JOB_THREAD_CONTROL.STOPPED) {
        options.onMessage?.(message);
      }
    });
    thread.on('error', (err) => log.error({ err }, 'job thread crashed'));
    thread.on('exit', (code) => {
      if (worker === thread) worker = undefined;
      failPending(`the job thread ended (exit code ${code})`);
      if (stopping) return;
      log.error({ exitCode: code, restartInMs: restartDelay }, 'job thread ended; starting it again');
      options.metrics?.jobThreadRestarts.inc({ thread: options.name });
      restartTimer = setTimeout(spawn, restartDelay);
      restartTimer.unref();
      restartDelay = Math.min(MAX_RESTART_DELAY_MS, restartDelay * 2);
    });
  };
  spawn();

  const callOnThread = <T>(name: string, payload: unknown): Promise<T> => {
    const timer = options.metrics?.jobThreadCalls.startTimer({ thread: options.name, call: name });
    const thread = worker;
    const answer = thread
      ? new Promise<T>((resolve, reject) => {
          const id = nextCall++;
          pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
          // The call's span goes with it: a thread that traces runs the handler as its child.
          const traceparent = currentTraceparent();
          thread.postMessage({ type: JOB_THREAD_CONTROL.CALL, id, name, payload, ...(traceparent ? { traceparent } : {}) });
        })
      : Promise.reject<T>(new DependencyUnavailable(`job thread ${options.name}`, new Error('the job thread is restarting')));
    answer.then(
      () => timer?.({ outcome: 'ok' }),
      (err: unknown) => timer?.({ outcome: err instanceof DependencyUnavailable ? 'unavailable' : 'error' }),
    );
    return answer;
  };

  return {
    post(message) {
      worker?.postMessage(message);
    },
    call<T>(name: string, payload: unknown): Promise<T> {
      // One span per run of a handler on the thread, named after the thread and the handler only.
      return inSpan(`job ${options.name} ${name}`, { attributes: { 'svc.job.thread': options.name, 'svc.job.name': name } }, () => callOnThread<T>(name, payload));
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

/** The error a call threw on the thread, as it was: a DomainError keeps its code, field errors and details. */
function errorFrom(thrown: ThrownAcross): Error {
  if (thrown.code !== undefined && thrown.code in ERROR_STATUS) {
    return new DomainError(thrown.code as ErrorCode, thrown.message, { fieldErrors: (thrown.fieldErrors ?? []) as FieldError[], details: (thrown.details ?? {}) as Record<string, unknown> });
  }
  const err = new Error(thrown.message);
  err.name = thrown.name;
  return err;
}

const LEVELS: Record<number, 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal'> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A pino line of the thread's logger, written again by the main thread's (its bindings replace the thread's own). */
function relog(logger: Logger, line: string): void {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const { level, time: _time, pid: _pid, hostname: _hostname, role: _role, msg, ...fields } = record;
  const method = LEVELS[Number(level)] ?? 'info';
  logger[method](fields, typeof msg === 'string' ? msg : '');
}

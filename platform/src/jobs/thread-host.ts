import type { MessagePort } from 'node:worker_threads';

/** What the module run in a job thread is given. */
export interface JobThreadHost<Data> {
  /** The structured-clone data the main thread started the thread with. */
  data: Data;
  /** A message to the main thread's `onMessage`. */
  send(message: JobThreadMessage): void;
  /** Messages the main thread posts (`JobThread.post`). */
  onMessage(handler: (message: JobThreadMessage) => void): void;
  /**
   * Where the thread's logger writes (`createLogger(config, host.logDestination)`): each line goes to
   * the main thread's logger, so a process has one log stream, redacted by one configuration.
   */
  logDestination: { write(line: string): void };
  /**
   * Answer the main thread's `JobThread.call(name, payload)` (structured-clone values in and out).
   * `traceparent` is the call's span when the main thread traces: a thread that traces too runs
   * the handler in that context, so its statements are children of the call.
   */
  onCall(name: string, handler: (payload: unknown, traceparent?: string) => Promise<unknown>): void;
}

/** A DomainError (or any error) as it crosses to the main thread. */
export interface ThrownAcross {
  name: string;
  message: string;
  code?: string;
  fieldErrors?: unknown;
  details?: unknown;
}

/** A plain message between the threads; `type` says what it is. */
export interface JobThreadMessage {
  type: string;
  [key: string]: unknown;
}

/** The module a job thread runs: it starts its work and answers the function that stops it. */
export interface JobThreadModule<Data> {
  runJobThread(host: JobThreadHost<Data>): Promise<() => Promise<void>>;
}

export interface JobThreadStart {
  /** file: URL of a module that exports `runJobThread`. */
  module: string;
  data: unknown;
}

/** Control messages of the host itself (the module never sees them). */
const STOP = '__stop';
const STARTED = '__started';
const STOPPED = '__stopped';
const FAILED = '__failed';
const CALL = '__call';
const ANSWER = '__answer';
const LOG = '__log';
export const JOB_THREAD_CONTROL = { STOP, STARTED, STOPPED, FAILED, CALL, ANSWER, LOG } as const;

/** Runs in the thread: load the module, start it, stop it when told, then let the thread end. */
export async function serveJobThread(port: MessagePort | null, start: JobThreadStart): Promise<void> {
  if (!port) throw new Error('a job thread runs only as a worker thread');
  const handlers: ((message: JobThreadMessage) => void)[] = [];
  const calls = new Map<string, (payload: unknown, traceparent?: string) => Promise<unknown>>();
  let stopping = false;
  const started = import(start.module).then((module: JobThreadModule<unknown>) =>
    module.runJobThread({ data: start.data, send: (message) => port.postMessage(message), onMessage: (handler) => handlers.push(handler), logDestination: { write: (line) => port.postMessage({ type: LOG, line }) }, onCall: (name, handler) => calls.set(name, handler) }),
  );
  const answer = async (message: JobThreadMessage) => {
    const id = message['id'];
    try {
      await started;
      const handler = calls.get(String(message['name']));
      if (!handler) throw new Error(`the job thread answers no call named ${String(message['name'])}`);
      const traceparent = typeof message['traceparent'] === 'string' ? message['traceparent'] : undefined;
      port.postMessage({ type: ANSWER, id, ok: true, value: await handler(message['payload'], traceparent) });
    } catch (err) {
      port.postMessage({ type: ANSWER, id, ok: false, error: thrownAcross(err) });
    }
  };
  port.on('message', (message: JobThreadMessage) => {
    if (message.type === CALL) {
      void answer(message);
      return;
    }
    if (message.type !== STOP) {
      for (const handler of handlers) handler(message);
      return;
    }
    if (stopping) return;
    stopping = true;
    // A stop that comes while the module is still starting waits for it, so nothing is left running.
    void started
      .then((stop) => stop())
      .then(() => port.postMessage({ type: STOPPED }))
      .catch((err: unknown) => port.postMessage({ type: FAILED, message: errorText(err) }))
      .finally(() => port.close());
  });
  try {
    await started;
    port.postMessage({ type: STARTED });
  } catch (err) {
    port.postMessage({ type: FAILED, message: errorText(err) });
    port.close();
  }
}

function thrownAcross(err: unknown): ThrownAcross {
  if (!(err instanceof Error)) return { name: 'Error', message: String(err) };
  const e = err as Error & { code?: unknown; fieldErrors?: unknown; details?: unknown };
  return { name: e.name, message: e.message, ...(typeof e.code === 'string' ? { code: e.code, fieldErrors: e.fieldErrors, details: e.details } : {}) };
}

function errorText(err: unknown): string {
  return (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);
}

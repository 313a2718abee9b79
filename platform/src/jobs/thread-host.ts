import type { MessagePort } from 'node:worker_threads';

/** What the module run in a job thread is given. */
export interface JobThreadHost<Data> {
  /** The structured-clone data the main thread started the thread with. */
  data: Data;
  /** A message to the main thread's `onMessage`. */
  send(message: JobThreadMessage): void;
  /** Messages the main thread posts (`JobThread.post`). */
  onMessage(handler: (message: JobThreadMessage) => void): void;
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
export const JOB_THREAD_CONTROL = { STOP, STARTED, STOPPED, FAILED } as const;

/** Runs in the thread: load the module, start it, stop it when told, then let the thread end. */
export async function serveJobThread(port: MessagePort | null, start: JobThreadStart): Promise<void> {
  if (!port) throw new Error('a job thread runs only as a worker thread');
  const handlers: ((message: JobThreadMessage) => void)[] = [];
  let stopping = false;
  const started = import(start.module).then((module: JobThreadModule<unknown>) =>
    module.runJobThread({ data: start.data, send: (message) => port.postMessage(message), onMessage: (handler) => handlers.push(handler) }),
  );
  port.on('message', (message: JobThreadMessage) => {
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

function errorText(err: unknown): string {
  return (err instanceof Error ? `${err.name}: ${err.message}` : String(err)).slice(0, 2000);
}

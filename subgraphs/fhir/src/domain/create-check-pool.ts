import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { checkCreate, type CreateCheck } from './create-checks.js';

/** Resources per message to a thread: the first answers come back while the rest are checked. */
const CHUNK = 25;
/** A thread with nothing to do for this long ends (it holds the R4 definitions: tens of MiB). */
const IDLE_MS = 30_000;

interface Job {
  contents: string[];
  resolve: (checks: CreateCheck[]) => void;
}

/** A check thread: its worker, and the jobs it was handed, answered in order. */
interface Thread {
  worker: Worker;
  /** False until the thread has loaded the definitions: meanwhile checks run inline, not queued behind its start. */
  ready: boolean;
  jobs: Job[];
  idle: NodeJS.Timeout | undefined;
}

/** The worker file next to this one, in the form this process runs (`.ts` under tsx, `.js` built). */
const WORKER_URL = new URL(`./create-check-worker${import.meta.url.slice(import.meta.url.lastIndexOf('.'))}`, import.meta.url);

/**
 * A thread running the worker file. A `.ts` file (the project runs under tsx) is imported through
 * tsx's API from a small bootstrap: Node 20 does not apply an `--import`ed loader to a worker's
 * entry, and a test runner's threads have no loader at all.
 */
function startWorker(): Worker {
  if (!WORKER_URL.pathname.endsWith('.ts')) return new Worker(WORKER_URL);
  const tsx = new URL('./dist/esm/api/index.mjs', pathToFileURL(createRequire(import.meta.url).resolve('tsx/package.json'))).href;
  const boot = "const { workerData } = require('node:worker_threads'); import(workerData.tsx).then((api) => { api.register(); return import(workerData.entry); });";
  return new Worker(boot, { eval: true, workerData: { tsx, entry: WORKER_URL.href } });
}

/**
 * The create checks of a transaction Bundle (validation and search-index rows, create-checks.ts) on
 * worker threads, so that the event loop writes one Bundle while the threads check the next
 * resources. Threads start on first use and end when idle. A thread that fails (or cannot start)
 * costs nothing but speed: its jobs are checked on the event loop instead, with the same result.
 * With 0 threads every check runs inline.
 */
export class CreateCheckPool {
  private readonly threads: (Thread | undefined)[] = [];
  private next = 0;
  private closed = false;
  /** Set when a thread failed before its first answer (it cannot load): every check then runs inline. */
  private unusable = false;

  /** `onUnusable`: told once when threads cannot start (the checks then run on the event loop). */
  constructor(
    private readonly size: number,
    private readonly onUnusable: (err: unknown) => void = () => undefined,
  ) {}

  /** Whether checks can go to threads (none configured, or threads that cannot start: they run inline). */
  get threaded(): boolean {
    return this.size > 0 && !this.closed && !this.unusable;
  }

  /**
   * Whether a thread has started and loaded the definitions. Until then callers check on the event
   * loop as without threads: `warm` starts the threads in the background, so that no request waits
   * for a thread's start (seconds).
   */
  get ready(): boolean {
    return this.readyThreads > 0;
  }

  get readyThreads(): number {
    return this.threaded ? this.threads.filter((t) => t?.ready).length : 0;
  }

  warm(): void {
    for (let i = 0; i < this.size && this.threaded; i++) this.thread();
  }

  /** One promise per resource text, in order; each resolves to what `checkCreate` answers for it. */
  check(contents: readonly string[]): Promise<CreateCheck>[] {
    const out: Promise<CreateCheck>[] = [];
    for (let start = 0; start < contents.length; start += CHUNK) {
      const chunk = contents.slice(start, start + CHUNK);
      const answers = this.run(chunk);
      for (let i = 0; i < chunk.length; i++) out.push(answers.then((checks) => checks[i]!));
    }
    return out;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t && this.retire(t)));
  }

  private run(contents: string[]): Promise<CreateCheck[]> {
    let thread = this.thread();
    if (!thread?.ready) thread = this.threads.find((t) => t?.ready);
    if (!thread) return Promise.resolve(contents.map(checkCreate));
    return new Promise((resolve) => {
      if (thread.idle) clearTimeout(thread.idle);
      thread.idle = undefined;
      thread.jobs.push({ contents, resolve });
      thread.worker.postMessage(contents);
    });
  }

  /** The next thread round-robin, started if need be; undefined when there are none to use. */
  private thread(): Thread | undefined {
    if (!this.threaded) return undefined;
    const slot = this.next++ % this.size;
    const existing = this.threads[slot];
    if (existing) return existing;
    let worker: Worker;
    try {
      worker = startWorker();
    } catch (err) {
      this.unusable = true;
      this.onUnusable(err);
      return undefined;
    }
    worker.unref();
    const thread: Thread = { worker, ready: false, jobs: [], idle: undefined };
    let answered = false;
    worker.on('message', (checks: CreateCheck[] | 'ready') => {
      answered = true;
      if (checks === 'ready') thread.ready = true;
      else thread.jobs.shift()?.resolve(checks);
      if (thread.jobs.length === 0) thread.idle = setTimeout(() => void this.retire(thread), IDLE_MS).unref();
    });
    let failure: unknown;
    worker.on('error', (err) => (failure = err));
    const fail = () => {
      if (!answered && !this.closed && !this.unusable) {
        this.unusable = true;
        this.onUnusable(failure ?? new Error('the check thread exited before its first answer'));
      }
      if (this.threads[slot] === thread) this.threads[slot] = undefined;
      if (thread.idle) clearTimeout(thread.idle);
      for (const job of thread.jobs.splice(0)) job.resolve(job.contents.map(checkCreate));
    };
    worker.on('exit', fail);
    this.threads[slot] = thread;
    return thread;
  }

  private async retire(thread: Thread): Promise<void> {
    const slot = this.threads.indexOf(thread);
    if (slot >= 0) this.threads[slot] = undefined;
    if (thread.idle) clearTimeout(thread.idle);
    await thread.worker.terminate();
  }
}

/**
 * A child process answering one job at a time over IPC (`{ kind: 'run', id, spec }` →
 * `{ kind: 'done', id, run }` or `{ kind: 'failed', id, message }`): the load generator and the
 * FHIR ingest client run this way so that they never share the server's event loop.
 */
import { fork, type ChildProcess } from 'node:child_process';

type Answer<R> = { kind: 'done'; id: number; run: R } | { kind: 'failed'; id: number; message: string };

export class ChildRunner<S, R> {
  private readonly child: ChildProcess;
  private readonly pending = new Map<number, { resolve(run: R): void; reject(err: Error): void }>();
  private nextId = 1;

  /** `script`: a file URL; it inherits this process's exec arguments (the TypeScript loader). */
  constructor(script: URL, private readonly name: string) {
    this.child = fork(script, [], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (message: Answer<R>) => {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.kind === 'done') waiter.resolve(message.run);
      else waiter.reject(new Error(`${this.name}: ${message.message}`));
    });
    this.child.on('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`${this.name} exited (${signal ?? code})`));
      this.pending.clear();
    });
  }

  /** The child's process id (for its CPU time). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  run(spec: S): Promise<R> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ kind: 'run', id, spec });
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    if (this.child.connected) this.child.send({ kind: 'exit' });
    const timer = setTimeout(() => this.child.kill(), 5000);
    await exited;
    clearTimeout(timer);
  }
}

import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/** A free loopback port (the OS picks; we release it for the child to bind). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface ServiceProcess {
  role: string;
  url: string;
  /** The internal listener (SVC_INTERNAL_PORT): metrics, and the gateway's internal hop. */
  internalUrl: string;
  child: ChildProcess;
  output(): string;
  /** Send a signal and resolve with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Run `npm start`'s compiled entry point (dist/server.mjs, built once per run by global-setup.ts)
 * as one component of the distributed mode (on `port`, to restart one in place).
 */
export async function startProcess(role: string, env: Record<string, string>, options: { port?: number; internalPort?: number } = {}): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const internalPort = options.internalPort ?? (await freePort());
  const child = spawn(process.execPath, ['--enable-source-maps', 'dist/server.mjs'], {
    cwd: ROOT,
    env: {
      PATH: process.env['PATH'] ?? '',
      // As in bootSystem: a test run's own load must not make a component shed (tests of shedding set their own).
      SVC_SHED_EVENT_LOOP_DELAY_MS: '10000',
      ...env,
      SVC_ROLE: role,
      SVC_PORT: String(port),
      SVC_HOST: '127.0.0.1',
      SVC_INTERNAL_PORT: String(internalPort),
      SVC_INTERNAL_HOST: '127.0.0.1',
      SVC_LOG_LEVEL: env['SVC_LOG_LEVEL'] ?? 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    role,
    url: `http://127.0.0.1:${port}`,
    internalUrl: `http://127.0.0.1:${internalPort}`,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/**
 * Poll GET /ready until it answers 200. Generous: a component loads the whole code base, and a
 * gateway composes its supergraph; a busy 2-core machine takes minutes for that.
 */
export async function waitUntilReady(service: ServiceProcess, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (service.child.exitCode !== null) throw new Error(`${service.role} exited early:\n${service.output()}`);
    const ok = await fetch(`${service.url}/ready`).then((r) => r.ok, () => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${service.role} not ready after ${timeoutMs}ms:\n${service.output()}`);
}

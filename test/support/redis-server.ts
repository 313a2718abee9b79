import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './processes.js';
import { PATIENCE_MS } from './patience.js';

export interface OwnRedis {
  url: string;
  /** SIGKILL the server (its append-only file keeps what it acknowledged). */
  kill(): Promise<void>;
  /** Start it again on the same port and data directory; resolves once it answers PING. */
  restart(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * A private redis-server for a test that kills it: a free port, a temporary directory, append-only
 * persistence with fsync on every write, no snapshots. Needs `redis-server` on the PATH.
 */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], { stdio: 'ignore' });
    const deadline = Date.now() + PATIENCE_MS;
    for (;;) {
      const client = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined);
      const ok = await client.connect().then(() => client.ping(), () => null).catch(() => null);
      client.disconnect();
      if (ok === 'PONG') return;
      if (Date.now() > deadline) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const kill = async () => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = new Promise((resolve) => c.once('exit', resolve));
    c.kill('SIGKILL');
    await exited;
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    kill,
    restart: start,
    async dispose() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

import { Redis, type RedisOptions } from 'ioredis';
import type { DependencyHealth } from './dependency-health.js';

/** Reconnect back-off: 200 ms more per attempt, at most 2 s between attempts, forever. */
const retryStrategy = (attempt: number): number => Math.min(attempt * 200, 2_000);

/**
 * An ioredis client that survives an outage quietly: it reconnects by itself, reports its errors to
 * the dependency tracker (one log line per outage instead of ioredis's "Unhandled error event" per
 * reconnect attempt). Without `queueWhileOffline` it refuses a command at once while disconnected,
 * so a request fails fast with 503 instead of waiting out the reconnects (wait for
 * {@link redisConnected} before the first command); with it, a command waits for at most
 * `maxRetriesPerRequest` reconnect attempts.
 */
export function createRedisClient(
  url: string,
  health: DependencyHealth | undefined,
  options: { queueWhileOffline?: boolean; maxRetriesPerRequest?: number } = {},
): Redis {
  const settings: RedisOptions = {
    retryStrategy,
    connectTimeout: 5_000,
    enableOfflineQueue: options.queueWhileOffline ?? false,
    maxRetriesPerRequest: options.maxRetriesPerRequest ?? 1,
  };
  const client = new Redis(url, settings);
  client.on('error', (err: unknown) => health?.down('redis', err));
  client.on('ready', () => health?.up('redis'));
  return client;
}

/** Readiness of one client: connected and answering PING. */
export async function redisReachable(client: Redis): Promise<boolean> {
  if (client.status !== 'ready') return false;
  return client.ping().then(
    (answer) => answer === 'PONG',
    () => false,
  );
}

/** Resolves once the client is connected, or after `timeoutMs` (a Redis that is down at start shows in /ready). */
export async function redisConnected(client: Redis, timeoutMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    client.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import { ConfigError, createLogger, type Config } from '@svc/platform';

/**
 * How many processes serve the gateway role (SVC_GATEWAY_WORKERS): a whole number, or `auto` for
 * one per available core. 1 (the default) is the plain single process.
 *
 * The gateway keeps no state of its own that requests share, so N processes behind node:cluster's
 * shared listeners behave as N replicas behind a load balancer: each follows the event stream
 * (revocations, subscriptions) on its own. That holds only when the state that must be shared is in
 * Redis: with the rate limits on, the counters would otherwise be per process (N times the limit),
 * so more than one worker requires SVC_REDIS_URL then.
 */
export function gatewayWorkers(config: Config, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env['SVC_GATEWAY_WORKERS']?.trim();
  if (raw === undefined || raw === '') return 1;
  const count = raw === 'auto' ? os.availableParallelism() : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
  const problems: string[] = [];
  if (!Number.isInteger(count) || count < 1 || count > 64) problems.push(`SVC_GATEWAY_WORKERS must be "auto" or a whole number from 1 to 64 (got "${raw}")`);
  else if (count > 1 && config.role !== 'gateway') problems.push(`SVC_GATEWAY_WORKERS applies only to SVC_ROLE=gateway (the role is ${config.role})`);
  else if (count > 1 && config.rateLimits && !config.redisUrl) {
    problems.push('SVC_GATEWAY_WORKERS above 1 needs SVC_REDIS_URL while the rate limits are on: each process would otherwise count its own limits');
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return count;
}

/**
 * The primary process: starts `count` workers (each runs server.ts as a normal gateway), replaces
 * one that dies after it started listening, and on SIGTERM/SIGINT passes the signal on and exits
 * once every worker has shut down. A worker that dies before listening stops the whole start.
 */
export function runGatewayPrimary(config: Config, count: number): void {
  const logger = createLogger(config);
  let stopping = false;
  const listening = new WeakSet<Worker>();
  // Listeners per worker (public and internal): once every first generation of workers has both,
  // a parent with an IPC channel (the benchmark) is told, so it measures no worker's start-up.
  const listens = new Map<Worker, number>();
  const start = () => {
    const worker = cluster.fork();
    worker.on('listening', () => {
      listening.add(worker);
      if (!listens.has(worker)) return;
      listens.set(worker, listens.get(worker)! + 1);
      if ([...listens.values()].every((n) => n >= 2)) {
        listens.clear();
        process.send?.({ kind: 'gateway-workers-listening', workers: count });
      }
    });
    worker.once('exit', (code, signal) => {
      if (stopping) return;
      if (!listening.has(worker)) {
        logger.error({ code, signal }, 'a gateway worker failed to start; stopping');
        stop('start failure', 1);
        return;
      }
      logger.error({ code, signal }, 'a gateway worker exited; starting another');
      start();
    });
  };
  const stop = (reason: string, exitCode = 0) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'stopping the gateway workers');
    const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => w !== undefined);
    let failed = exitCode !== 0;
    let left = workers.length;
    if (left === 0) process.exit(exitCode);
    const force = setTimeout(() => process.exit(1), config.shutdownGraceMs + 10_000);
    force.unref();
    for (const worker of workers) {
      worker.once('exit', (code, signal) => {
        if (code !== 0) {
          failed = true;
          logger.error({ code, signal }, 'a gateway worker did not shut down cleanly');
        }
        if (--left === 0) process.exit(failed ? 1 : 0);
      });
      if (!worker.isDead()) worker.process.kill('SIGTERM');
    }
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  logger.info({ workers: count }, 'starting gateway workers');
  for (let i = 0; i < count; i++) start();
  for (const worker of Object.values(cluster.workers ?? {})) if (worker) listens.set(worker, 0);
}

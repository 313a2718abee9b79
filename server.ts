import { ConfigError, loadConfig } from '@svc/platform';
import cluster from 'node:cluster';
import { startSystem } from './system.js';
import { gatewayWorkers, runGatewayPrimary } from '@svc/gateway';

/** Launch what SVC_ROLE names (everything, by default) and shut it down gracefully on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let workers: number;
  try {
    workers = gatewayWorkers(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  // SVC_GATEWAY_WORKERS: this process only supervises; each worker runs the lines below.
  if (workers > 1 && cluster.isPrimary) {
    runGatewayPrimary(config, workers);
    return;
  }
  const system = await startSystem(config);
  const address = await system.app.listen({ port: config.port, host: config.host });
  system.logger.info({ address, role: config.role, environment: config.environment, database: config.databaseUrl ? 'postgresql' : 'sqlite' }, 'listening');
  if (system.internalApp && config.internalPort !== null) {
    const internalAddress = await system.internalApp.listen({ port: config.internalPort, host: config.internalHost });
    system.logger.info({ address: internalAddress, role: config.role }, 'internal listener (metrics, health, internal hop)');
  }

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    system.logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.shutdownGraceMs + 5000);
    force.unref();
    system
      .stop()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        system.logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

void main();

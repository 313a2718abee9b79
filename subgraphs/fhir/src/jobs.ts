import type { EntityManager } from '@mikro-orm/core';
import type { Config, Logger } from '@svc/platform';
import { ExportWorker } from './domain/bulk-export.js';
import { SyncJobWorker } from './domain/sync-worker.js';

/** The FHIR subgraph's durable job workers, wherever they run (a job thread or the worker role). */
export interface FhirJobs {
  wakeSync(): void;
  wakeExport(): void;
  stop(): Promise<void>;
}

/**
 * Start the $export worker and the worker of asynchronous submissions (sync jobs). Both are durable:
 * resumed after a restart, taken over after a crash. `publish` tells the outbox relay that events
 * were committed.
 */
export function startFhirJobs(fork: () => EntityManager, config: Config, logger: Logger, publish: () => void): FhirJobs {
  const singleProcess = config.databaseUrl === undefined;
  const exports = new ExportWorker(fork, { ...config.fhirExport, pollMs: 1000, singleProcess }, logger.child({ worker: 'fhir-export' }));
  const sync = new SyncJobWorker(fork, { ...config.fhirSync, pollMs: 1000, singleProcess, fhirBase: `${config.publicUrl}/fhir/R4` }, logger.child({ worker: 'fhir-sync' }), publish);
  exports.start();
  sync.start();
  return {
    wakeSync: () => sync.wake(),
    wakeExport: () => exports.wake(),
    stop: async () => {
      await Promise.all([exports.stop(), sync.stop()]);
    },
  };
}

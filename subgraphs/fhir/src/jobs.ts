import type { EntityManager } from '@mikro-orm/core';
import type { Config, Logger, Principal } from '@svc/platform';
import { submitClaims, type ClaimSubmissionResult, type ClearinghouseInput } from './domain/clearinghouse/service.js';
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

/** An 837P submission handed to the job thread: what `submitClaims` needs besides the entity manager. */
export interface ClaimsCall {
  principal: Principal;
  requestId: string;
  input: ClearinghouseInput;
  /** ISO time of the request (the 999's date, the claims' created time). */
  at: string;
}

/**
 * Request work that waits for its answer but is too heavy for the event loop: where the subgraph
 * runs a job thread, the schema hands it there (an 837P of thousands of claims is seconds of
 * parsing and validation); without one it runs in place.
 */
export interface FhirOffload {
  submitClaims?(call: ClaimsCall): Promise<ClaimSubmissionResult>;
}

/** Store an 837P submission as the request would, on an entity manager of the caller's. */
export function runSubmitClaims(fork: () => EntityManager, config: Config, call: ClaimsCall): Promise<ClaimSubmissionResult> {
  return submitClaims({ em: fork(), principal: call.principal, requestId: call.requestId, source: null, fhirBase: `${config.publicUrl}/fhir/R4` }, call.input, new Date(call.at));
}

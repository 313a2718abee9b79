import type { EntityManager } from '@mikro-orm/core';
import type { Config, Logger, Principal } from '@svc/platform';
import { checkEligibility, claimStatus, submitClaims, type ClaimStatusResult, type ClaimSubmissionResult, type ClearinghouseInput, type EligibilityResult } from './domain/clearinghouse/service.js';
import { checkSubmission, type CheckedSubmission, type SubmissionToCheck } from './domain/sync-submission.js';
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

/** A clearinghouse transaction as the job thread gets it: what the service needs besides the entity manager. */
export interface ClearinghouseCall {
  principal: Principal;
  requestId: string;
  input: ClearinghouseInput;
  /** ISO time of the request (the answer's date, the stored resources' time). */
  at: string;
}

/**
 * Request work that waits for its answer but is too heavy for the event loop that serves requests:
 * parsing, validating and storing an X12 interchange (an 837P of thousands of claims is seconds of
 * work, a hostile 270 of 100,000 segments too), and checking an asynchronous submission (an NDJSON
 * push or a Bundle of up to 5 MiB, parsed line by line and entry by entry). Each entry is the call's
 * payload and its answer; both cross between threads as structured clones.
 */
export interface FhirThreadCalls {
  'submit-claims': [ClearinghouseCall, ClaimSubmissionResult];
  eligibility: [ClearinghouseCall, EligibilityResult];
  'claim-status': [ClearinghouseCall, ClaimStatusResult];
  'check-submission': [SubmissionToCheck, CheckedSubmission];
}
export type FhirCallName = keyof FhirThreadCalls;

/** Runs request work where the subgraph runs it: its job thread, or in place where it has none. */
export type FhirOffload = <N extends FhirCallName>(name: N, payload: FhirThreadCalls[N][0]) => Promise<FhirThreadCalls[N][1]>;

export const FHIR_CALL_NAMES: readonly FhirCallName[] = ['submit-claims', 'eligibility', 'claim-status', 'check-submission'];

/** Do one piece of request work on an entity manager of the caller's (the job thread's, or the subgraph's in place). */
export function runFhirCall<N extends FhirCallName>(fork: () => EntityManager, config: Config, name: N, payload: FhirThreadCalls[N][0]): Promise<FhirThreadCalls[N][1]> {
  const fhirBase = `${config.publicUrl}/fhir/R4`;
  if (name === 'check-submission') return Promise.resolve(checkSubmission(payload as SubmissionToCheck, fhirBase));
  const c = payload as ClearinghouseCall;
  const call = { em: fork(), principal: c.principal, requestId: c.requestId, source: null, fhirBase };
  const at = new Date(c.at);
  const run = name === 'submit-claims' ? submitClaims : name === 'eligibility' ? checkEligibility : claimStatus;
  return run(call, c.input, at) as Promise<FhirThreadCalls[N][1]>;
}

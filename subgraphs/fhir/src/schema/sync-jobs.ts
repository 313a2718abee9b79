import { DomainError, isSourceOrigin, type SubgraphBuilder, type SubgraphContext, type SubgraphServices } from '@svc/platform';
import type { FhirCall } from '../domain/interactions.js';
import { submitSyncJob, syncJobStatus, type SyncJobStatus } from '../domain/sync-submission.js';
import type { FhirOffload } from '../jobs.js';

/** Lets a submission wake this process's sync worker (set once the worker runs). */
export interface SyncWakeup {
  wake?: () => void;
}

/**
 * Asynchronous submissions as gateway operations: `POST /fhir/R4` with `Prefer: respond-async` (a
 * batch or transaction Bundle) or with an NDJSON body, and the status URL `/fhir/R4/$sync-status/{jobId}`.
 */
export function defineSyncJobs(builder: SubgraphBuilder, services: SubgraphServices, wakeup: SyncWakeup, offload: FhirOffload) {
  const fhirBase = `${services.runtime.config.publicUrl}/fhir/R4`;
  const call = (ctx: SubgraphContext, source?: string | null): FhirCall => {
    if (source !== undefined && source !== null && !isSourceOrigin(source)) {
      throw new DomainError('INVALID_SOURCE_HEADER', 'The X-Svc-Source header must be one of the 8 source origins.', { details: { header: 'X-Svc-Source' } });
    }
    return { em: ctx.em, principal: ctx.principal, requestId: ctx.requestId, source: source ?? null, fhirBase };
  };

  const Accepted = builder.objectRef<{ jobId: string; statusUrl: string }>('FhirSyncAccepted').implement({
    description: 'An accepted asynchronous submission: its sync job and where to poll it.',
    fields: (t) => ({
      jobId: t.exposeID('jobId', { description: 'job_…; the pipeline reports it in pipeline.sync.* events and SyncJob.' }),
      statusUrl: t.exposeString('statusUrl', { description: 'Content-Location of the 202: …/fhir/R4/$sync-status/{jobId}.' }),
    }),
  });
  const Status = builder.objectRef<SyncJobStatus>('FhirSyncStatus').implement({
    description: 'Where an asynchronous submission stands (FHIR asynchronous request pattern).',
    fields: (t) => ({
      jobId: t.exposeID('jobId'),
      state: t.exposeString('state', { description: 'in-progress, completed or failed.' }),
      progress: t.exposeString('progress', { nullable: true, description: 'X-Progress while in progress.' }),
      httpStatus: t.exposeInt('httpStatus', { nullable: true, description: 'When finished: 200, or the refused transaction’s own status (422, 404, 412…), or 500 after the retries.' }),
      body: t.field({ type: 'JSONObject', nullable: true, description: 'When finished: the transaction-response / batch-response Bundle, or an OperationOutcome.', resolve: (s) => s.body }),
      bodyText: t.string({ nullable: true, description: 'The same as `body`, as JSON text with numbers exactly as written.', resolve: (s) => s.bodyText }),
    }),
  });

  builder.queryFields((t) => ({
    fhirSyncStatus: t.field({
      type: Status,
      description: "One of the caller's partner's asynchronous submissions (any other is NOT_FOUND, like a missing one).",
      authScopes: { authenticated: true },
      args: { jobId: t.arg.id({ required: true }) },
      resolve: (_r, a, ctx) => syncJobStatus(call(ctx), String(a.jobId)),
    }),
  }));

  builder.mutationFields((t) => ({
    fhirSyncSubmit: t.field({
      type: Accepted,
      description:
        'Submit a batch or transaction Bundle (`bundle`) or an NDJSON push (`ndjson`: one resource per line, created without `id`, updated with one) as a durable sync job; answers at once. Needs cms.fhir.bundle.push or system/*.write, and each entry its own interaction scope.',
      authScopes: { authenticated: true },
      args: {
        bundle: t.arg({ type: 'JSONObject', description: 'The Bundle as JSON (or `bundleText`).' }),
        bundleText: t.arg.string({ description: 'The Bundle as JSON text, numbers kept exactly as written (or `bundle`).' }),
        ndjson: t.arg.string(),
        returnResources: t.arg.boolean({ defaultValue: true, description: 'false for Prefer: return=minimal' }),
        source: t.arg.string(),
      },
      resolve: async (_r, a, ctx) => {
        const hasBundle = (a.bundle !== undefined && a.bundle !== null) || (a.bundleText !== undefined && a.bundleText !== null);
        const hasNdjson = a.ndjson !== undefined && a.ndjson !== null;
        if (hasBundle === hasNdjson) {
          throw new DomainError('BAD_REQUEST', 'Send exactly one of bundle and ndjson.', { fieldErrors: [{ field: hasBundle ? 'ndjson' : 'bundle', message: 'exactly one of bundle and ndjson is required' }] });
        }
        const submission = a.ndjson !== undefined && a.ndjson !== null ? { ndjson: a.ndjson } : a.bundleText !== undefined && a.bundleText !== null ? { bundleText: a.bundleText } : { bundle: a.bundle };
        const accepted = await submitSyncJob(call(ctx, a.source), () => offload('check-submission', submission), { returnResources: a.returnResources ?? true, limits: services.runtime.config.fhirSync });
        services.publishCommitted();
        wakeup.wake?.();
        return accepted;
      },
    }),
  }));
}

import { actsFor, DomainError, loaderFor, type SubgraphBuilder, type SubgraphContext, type SubgraphServices } from '@svc/platform';
import { syncJobs } from '../entities/sync-jobs.js';
import { SYNC_JOB_STATUSES, type SyncJob } from '../entities/sync-job.js';
import { completeSyncJob, failSyncJob, queueSyncJob } from '../domain/sync-job-lifecycle.js';

const JOBS_PER_PARTNER = 20;

/** May this principal see or drive this partner's pipeline? */
function assertPipelineAccess(ctx: SubgraphContext, partnerGpid: string): void {
  if (!actsFor(ctx.principal, partnerGpid)) throw new DomainError('FORBIDDEN', "Another partner's pipeline is not visible to this credential.");
}

/** The Partner entity as the pipeline sees it: a key to extend. */
export function partnerRef(builder: SubgraphBuilder) {
  return builder.externalRef('Partner', builder.selection<{ gpid: string }>('gpid'));
}
export type PartnerRef = ReturnType<typeof partnerRef>;

/** SyncJob, the Partner extension with its jobs, and the job lifecycle mutations. */
export function defineSyncJob(builder: SubgraphBuilder, services: SubgraphServices, PartnerRef: PartnerRef) {
  const Status = builder.enumType('SyncJobStatus', {
    description: 'queued → running → completed | failed, with retrying between attempts.',
    values: Object.fromEntries(SYNC_JOB_STATUSES.map((s) => [s.toUpperCase(), { value: s }])) as Record<string, { value: (typeof SYNC_JOB_STATUSES)[number] }>,
  });

  const SyncJobType = builder.objectRef<SyncJob>('SyncJob').implement({
    description: 'A FHIR or batch sync job. It ends with pipeline.sync.completed or pipeline.sync.failed.',
    fields: (t) => ({
      jobId: t.exposeID('id', { description: 'job_…' }),
      partnerGpid: t.exposeID('partnerGpid'),
      partner: t.field({ type: PartnerRef, resolve: (j) => ({ gpid: j.partnerGpid }) }),
      resourceTypes: t.exposeStringList('resourceTypes'),
      status: t.field({ type: Status, resolve: (j) => j.status }),
      recordsProcessed: t.exposeInt('recordsProcessed'),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true }),
      failedAt: t.expose('failedAt', { type: 'DateTime', nullable: true }),
      errorCode: t.exposeString('errorCode', { nullable: true }),
      message: t.exposeString('message', { nullable: true }),
    }),
  });
  builder.asEntity(SyncJobType, {
    key: builder.selection<{ jobId: string }>('jobId'),
    // Another partner's job resolves like a missing one.
    resolveReference: async (ref, ctx) => {
      const job = await syncJobs.byId(ctx.em, ref.jobId);
      return job && actsFor(ctx.principal, job.partnerGpid) ? job : null;
    },
  });

  PartnerRef.implement({
    fields: (t) => ({
      gpid: t.exposeID('gpid'),
      syncJobs: t.field({
        type: [SyncJobType],
        description: `The partner's newest sync jobs (up to ${JOBS_PER_PARTNER}).`,
        authScopes: { anyScope: ['cms.pipeline.read', 'cms.admin'] },
        resolve: (partner, _args, ctx) => {
          assertPipelineAccess(ctx, partner.gpid);
          return loaderFor<string, SyncJob[]>(ctx, 'syncJobsByPartner', (gpids) => syncJobs.newestByPartners(ctx.em, gpids, JOBS_PER_PARTNER)).load(partner.gpid);
        },
      }),
    }),
  });

  builder.queryFields((t) => ({
    syncJob: t.field({
      type: SyncJobType,
      nullable: true,
      args: { jobId: t.arg.id({ required: true }) },
      authScopes: { anyScope: ['cms.pipeline.read', 'cms.admin'] },
      description: "One sync job of your partner (operators: any). Another partner's job answers null, exactly like a missing one.",
      resolve: async (_root, { jobId }, ctx) => {
        const job = await syncJobs.byId(ctx.em, String(jobId));
        return job && actsFor(ctx.principal, job.partnerGpid) ? job : null;
      },
    }),
  }));

  const loadJob = async (ctx: SubgraphContext, jobId: string) => {
    const job = await syncJobs.byId(ctx.em, jobId);
    // Another partner's job is NOT_FOUND like a missing one.
    if (!job || !actsFor(ctx.principal, job.partnerGpid)) throw new DomainError('NOT_FOUND', `Sync job ${jobId} does not exist.`);
    return job;
  };
  const commit = async <T>(ctx: SubgraphContext, work: () => T | Promise<T>): Promise<T> => {
    const result = await work();
    await ctx.em.flush();
    services.publishCommitted();
    return result;
  };

  builder.mutationFields((t) => ({
    createSyncJob: t.field({
      type: SyncJobType,
      description: 'Queue a sync job for a partner (operators, or the partner itself).',
      args: { partnerGpid: t.arg.id({ required: true }), resourceTypes: t.arg.stringList({ required: true }) },
      authScopes: { anyScope: ['cms.fhir.bundle.push', 'cms.admin'] },
      resolve: (_root, args, ctx) => {
        assertPipelineAccess(ctx, String(args.partnerGpid));
        return commit(ctx, () => queueSyncJob(ctx.em, String(args.partnerGpid), args.resourceTypes));
      },
    }),
    completeSyncJob: t.field({
      type: SyncJobType,
      description: 'Mark a job completed; emits pipeline.sync.completed.',
      args: { jobId: t.arg.id({ required: true }), recordsProcessed: t.arg.int({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const job = await loadJob(ctx, String(args.jobId));
        return commit(ctx, () => (completeSyncJob(ctx.em, job, args.recordsProcessed), job));
      },
    }),
    failSyncJob: t.field({
      type: SyncJobType,
      description: 'Mark a job failed after its retries; emits pipeline.sync.failed.',
      args: { jobId: t.arg.id({ required: true }), errorCode: t.arg.string({ required: true }), message: t.arg.string({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const job = await loadJob(ctx, String(args.jobId));
        return commit(ctx, () => (failSyncJob(ctx.em, job, args.errorCode, args.message), job));
      },
    }),
  }));

}

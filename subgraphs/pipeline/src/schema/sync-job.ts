import { actsFor, coalescedReads, DomainError, knexOf, loaderFor, selectedFieldNames, type SubgraphBuilder, type SubgraphContext, type SubgraphServices } from '@svc/platform';
import { isSyncJobProperty, syncJobs, type SyncJobProperty } from '../entities/sync-jobs.js';
import { SYNC_JOB_STATUSES, type SyncJob } from '../entities/sync-job.js';
import { completeSyncJob, failSyncJob, queueSyncJob } from '../domain/sync-job-lifecycle.js';

const JOBS_PER_PARTNER = 20;

/** The SyncJob fields not named after the property they read (`partner` is the partner's GPID; `__typename` reads none). */
const RENAMED_FIELDS = new Map<string, readonly SyncJobProperty[]>([
  ['__typename', []],
  ['jobId', ['id']],
  ['partner', ['partnerGpid']],
]);

/** What a selection of SyncJob fields reads; undefined (every property) when it names a field that is neither renamed nor a property. */
function propertiesOf(fields: ReadonlySet<string>): SyncJobProperty[] | undefined {
  const properties = new Set<SyncJobProperty>();
  for (const field of fields) {
    const read = RENAMED_FIELDS.get(field) ?? (isSyncJobProperty(field) ? [field] : undefined);
    if (!read) return undefined;
    for (const p of read) properties.add(p);
  }
  return [...properties].sort();
}

/** May this principal see or drive this partner's pipeline? */
function assertPipelineAccess(ctx: SubgraphContext, partnerGpid: string): void {
  if (!actsFor(ctx.principal, partnerGpid)) throw new DomainError('FORBIDDEN', "Another partner's pipeline is not visible to this credential.");
}

/** The Partner entity as the pipeline sees it: a key to extend. */
export function partnerRef(builder: SubgraphBuilder) {
  return builder.externalRef('Partner', builder.selection<{ gpid: string }>('gpid'));
}
export type PartnerRef = ReturnType<typeof partnerRef>;

/**
 * Partners' newest jobs, read for all concurrent requests at once: each key is a selection's
 * properties (`*` for all) and a partner GPID, and a batch reads once per distinct selection.
 */
function newestJobsReader(services: SubgraphServices) {
  const knex = knexOf(services.orm);
  const read = coalescedReads<SyncJob[]>(async (keys) => {
    const bySelection = new Map<string, string[]>();
    for (const key of keys) {
      const [selection, gpid] = key.split('\u001f') as [string, string];
      const gpids = bySelection.get(selection) ?? [];
      if (gpids.length === 0) bySelection.set(selection, gpids);
      gpids.push(gpid);
    }
    const found = new Map<string, SyncJob[]>();
    for (const [selection, gpids] of bySelection) {
      const properties = selection === '*' ? undefined : (selection.split(',').filter(Boolean) as SyncJobProperty[]);
      const jobs = await syncJobs.newestByPartners(knex, gpids, JOBS_PER_PARTNER, properties);
      gpids.forEach((gpid, i) => found.set(`${selection}\u001f${gpid}`, jobs[i]!));
    }
    return found;
  });
  return async (gpids: readonly string[], properties: readonly SyncJobProperty[] | undefined): Promise<SyncJob[][]> => {
    const selection = properties?.join(',') ?? '*';
    const keys = gpids.map((gpid) => `${selection}\u001f${gpid}`);
    const found = await read(keys);
    return keys.map((key) => found.get(key) ?? []);
  };
}

/** SyncJob, the Partner extension with its jobs, and the job lifecycle mutations. */
export function defineSyncJob(builder: SubgraphBuilder, services: SubgraphServices, PartnerRef: PartnerRef) {
  const newestJobs = newestJobsReader(services);
  const Status = builder.enumType('SyncJobStatus', {
    description: 'queued → running → completed | failed; running → retrying → running after a transient failure; running → queued when a worker gives the job back.',
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
      recordsProcessed: t.exposeInt('recordsProcessed', { description: 'Records written (known once the job completed).' }),
      kind: t.exposeString('kind', { nullable: true, description: 'transaction, batch or ndjson (an asynchronous FHIR submission), or external (recorded by an operator).' }),
      entries: t.exposeInt('entries', { nullable: true, description: 'Bundle entries or NDJSON lines the job carries.' }),
      attempts: t.exposeInt('attempts', { description: 'Attempts started so far (a transient failure is retried with backoff).' }),
      createdAt: t.expose('createdAt', { type: 'DateTime' }),
      startedAt: t.expose('startedAt', { type: 'DateTime', nullable: true, description: 'When the first attempt started.' }),
      updatedAt: t.expose('updatedAt', { type: 'DateTime', nullable: true, description: 'Last change of state.' }),
      nextAttemptAt: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true, description: 'While retrying: when the next attempt starts.' }),
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
        resolve: (partner, _args, ctx, info) => {
          assertPipelineAccess(ctx, partner.gpid);
          // Only the columns the selection reads; one batch per distinct selection.
          const properties = propertiesOf(selectedFieldNames(info));
          return loaderFor<string, SyncJob[]>(ctx, `syncJobsByPartner:${properties?.join(',') ?? '*'}`, (gpids) => newestJobs(gpids, properties)).load(partner.gpid);
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
    // Jobs the FHIR server runs follow their own events; only jobs recorded by hand are finished by hand.
    if (job.kind !== 'external') throw new DomainError('CONFLICT', `Sync job ${jobId} is run by the FHIR server; its state follows its pipeline.sync.* events.`);
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
      description: 'Record a sync job run by an external pipeline (kind external), for operators or the partner itself; asynchronous FHIR submissions create their jobs themselves.',
      args: { partnerGpid: t.arg.id({ required: true }), resourceTypes: t.arg.stringList({ required: true }) },
      authScopes: { anyScope: ['cms.fhir.bundle.push', 'cms.admin'] },
      resolve: (_root, args, ctx) => {
        assertPipelineAccess(ctx, String(args.partnerGpid));
        return commit(ctx, () => queueSyncJob(ctx.em, String(args.partnerGpid), args.resourceTypes));
      },
    }),
    completeSyncJob: t.field({
      type: SyncJobType,
      description: 'Mark an external job completed; emits pipeline.sync.completed (CONFLICT for a job the FHIR server runs).',
      args: { jobId: t.arg.id({ required: true }), recordsProcessed: t.arg.int({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const job = await loadJob(ctx, String(args.jobId));
        return commit(ctx, () => (completeSyncJob(ctx.em, job, args.recordsProcessed), job));
      },
    }),
    failSyncJob: t.field({
      type: SyncJobType,
      description: 'Mark an external job failed after its retries; emits pipeline.sync.failed (CONFLICT for a job the FHIR server runs).',
      args: { jobId: t.arg.id({ required: true }), errorCode: t.arg.string({ required: true }), message: t.arg.string({ required: true }) },
      authScopes: { scope: 'cms.admin' },
      resolve: async (_root, args, ctx) => {
        const job = await loadJob(ctx, String(args.jobId));
        return commit(ctx, () => (failSyncJob(ctx.em, job, args.errorCode, args.message), job));
      },
    }),
  }));

}

import { actsFor, DomainError, isOperator, type SubgraphBuilder } from '@svc/platform';
import { syncJobs } from '../entities/sync-jobs.js';

interface Health {
  status: 'healthy' | 'degraded' | 'idle';
  windowHours: number;
  jobsCompleted: number;
  jobsFailed: number;
  jobsInFlight: number;
  jobsStuck: number;
  successRate: number | null;
}

/** A queued or running job that has not changed for this long is stuck (no worker is moving it). */
const STUCK_AFTER_MS = 15 * 60_000;

const WINDOW_HOURS = 24;

/** Pipeline health: job outcomes over the last 24 hours, for one partner or the whole platform. */
export function definePipelineHealth(builder: SubgraphBuilder) {
  const HealthType = builder.objectRef<Health>('PipelineHealth').implement({
    description: 'Sync outcomes over a trailing window. degraded when more than 5% of finished jobs failed or a job is stuck.',
    fields: (t) => ({
      status: t.exposeString('status', { description: 'healthy, degraded or idle (no finished job in the window).' }),
      windowHours: t.exposeInt('windowHours'),
      jobsCompleted: t.exposeInt('jobsCompleted'),
      jobsFailed: t.exposeInt('jobsFailed'),
      jobsInFlight: t.exposeInt('jobsInFlight'),
      jobsStuck: t.exposeInt('jobsStuck', { description: 'Queued or running jobs unchanged for 15 minutes (no worker is moving them).' }),
      successRate: t.exposeFloat('successRate', { nullable: true, description: 'completed / (completed + failed); null when idle.' }),
    }),
  });

  builder.queryFields((t) => ({
    pipelineHealth: t.field({
      type: HealthType,
      description: "Your partner's pipeline health; operators may name any partner or omit it for the platform.",
      args: { partnerGpid: t.arg.id() },
      authScopes: { anyScope: ['cms.pipeline.read', 'cms.admin'] },
      resolve: async (_root, args, ctx): Promise<Health> => {
        const gpid = args.partnerGpid ? String(args.partnerGpid) : isOperator(ctx.principal) ? null : ctx.principal.partnerGpid;
        if (gpid && !actsFor(ctx.principal, gpid)) throw new DomainError('FORBIDDEN', "Another partner's pipeline is not visible to this credential.");
        const counts = await syncJobs.countsSince(ctx.em, new Date(Date.now() - WINDOW_HOURS * 3600_000), gpid);
        const completed = counts['completed'] ?? 0;
        const failed = counts['failed'] ?? 0;
        const finished = completed + failed;
        const successRate = finished === 0 ? null : completed / finished;
        const stuck = await syncJobs.stuckSince(ctx.em, new Date(Date.now() - STUCK_AFTER_MS), gpid);
        return {
          status: stuck > 0 ? 'degraded' : successRate === null ? 'idle' : successRate >= 0.95 ? 'healthy' : 'degraded',
          jobsStuck: stuck,
          windowHours: WINDOW_HOURS,
          jobsCompleted: completed,
          jobsFailed: failed,
          jobsInFlight: (counts['queued'] ?? 0) + (counts['running'] ?? 0) + (counts['retrying'] ?? 0),
          successRate,
        };
      },
    }),
  }));
}

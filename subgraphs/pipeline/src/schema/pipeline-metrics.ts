import { actsFor, DomainError, loaderFor, type SubgraphBuilder } from '@svc/platform';
import { syncJobs } from '../entities/sync-jobs.js';
import { DEFAULT_WINDOW, METRIC_WINDOWS, parseWindow, summarizeMetrics, type PartnerPipelineMetrics } from '../domain/pipeline-metrics.js';
import type { PartnerRef } from './sync-job.js';

/** Partner.pipelineMetrics(window): the GraphQL twin of GET /cms/pipeline/partners. */
export function definePipelineMetrics(builder: SubgraphBuilder, partnerRef: PartnerRef) {
  const ErrorCount = builder.objectRef<{ code: string; count: number }>('PipelineErrorCount').implement({
    description: 'How many failed jobs of the window ended with one error_code.',
    fields: (t) => ({ code: t.exposeString('code'), count: t.exposeInt('count') }),
  });
  const Metrics = builder.objectRef<PartnerPipelineMetrics>('PartnerPipelineMetrics').implement({
    description: "A partner's sync jobs over a trailing window (jobs created in it), from the stored jobs.",
    fields: (t) => ({
      window: t.exposeString('window', { description: `${Object.keys(METRIC_WINDOWS).join(', ')}.` }),
      since: t.expose('since', { type: 'DateTime', description: 'Start of the window.' }),
      jobsTotal: t.exposeInt('jobsTotal'),
      jobsCompleted: t.exposeInt('jobsCompleted'),
      jobsFailed: t.exposeInt('jobsFailed'),
      jobsInFlight: t.exposeInt('jobsInFlight', { description: 'Queued, running or waiting for a retry.' }),
      recordsProcessed: t.exposeInt('recordsProcessed', { description: 'Records of the jobs completed in the window.' }),
      successRate: t.exposeFloat('successRate', { nullable: true, description: 'completed / (completed + failed); null when none finished.' }),
      lastCompletedAt: t.expose('lastCompletedAt', { type: 'DateTime', nullable: true, description: 'Last completed job of all time.' }),
      lastFailedAt: t.expose('lastFailedAt', { type: 'DateTime', nullable: true, description: 'Last failed job of all time.' }),
      errorCodes: t.field({ type: [ErrorCount], description: 'error_code of the failed jobs, most frequent first.', resolve: (m) => m.errorCodes }),
    }),
  });

  builder.objectFields(partnerRef, (t) => ({
    pipelineMetrics: t.field({
      type: Metrics,
      description: `Sync-job metrics over a window (${Object.keys(METRIC_WINDOWS).join(', ')}; default ${DEFAULT_WINDOW}).`,
      args: { window: t.arg.string({ defaultValue: DEFAULT_WINDOW }) },
      authScopes: { anyScope: ['cms.pipeline.read', 'cms.admin'] },
      resolve: (partner, args, ctx) => {
        if (!actsFor(ctx.principal, partner.gpid)) throw new DomainError('FORBIDDEN', "Another partner's pipeline is not visible to this credential.");
        const window = parseWindow(args.window);
        // The window's start is fixed once per request, so every partner of a page is measured alike.
        const since = new Date(Math.floor((Date.now() - METRIC_WINDOWS[window]) / 1000) * 1000);
        return loaderFor<string, PartnerPipelineMetrics>(ctx, `pipelineMetrics:${window}`, async (gpids) =>
          (await syncJobs.metricsByPartners(ctx.em, gpids, since)).map((m) => summarizeMetrics(window, since, m)),
        ).load(partner.gpid);
      },
    }),
  }));
}

import { knexOf, actsFor, DependencyUnavailable, DomainError, isOperator, PROBE_TIMEOUT_MS, withTimeout, type ConsumerLag, type SubgraphBuilder, type SubgraphServices } from '@svc/platform';
import { syncJobs } from '../entities/sync-jobs.js';
import { webhookStore } from '../entities/webhook-store.js';
import {
  assessConsumer,
  assessWebhooks,
  HEALTH_THRESHOLDS,
  overallStatus,
  PIPELINE_CONSUMERS,
  type ConsumerHealth,
  type WebhookDeliveryHealth,
} from '../domain/pipeline-health.js';

interface EventStreamHealth {
  mode: 'embedded-outbox' | 'redis-streams';
  status: 'up' | 'down';
}

interface Health {
  status: 'healthy' | 'degraded' | 'idle';
  reasons: string[];
  database: 'up';
  eventStream: EventStreamHealth;
  consumers: ConsumerHealth[];
  webhooks: WebhookDeliveryHealth;
  windowHours: number;
  jobsCompleted: number;
  jobsFailed: number;
  jobsInFlight: number;
  jobsStuck: number;
  successRate: number | null;
}

const WINDOW_HOURS = 24;

/**
 * Pipeline health: its database, the event stream, the lag of each durable consumer, webhook
 * delivery, and job outcomes over the last 24 hours, for one partner or the whole platform.
 */
export function definePipelineHealth(builder: SubgraphBuilder, services: SubgraphServices) {
  const StreamType = builder.objectRef<EventStreamHealth>('PipelineEventStreamHealth').implement({
    fields: (t) => ({
      mode: t.exposeString('mode', { description: 'embedded-outbox (SQLite, one process) or redis-streams (distributed).' }),
      status: t.exposeString('status', { description: 'up, or down when the stream could not be read (Redis unreachable).' }),
    }),
  });
  const ConsumerType = builder.objectRef<ConsumerHealth>('PipelineConsumerHealth').implement({
    description: `A durable event consumer. degraded when more than ${HEALTH_THRESHOLDS.consumerMaxUnacknowledged} events wait or the oldest waits for more than ${HEALTH_THRESHOLDS.consumerMaxAgeMs / 1000} s.`,
    fields: (t) => ({
      name: t.exposeString('name'),
      status: t.exposeString('status', { description: 'healthy, degraded, or unknown when the stream could not be read.' }),
      unacknowledged: t.exposeInt('unacknowledged', { nullable: true, description: 'Events appended and not yet acknowledged by this consumer.' }),
      oldestAgeSeconds: t.exposeFloat('oldestAgeSeconds', { nullable: true, description: 'Age of the oldest unacknowledged event; null when none.' }),
    }),
  });
  const WebhooksType = builder.objectRef<WebhookDeliveryHealth>('PipelineWebhookHealth').implement({
    description: `Webhook delivery. degraded when more than ${HEALTH_THRESHOLDS.webhookMaxPending} deliveries wait, the oldest waits for more than an hour, or more than ${HEALTH_THRESHOLDS.webhookMaxFailureRate * 100}% of the window's attempts failed.`,
    fields: (t) => ({
      status: t.exposeString('status'),
      pending: t.exposeInt('pending', { description: 'Deliveries waiting (first attempt or a retry) or being sent.' }),
      due: t.exposeInt('due', { description: 'Waiting deliveries whose attempt is due now.' }),
      oldestPendingAgeSeconds: t.exposeFloat('oldestPendingAgeSeconds', { nullable: true }),
      windowMinutes: t.exposeInt('windowMinutes'),
      attempts: t.exposeInt('attempts', { description: 'Attempts made in the window.' }),
      failedAttempts: t.exposeInt('failedAttempts', { description: 'Attempts in the window without a 2xx answer.' }),
      failureRate: t.exposeFloat('failureRate', { nullable: true, description: 'failedAttempts / attempts; null without attempts.' }),
    }),
  });
  const HealthType = builder.objectRef<Health>('PipelineHealth').implement({
    description: 'The pipeline and its dependencies. degraded when the event stream is down, a consumer is behind, webhook delivery is degraded, a job is stuck, or more than 5% of finished jobs failed.',
    fields: (t) => ({
      status: t.exposeString('status', { description: 'healthy, degraded or idle (nothing degraded and no finished job in the window).' }),
      reasons: t.exposeStringList('reasons', { description: 'Why the status is degraded; empty otherwise.' }),
      database: t.exposeString('database', { description: "The pipeline's database: up (when it is down the request fails with UPSTREAM_UNAVAILABLE)." }),
      eventStream: t.expose('eventStream', { type: StreamType }),
      consumers: t.expose('consumers', { type: [ConsumerType] }),
      webhooks: t.expose('webhooks', { type: WebhooksType }),
      windowHours: t.exposeInt('windowHours'),
      jobsCompleted: t.exposeInt('jobsCompleted'),
      jobsFailed: t.exposeInt('jobsFailed'),
      jobsInFlight: t.exposeInt('jobsInFlight'),
      jobsStuck: t.exposeInt('jobsStuck', { description: 'Queued or running jobs unchanged for 15 minutes (no worker is moving them).' }),
      successRate: t.exposeFloat('successRate', { nullable: true, description: 'completed / (completed + failed); null when idle.' }),
    }),
  });

  const { orm, runtime } = services;
  const databaseUp = async (): Promise<boolean> => {
    return withTimeout(knexOf(orm).raw('select 1').then(() => true, () => false), PROBE_TIMEOUT_MS, false);
  };
  const lagOf = (name: string): Promise<ConsumerLag | null> =>
    withTimeout(runtime.stream.lag(name).catch(() => null), PROBE_TIMEOUT_MS, null);

  builder.queryFields((t) => ({
    pipelineHealth: t.field({
      type: HealthType,
      description: "Your partner's pipeline health; operators may name any partner or omit it for the platform.",
      args: { partnerGpid: t.arg.id() },
      authScopes: { anyScope: ['cms.pipeline.read', 'cms.admin'] },
      resolve: async (_root, args, ctx): Promise<Health> => {
        const gpid = args.partnerGpid ? String(args.partnerGpid) : isOperator(ctx.principal) ? null : ctx.principal.partnerGpid;
        if (gpid && !actsFor(ctx.principal, gpid)) throw new DomainError('FORBIDDEN', "Another partner's pipeline is not visible to this credential.");
        if (!(await databaseUp())) {
          const down = new DependencyUnavailable('database:pipeline');
          runtime.health?.down('database:pipeline', down);
          throw down;
        }
        const now = new Date();
        const [counts, stuck, deliveries, lags] = await Promise.all([
          syncJobs.countsSince(ctx.em, new Date(now.getTime() - WINDOW_HOURS * 3600_000), gpid),
          syncJobs.stuckSince(ctx.em.fork(), new Date(now.getTime() - HEALTH_THRESHOLDS.jobStuckMs), gpid),
          webhookStore.deliveryHealth(ctx.em.fork(), new Date(now.getTime() - HEALTH_THRESHOLDS.webhookWindowMs), now, gpid),
          Promise.all(PIPELINE_CONSUMERS.map(lagOf)),
        ]);
        const completed = counts['completed'] ?? 0;
        const failed = counts['failed'] ?? 0;
        const finished = completed + failed;
        const successRate = finished === 0 ? null : completed / finished;
        const streamUp = lags.every((l) => l !== null);
        const consumers = PIPELINE_CONSUMERS.map((name, i) => assessConsumer(name, lags[i] ?? null));
        const webhooks = assessWebhooks(deliveries, now);
        return {
          ...overallStatus({ streamUp, consumers, webhooks, jobsStuck: stuck, successRate }),
          database: 'up',
          eventStream: { mode: runtime.config.redisUrl ? 'redis-streams' : 'embedded-outbox', status: streamUp ? 'up' : 'down' },
          consumers,
          webhooks,
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

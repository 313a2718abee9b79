import { describe, expect, it } from 'vitest';
import { assessConsumer, assessWebhooks, HEALTH_THRESHOLDS, overallStatus } from './pipeline-health.js';

const quiet = { pending: 0, due: 0, oldestPendingAt: null, attempts: 10, failedAttempts: 0 };

describe('pipeline health thresholds', () => {
  it('marks a consumer behind by count or by the age of its oldest event (a stopped consumer), unknown without a reading', () => {
    expect(assessConsumer('event-log', { consumer: 'event-log', unacknowledged: 3, oldestAgeMs: 500 }).status).toBe('healthy');
    expect(assessConsumer('event-log', { consumer: 'event-log', unacknowledged: HEALTH_THRESHOLDS.consumerMaxUnacknowledged + 1, oldestAgeMs: 10 }).status).toBe('degraded');
    expect(assessConsumer('webhooks', { consumer: 'webhooks', unacknowledged: 1, oldestAgeMs: HEALTH_THRESHOLDS.consumerMaxAgeMs + 1 })).toEqual({ name: 'webhooks', status: 'degraded', unacknowledged: 1, oldestAgeSeconds: 60 });
    expect(assessConsumer('sync-jobs', null)).toEqual({ name: 'sync-jobs', status: 'unknown', unacknowledged: null, oldestAgeSeconds: null });
  });

  it('marks webhook delivery degraded by backlog size, oldest pending age or failure rate', () => {
    const now = new Date('2026-01-01T12:00:00Z');
    expect(assessWebhooks(quiet, now).status).toBe('healthy');
    expect(assessWebhooks({ ...quiet, pending: HEALTH_THRESHOLDS.webhookMaxPending + 1 }, now).status).toBe('degraded');
    expect(assessWebhooks({ ...quiet, pending: 1, oldestPendingAt: new Date(now.getTime() - HEALTH_THRESHOLDS.webhookMaxPendingAgeMs - 1) }, now).status).toBe('degraded');
    expect(assessWebhooks({ ...quiet, failedAttempts: 2 }, now)).toMatchObject({ status: 'healthy', failureRate: 0.2 });
    expect(assessWebhooks({ ...quiet, failedAttempts: 3 }, now)).toMatchObject({ status: 'degraded', failureRate: 0.3 });
  });

  it('is degraded with the reasons, else idle without finished jobs, else healthy', () => {
    const webhooks = assessWebhooks(quiet, new Date());
    const healthy = assessConsumer('event-log', { consumer: 'event-log', unacknowledged: 0, oldestAgeMs: null });
    const stopped = assessConsumer('sync-jobs', { consumer: 'sync-jobs', unacknowledged: 5, oldestAgeMs: 120_000 });
    expect(overallStatus({ streamUp: true, consumers: [healthy], webhooks, jobsStuck: 0, successRate: null })).toEqual({ status: 'idle', reasons: [] });
    expect(overallStatus({ streamUp: true, consumers: [healthy], webhooks, jobsStuck: 0, successRate: 1 })).toEqual({ status: 'healthy', reasons: [] });
    expect(overallStatus({ streamUp: false, consumers: [healthy, stopped], webhooks, jobsStuck: 1, successRate: 0.5 })).toEqual({
      status: 'degraded',
      reasons: ['event stream unreachable', 'consumer sync-jobs behind', 'sync jobs stuck', 'sync job failure rate'],
    });
  });
});

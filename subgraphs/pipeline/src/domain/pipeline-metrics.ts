import { validationError } from '@svc/platform';
import type { PartnerJobMetrics } from '../entities/sync-jobs.js';

/** The windows per-partner metrics can be asked over (`?window=` on REST, `window:` on GraphQL). */
export const METRIC_WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;
export type MetricWindow = keyof typeof METRIC_WINDOWS;
export const DEFAULT_WINDOW: MetricWindow = '24h';

/** A window name, or a VALIDATION_ERROR naming `field`. */
export function parseWindow(value: string | null | undefined, field = 'window'): MetricWindow {
  if (value === null || value === undefined) return DEFAULT_WINDOW;
  if (!Object.hasOwn(METRIC_WINDOWS, value)) throw validationError([{ field, message: `must be one of ${Object.keys(METRIC_WINDOWS).join(', ')}` }], `${field} must be one of ${Object.keys(METRIC_WINDOWS).join(', ')}.`);
  return value as MetricWindow;
}

/** One partner's pipeline over a window, from its stored sync jobs. */
export interface PartnerPipelineMetrics {
  window: MetricWindow;
  since: Date;
  jobsTotal: number;
  jobsCompleted: number;
  jobsFailed: number;
  /** Queued, running or waiting for a retry. */
  jobsInFlight: number;
  /** Records of the jobs completed in the window. */
  recordsProcessed: number;
  /** completed / (completed + failed); null when no job finished in the window. */
  successRate: number | null;
  /** Of all time, not only the window. */
  lastCompletedAt: Date | null;
  lastFailedAt: Date | null;
  /** error_code of the failed jobs in the window, most frequent first. */
  errorCodes: { code: string; count: number }[];
}

export function summarizeMetrics(window: MetricWindow, since: Date, m: PartnerJobMetrics): PartnerPipelineMetrics {
  const count = (status: string) => m.byStatus[status] ?? 0;
  const completed = count('completed');
  const failed = count('failed');
  const finished = completed + failed;
  return {
    window,
    since,
    jobsTotal: Object.values(m.byStatus).reduce((a, b) => a + b, 0),
    jobsCompleted: completed,
    jobsFailed: failed,
    jobsInFlight: count('queued') + count('running') + count('retrying'),
    recordsProcessed: m.recordsCompleted,
    successRate: finished === 0 ? null : completed / finished,
    lastCompletedAt: m.lastCompletedAt,
    lastFailedAt: m.lastFailedAt,
    errorCodes: m.errorCodes,
  };
}

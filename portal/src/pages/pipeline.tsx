import { useEffect } from 'preact/hooks';
import { subscribe } from '../api.js';
import type { Viewer } from '../main.js';
import { BarChart, UsageChart, type UsageCounter } from '../charts.js';
import { Loading, Page, useQuery, when } from '../ui.js';

const QUERY = /* GraphQL */ `query Pipeline($gpid: ID!) { partner(gpid: $gpid) {
  day: pipelineMetrics(window: "24h") { jobsTotal jobsCompleted jobsFailed jobsInFlight recordsProcessed successRate errorCodes { code count } }
  week: pipelineMetrics(window: "7d") { jobsTotal jobsCompleted jobsFailed jobsInFlight recordsProcessed successRate errorCodes { code count } }
  syncJobs { jobId resourceTypes status recordsProcessed attempts createdAt completedAt failedAt errorCode message }
} }`;
const LIVE = /* GraphQL */ `subscription PipelineEvents { events { id type } }`;
const USAGE = /* GraphQL */ `query RateLimitUsage($gpid: ID!) { partner(gpid: $gpid) { rateLimitUsage { enforced counters { policy name product limit windowSeconds used remaining resetsAt } } } }`;
/** Events come in bursts (a sync job emits several); the page re-reads at most this often. */
const LIVE_RELOAD_MS = 1500;

interface Metrics { jobsTotal: number; jobsCompleted: number; jobsFailed: number; jobsInFlight: number; recordsProcessed: number; successRate: number | null; errorCodes: { code: string; count: number }[] }
interface Job { jobId: string; resourceTypes: string[]; status: string; recordsProcessed: number; attempts: number; createdAt: string; completedAt: string | null; failedAt: string | null; errorCode: string | null; message: string | null }

function MetricsBlock({ title, m }: { title: string; m: Metrics }) {
  return (
    <div class="metrics">
      <h2>{title}</h2>
      <p>Success rate: <strong>{m.successRate === null ? '—' : `${Math.round(m.successRate * 1000) / 10} %`}</strong> · records processed: {m.recordsProcessed}</p>
      <BarChart title={`Sync jobs, ${title}`} bars={[{ label: 'Completed', value: m.jobsCompleted, tone: 'ok' }, { label: 'Failed', value: m.jobsFailed, tone: 'bad' }, { label: 'In flight', value: m.jobsInFlight }]} />
      {m.errorCodes.length > 0 && <BarChart title={`Data-quality errors, ${title}`} bars={m.errorCodes.map((e) => ({ label: e.code, value: e.count, tone: 'bad' }))} />}
    </div>
  );
}

export function PipelinePage({ viewer }: { viewer: Viewer }) {
  const state = useQuery<{ partner: { day: Metrics; week: Metrics; syncJobs: Job[] } | null }>(QUERY, { gpid: viewer.partnerGpid });
  const usage = useQuery<{ partner: { rateLimitUsage: { enforced: boolean; counters: UsageCounter[] } } | null }>(USAGE, { gpid: viewer.partnerGpid });
  // Sync jobs update live: pipeline events of the partner re-read the page's data, a burst once.
  useEffect(() => {
    let pending: ReturnType<typeof setTimeout> | null = null;
    const unsubscribe = subscribe<{ events: { type: string } }>(LIVE, {}, (d) => {
      if (!d.events.type.startsWith('pipeline.') || pending) return;
      pending = setTimeout(() => {
        pending = null;
        state.reload();
      }, LIVE_RELOAD_MS);
    });
    return () => {
      if (pending) clearTimeout(pending);
      unsubscribe();
    };
  }, []);
  const limits = usage.data?.partner?.rateLimitUsage;
  const p = state.data?.partner;
  return (
    <Page title="Pipeline & usage">
      <Loading state={state} />
      {p && (
        <>
          <div class="columns">
            <MetricsBlock title="last 24 hours" m={p.day} />
            <MetricsBlock title="last 7 days" m={p.week} />
          </div>
          <h2>Rate-limit usage</h2>
          <Loading state={usage} />
          {limits && !limits.enforced && <p>This deployment runs without rate limits.</p>}
          {limits?.enforced && <UsageChart title="Spent in the current window (all of your credentials, REST and GraphQL)" counters={limits.counters} />}
          <p>
            <button type="button" onClick={usage.reload}>Refresh usage</button>{' '}
            <span class="hint">Every limit is in the <a href="/portal/catalog">route catalog</a>; every answer carries its X-RateLimit-Remaining.</span>
          </p>
          <h2>Sync jobs</h2>
          <div class="table-wrap">
            <table aria-live="polite">
              <thead><tr><th scope="col">Job</th><th scope="col">Resources</th><th scope="col">Status</th><th scope="col">Records</th><th scope="col">Attempts</th><th scope="col">Created</th><th scope="col">Finished</th><th scope="col">Error</th></tr></thead>
              <tbody>
                {p.syncJobs.map((j) => (
                  <tr key={j.jobId}><td><code>{j.jobId}</code></td><td>{j.resourceTypes.join(', ')}</td><td>{j.status}</td><td>{j.recordsProcessed}</td><td>{j.attempts}</td><td>{when(j.createdAt)}</td><td>{when(j.completedAt ?? j.failedAt)}</td><td>{j.errorCode ? `${j.errorCode}: ${j.message ?? ''}` : ''}</td></tr>
                ))}
                {p.syncJobs.length === 0 && <tr><td colSpan={8}>No sync jobs yet.</td></tr>}
              </tbody>
            </table>
          </div>
        </>
      )}
    </Page>
  );
}

import { useEffect } from 'preact/hooks';
import { subscribe } from '../api.js';
import type { Viewer } from '../main.js';
import { Loading, Page, useQuery, when } from '../ui.js';

const QUERY = `query Pipeline($gpid: ID!) { partner(gpid: $gpid) {
  day: pipelineMetrics(window: "24h") { jobsTotal jobsCompleted jobsFailed jobsInFlight recordsProcessed successRate errorCodes { code count } }
  week: pipelineMetrics(window: "7d") { jobsTotal jobsCompleted jobsFailed jobsInFlight recordsProcessed successRate errorCodes { code count } }
  syncJobs { jobId resourceTypes status recordsProcessed attempts createdAt completedAt failedAt errorCode message }
} }`;
const LIVE = 'subscription PipelineEvents { events { id type } }';

interface Metrics { jobsTotal: number; jobsCompleted: number; jobsFailed: number; jobsInFlight: number; recordsProcessed: number; successRate: number | null; errorCodes: { code: string; count: number }[] }
interface Job { jobId: string; resourceTypes: string[]; status: string; recordsProcessed: number; attempts: number; createdAt: string; completedAt: string | null; failedAt: string | null; errorCode: string | null; message: string | null }

/** A horizontal bar chart in plain SVG, with the numbers also written out for screen readers. */
export function BarChart({ title, bars }: { title: string; bars: { label: string; value: number; tone?: string }[] }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  const rowHeight = 28;
  return (
    <figure class="chart">
      <svg viewBox={`0 0 320 ${bars.length * rowHeight}`} role="img" aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(', ')}`} preserveAspectRatio="xMinYMin meet">
        {bars.map((b, i) => (
          <g key={b.label} transform={`translate(0 ${i * rowHeight})`}>
            <text x="0" y="18" class="chart-label">{b.label}</text>
            <rect x="110" y="6" height="16" width={Math.max(2, (b.value / max) * 170)} class={`bar ${b.tone ?? ''}`} />
            <text x={116 + Math.max(2, (b.value / max) * 170)} y="18" class="chart-value">{b.value}</text>
          </g>
        ))}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}

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
  // Sync jobs update live: each pipeline event of the partner re-reads the page's data.
  useEffect(() => subscribe<{ events: { type: string } }>(LIVE, {}, (d) => d.events.type.startsWith('pipeline.') && state.reload()), []);
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
          <p class="hint">Rate limits per route are listed in the <a href="/portal/catalog">route catalog</a>; every answer carries its X-RateLimit-Remaining.</p>
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

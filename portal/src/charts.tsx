/** Charts in plain SVG, each with its numbers also written out for screen readers. */

/**
 * A horizontal bar chart of counts. Labels are HTML text in a column of their own (a grid row per
 * bar), never drawn inside the SVG: an error code as long as INSUFFICIENT_SCOPE wraps within its
 * column instead of running under the bar. The bars are SVG rects (sizes as attributes: the CSP
 * admits no inline style).
 */
export function BarChart({ title, bars }: { title: string; bars: { label: string; value: number; tone?: string }[] }) {
  const max = Math.max(1, ...bars.map((b) => b.value));
  return (
    <figure class="chart">
      <div class="bar-chart" role="img" aria-label={`${title}: ${bars.map((b) => `${b.label} ${b.value}`).join(', ')}`}>
        {bars.map((b) => (
          <div class="bar-row" key={b.label}>
            <span class="bar-label">{b.label}</span>
            <svg class="bar-track" viewBox="0 0 100 16" preserveAspectRatio="none" aria-hidden="true">
              <rect x="0" y="0" height="16" width={Math.max(1, (b.value / max) * 100)} class={`bar ${b.tone ?? ''}`} />
            </svg>
            <span class="bar-value">{b.value}</span>
          </div>
        ))}
      </div>
      <figcaption>{title}</figcaption>
    </figure>
  );
}

/** One rate-limit counter as the API reports it. */
export interface UsageCounter {
  policy: string;
  name: string;
  product: string;
  limit: number;
  windowSeconds: number;
  used: number;
  remaining: number;
  resetsAt: string | null;
}

const WINDOW: Record<number, string> = { 1: 's', 60: 'min', 3600: 'h' };

function counterLabel(c: UsageCounter): string {
  const per = WINDOW[c.windowSeconds] ?? `${c.windowSeconds} s`;
  const what = c.policy === 'burst' ? `${c.name} burst` : c.name;
  return `${what} (${c.limit}/${per})`;
}

/** Each counter as a bar of its limit: the share spent, toned by how close it is to the limit. */
export function UsageChart({ title, counters }: { title: string; counters: UsageCounter[] }) {
  const rowHeight = 28;
  const labelWidth = 230;
  const barWidth = 170;
  return (
    <figure class="chart wide">
      <svg
        viewBox={`0 0 ${labelWidth + barWidth + 90} ${counters.length * rowHeight}`}
        role="img"
        aria-label={`${title}: ${counters.map((c) => `${counterLabel(c)} ${c.used} used`).join(', ')}`}
        preserveAspectRatio="xMinYMin meet"
      >
        {counters.map((c, i) => {
          const share = c.limit > 0 ? c.used / c.limit : 0;
          const tone = share >= 0.9 ? 'bad' : share >= 0.6 ? 'warn' : 'ok';
          return (
            <g key={`${c.policy}:${c.name}`} transform={`translate(0 ${i * rowHeight})`}>
              <text x="0" y="18" class="chart-label">{counterLabel(c)}</text>
              <rect x={labelWidth} y="6" height="16" width={barWidth} class="bar track" />
              <rect x={labelWidth} y="6" height="16" width={Math.max(share > 0 ? 2 : 0, share * barWidth)} class={`bar ${tone}`} />
              <text x={labelWidth + barWidth + 6} y="18" class="chart-value">{`${c.used} / ${c.limit}`}</text>
            </g>
          );
        })}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}

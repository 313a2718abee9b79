import type { Viewer } from '../main.js';
import { Loading, Page, useQuery } from '../ui.js';

const QUERY = /* GraphQL */ `query Changelog { releaseHistory { version title releasedAt highlights } }`;

export function ChangelogPage(_props: { viewer: Viewer }) {
  const state = useQuery<{ releaseHistory: { version: string; title: string; releasedAt: string; highlights: string[] }[] }>(QUERY);
  return (
    <Page title="Changelog">
      <p><a href="/api/changelog/rss">RSS feed</a></p>
      <Loading state={state} />
      {state.data?.releaseHistory.map((r) => (
        <article key={r.version} class="release">
          {/* Most releases are titled by their version alone: say it once. */}
          <h2>{r.title === r.version ? r.version : r.title.startsWith(r.version) ? r.title : `${r.version}: ${r.title}`}</h2>
          <p class="hint">{r.releasedAt}</p>
          <ul>{r.highlights.map((h) => <li key={h}>{h}</li>)}</ul>
        </article>
      ))}
    </Page>
  );
}

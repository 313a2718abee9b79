import { createHash } from 'node:crypto';
import type { LocalOperation, RouteSpec } from '../routes/route.js';
import { renderChangelogRss, type ChangelogRelease, type DeprecationNotice } from './changelog-rss.js';
import { PRODUCT_TITLES } from './products.js';

const RELEASES_QUERY = 'query ReleaseHistory { releaseHistory { version title releasedAt content } }';

/** The deprecations announced by the route table, as changelog notices. */
export function deprecationNotices(routes: readonly RouteSpec[]): DeprecationNotice[] {
  return routes.flatMap((route) =>
    route.deprecated
      ? [
          {
            method: route.method,
            path: route.path,
            product: PRODUCT_TITLES[route.product],
            replacement: route.deprecated.successors.map((s) => `${s.method} ${s.path}`).join(' or '),
            since: route.deprecated.since,
            sunset: route.deprecated.sunset,
          },
        ]
      : [],
  );
}

/**
 * `GET /api/changelog/rss`: an RSS 2.0 feed of the portal releases (the partner subgraph's
 * `releaseHistory`, through the gateway) and of the deprecations in the route table.
 */
export const changelogOperation: LocalOperation = {
  documents: [RELEASES_QUERY],
  async local(input, { routes, publicUrl, execute }) {
    const data = await execute(RELEASES_QUERY);
    const rows = (data['releaseHistory'] ?? []) as { version: string; title: string; releasedAt: string; content: string }[];
    const releases: ChangelogRelease[] = rows.map((row) => ({ version: row.version, title: row.title, released_at: row.releasedAt, content: row.content }));
    const body = renderChangelogRss({ siteUrl: publicUrl, releases, deprecations: deprecationNotices(routes) });
    const etag = `"${createHash('sha256').update(body).digest('hex').slice(0, 32)}"`;
    const headers = { etag, 'cache-control': 'public, max-age=300' };
    if (input.headers['if-none-match'] === etag) return { status: 304, body: '', headers };
    return { body, headers, contentType: 'application/rss+xml' };
  },
};

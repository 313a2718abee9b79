import type { SubgraphBuilder as Builder } from '@svc/platform';
import { RELEASE_HISTORY, type PortalRelease } from '../domain/release-history.js';

/** `releaseHistory`: the developer portal's releases, latest first (the changelog feed's source). Public. */
export function defineReleaseHistory(builder: Builder) {
  const Release = builder.objectRef<PortalRelease>('PortalRelease').implement({
    description: 'A developer portal release.',
    fields: (t) => ({
      version: t.exposeString('version', { description: 'v2.2.0, v1.4.x, …' }),
      title: t.exposeString('title', { description: 'Heading as published (v1.3.0 and earlier).' }),
      releasedAt: t.exposeString('released_at', { description: 'ISO 8601 date.' }),
      content: t.exposeString('content'),
      highlights: t.stringList({ resolve: (r) => [...r.highlights] }),
    }),
  });
  builder.queryFields((t) => ({
    releaseHistory: t.field({ type: [Release], description: 'Portal releases, latest first.', resolve: () => [...RELEASE_HISTORY] }),
  }));
}

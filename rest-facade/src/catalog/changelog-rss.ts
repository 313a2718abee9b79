import { formatRfc822, parseIsoDate } from './rfc822-date.js';
import { escapeXml } from './xml-text.js';

/** A portal release as the partner subgraph's `releaseHistory` query answers it. */
export interface ChangelogRelease {
  /** Stable identifier, used in GUIDs and anchors: `v2.2.0`, `v1.4.x`. */
  version: string;
  /** Heading as published. */
  title: string;
  /** ISO 8601 date. */
  released_at: string;
  content: string;
}

/** A deprecated endpoint as announced in the changelog. */
export interface DeprecationNotice {
  method: string;
  path: string;
  product: string;
  /** The successor, in words (`POST /tefca/xcpd/search (outbound) or …`). */
  replacement: string;
  /** ISO 8601 date of the announcement. */
  since: string;
  /** ISO 8601 date after which the endpoint is removed. */
  sunset: string;
}

/** Inputs of {@link renderChangelogRss}. */
export interface ChangelogRssOptions {
  /** Public origin of the developer portal, such as `https://developer.example.org`. */
  siteUrl: string;
  releases: readonly ChangelogRelease[];
  deprecations: readonly DeprecationNotice[];
  title?: string;
  description?: string;
  /** URL of the feed itself; defaults to `${siteUrl}/api/changelog/rss`. */
  feedUrl?: string;
  /** `lastBuildDate`; defaults to the newest item, so the same inputs give the same bytes (and ETag). */
  buildDate?: Date;
}

interface FeedItem {
  title: string;
  link: string;
  description: string;
  category: string;
  guid: string;
  date: Date;
}

const element = (name: string, text: string): string => `<${name}>${escapeXml(text)}</${name}>`;

function releaseItem(siteUrl: string, release: ChangelogRelease): FeedItem {
  return {
    title: `Portal ${release.title}`,
    link: `${siteUrl}/changelog#release-${release.version}`,
    description: release.content,
    category: 'Release',
    guid: `release:${release.version}`,
    date: parseIsoDate(release.released_at),
  };
}

function deprecationItem(siteUrl: string, notice: DeprecationNotice): FeedItem {
  const endpoint = `${notice.method.toUpperCase()} ${notice.path}`;
  const sunset = parseIsoDate(notice.sunset);
  return {
    title: `Deprecated: ${endpoint} (sunset ${notice.sunset})`,
    link: `${siteUrl}/changelog#deprecations`,
    description:
      `${endpoint} (${notice.product}) is deprecated as of ${notice.since} and will be removed after ${notice.sunset}. ` +
      `Migrate to ${notice.replacement}. Until then every response carries Deprecation: true, ` +
      `Sunset: ${formatRfc822(sunset)} and a Link header with rel="successor-version".`,
    category: 'Deprecation',
    guid: `deprecation:${notice.method.toUpperCase()}:${notice.path}:${notice.sunset}`,
    date: parseIsoDate(notice.since),
  };
}

function renderItem(item: FeedItem): string {
  return [
    '    <item>',
    `      ${element('title', item.title)}`,
    `      ${element('link', item.link)}`,
    `      ${element('description', item.description)}`,
    `      ${element('category', item.category)}`,
    `      <guid isPermaLink="false">${escapeXml(item.guid)}</guid>`,
    `      ${element('pubDate', formatRfc822(item.date))}`,
    '    </item>',
  ].join('\n');
}

function normalizeSiteUrl(siteUrl: string): string {
  const url = new URL(siteUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new RangeError(`The site URL must be http or https: ${siteUrl}`);
  return url.href.replace(/\/+$/u, '');
}

/**
 * Render the portal changelog as an RSS 2.0 document: one item per release and one per
 * deprecation notice, newest first (a release before a notice of the same day), each with a
 * non-permalink GUID and an RFC 822 `pubDate`.
 * @throws RangeError for an invalid site URL or an invalid date in the inputs.
 */
export function renderChangelogRss(options: ChangelogRssOptions): string {
  const siteUrl = normalizeSiteUrl(options.siteUrl);
  const feedUrl = options.feedUrl ?? `${siteUrl}/api/changelog/rss`;
  const items = [
    ...options.releases.map((release) => releaseItem(siteUrl, release)),
    ...options.deprecations.map((notice) => deprecationItem(siteUrl, notice)),
  ].sort((a, b) => b.date.getTime() - a.date.getTime());
  // Without items or an explicit date there is nothing to derive the build date from.
  const buildDate = options.buildDate ?? items[0]?.date ?? new Date();

  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">',
    '  <channel>',
    `    ${element('title', options.title ?? 'Partner Portal Changelog')}`,
    `    ${element('link', `${siteUrl}/changelog`)}`,
    `    ${element('description', options.description ?? 'Releases of the partner developer portal and deprecations of partner API endpoints.')}`,
    `    ${element('language', 'en-us')}`,
    `    ${element('lastBuildDate', formatRfc822(buildDate))}`,
    `    ${element('docs', 'https://www.rssboard.org/rss-specification')}`,
    `    <atom:link href="${escapeXml(feedUrl)}" rel="self" type="application/rss+xml"/>`,
    ...items.map(renderItem),
    '  </channel>',
    '</rss>',
    '',
  ].join('\n');
}

import { describe, expect, it } from 'vitest';
import { renderChangelogRss, type DeprecationNotice } from './changelog-rss.js';
// The portal's real release history is the fixture: the feed must render it as published.
import { RELEASE_HISTORY } from '../../../subgraphs/partner/src/domain/release-history.js';
import { formatRfc822, parseIsoDate } from './rfc822-date.js';
import { escapeXml } from './xml-text.js';

const DEPRECATIONS: DeprecationNotice[] = [
  {
    method: 'POST',
    path: '/tefca/v1/patient-discovery',
    product: 'TEFCA gateway',
    replacement: 'POST /tefca/xcpd/search (outbound) or POST /tefca/xcpd/discover (inbound)',
    since: '2026-06-12',
    sunset: '2026-09-12',
  },
  {
    method: 'POST',
    path: '/tefca/v1/document-query',
    product: 'TEFCA gateway',
    replacement: 'POST /tefca/xca/search (outbound) or POST /tefca/xca/query (inbound)',
    since: '2026-06-12',
    sunset: '2026-09-12',
  },
  {
    method: 'POST',
    path: '/analytics/v1/query',
    product: 'Analytics',
    replacement: 'POST /analytics/v1/query/nl then POST /analytics/v1/query/execute',
    since: '2026-06-12',
    sunset: '2026-09-12',
  },
  {
    method: 'GET',
    path: '/analytics/v1/risk-score',
    product: 'Analytics',
    replacement: 'POST /analytics/v1/analytics-score/compute',
    since: '2026-06-12',
    sunset: '2026-09-12',
  },
];

const RFC822 = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/**
 * A small well-formedness check: one root, properly nested and closed tags, quoted attributes, no
 * bare `&` or `<` in text. Returns the problem found, or `undefined`.
 */
function wellFormednessProblem(xml: string): string | undefined {
  const body = xml.replace(/^<\?xml [^?]*\?>\s*/, '');
  const stack: string[] = [];
  let roots = 0;
  const token = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/gy;
  let match: RegExpExecArray | null;
  while ((match = token.exec(body)) !== null) {
    const [, closing, name, , selfClosing, text, strayLt] = match;
    if (strayLt) return `stray < at ${match.index}`;
    if (text !== undefined) {
      if (stack.length === 0 && text.trim() !== '') return 'text outside the root element';
      if (/&(?!(?:amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/.test(text)) return `bare & in ${JSON.stringify(text.slice(0, 40))}`;
      continue;
    }
    if (closing) {
      if (stack.pop() !== name) return `unexpected </${name}>`;
    } else {
      if (stack.length === 0) roots += 1;
      if (!selfClosing) stack.push(name ?? '');
    }
  }
  if (stack.length > 0) return `unclosed <${stack.join('>, <')}>`;
  return roots === 1 ? undefined : `${roots} root elements`;
}

const texts = (xml: string, name: string): string[] => [...xml.matchAll(new RegExp(`<${name}(?: [^>]*)?>([^<]*)</${name}>`, 'g'))].map((m) => m[1] ?? '');

describe('RFC 822 dates', () => {
  it('formats in GMT with a four-digit year', () => {
    expect(formatRfc822(new Date('2026-08-25T00:00:00Z'))).toBe('Tue, 25 Aug 2026 00:00:00 GMT');
    expect(formatRfc822(new Date('2026-01-05T07:08:09+02:00'))).toBe('Mon, 05 Jan 2026 05:08:09 GMT');
    expect(() => formatRfc822(new Date('nope'))).toThrow(RangeError);
  });

  it('parses ISO dates strictly', () => {
    expect(parseIsoDate('2026-06-12').toISOString()).toBe('2026-06-12T00:00:00.000Z');
    expect(parseIsoDate('2026-06-12T09:30:00Z').toISOString()).toBe('2026-06-12T09:30:00.000Z');
    expect(() => parseIsoDate('2026-02-30')).toThrow(RangeError);
    expect(() => parseIsoDate('June 12')).toThrow(RangeError);
    expect(() => parseIsoDate('2026-06-12T09:30:00')).toThrow(RangeError);
  });
});

describe('XML escaping', () => {
  it('escapes markup characters and drops forbidden ones', () => {
    expect(escapeXml(`<a href="x">Tom & Jerry's</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&apos;s&lt;/a&gt;');
    expect(escapeXml('bell\u0007 tab\t ok \uD83D\uDE00 lone\uD800')).toBe('bell tab\t ok \uD83D\uDE00 lone');
  });
});

describe('renderChangelogRss', () => {
  const xml = renderChangelogRss({ siteUrl: 'https://developer.example.org/', releases: RELEASE_HISTORY, deprecations: DEPRECATIONS });

  it('is a well-formed RSS 2.0 document', () => {
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"')).toBe(true);
    expect(wellFormednessProblem(xml)).toBeUndefined();
    expect(wellFormednessProblem('<rss><channel></rss>')).toBeDefined();
  });

  it('describes the channel', () => {
    const channel = xml.slice(0, xml.indexOf('<item>'));
    expect(texts(channel, 'title')).toEqual(['Partner Portal Changelog']);
    expect(texts(channel, 'link')).toEqual(['https://developer.example.org/changelog']);
    expect(texts(channel, 'description')).toHaveLength(1);
    expect(texts(channel, 'language')).toEqual(['en-us']);
    // The build date is the newest item's, so identical inputs render identical bytes.
    expect(texts(channel, 'lastBuildDate')).toEqual(['Tue, 25 Aug 2026 00:00:00 GMT']);
    expect(channel).toContain('<atom:link href="https://developer.example.org/api/changelog/rss" rel="self" type="application/rss+xml"/>');
  });

  it('has one item per release and per deprecation, newest first', () => {
    expect(xml.match(/<item>/g)).toHaveLength(RELEASE_HISTORY.length + DEPRECATIONS.length);
    const guids = texts(xml, 'guid');
    expect(guids).toHaveLength(15);
    expect(new Set(guids).size).toBe(15);
    expect(guids.slice(0, 4)).toEqual(['release:v2.2.0', 'release:v2.1.0', 'release:v2.0.0', 'deprecation:POST:/tefca/v1/patient-discovery:2026-09-12']);
    expect(xml.match(/<guid isPermaLink="false">/g)).toHaveLength(15);
    const dates = texts(xml, 'pubDate').map((date) => Date.parse(date));
    expect([...dates].sort((a, b) => b - a)).toEqual(dates);
  });

  it('dates every item in RFC 822 form', () => {
    const pubDates = texts(xml, 'pubDate');
    expect(pubDates).toHaveLength(15);
    for (const date of pubDates) expect(date).toMatch(RFC822);
    expect(pubDates[2]).toBe('Fri, 12 Jun 2026 00:00:00 GMT');
  });

  it('announces deprecations with their replacement and sunset', () => {
    expect(xml).toContain('<title>Deprecated: GET /analytics/v1/risk-score (sunset 2026-09-12)</title>');
    expect(xml).toContain('Migrate to POST /analytics/v1/analytics-score/compute.');
    expect(xml).toContain('Sunset: Sat, 12 Sep 2026 00:00:00 GMT and a Link header with rel=&quot;successor-version&quot;');
  });

  it('escapes text from the inputs', () => {
    const escaped = renderChangelogRss({
      siteUrl: 'https://developer.example.org',
      releases: [{ version: 'v9.0.0', title: 'v9.0.0 <beta> & "more"', released_at: '2026-10-01', content: 'R&D <script>' }],
      deprecations: [],
      title: "Tom's & Jerry's",
      buildDate: new Date('2026-10-02T12:00:00Z'),
    });
    expect(wellFormednessProblem(escaped)).toBeUndefined();
    expect(escaped).toContain('<title>Tom&apos;s &amp; Jerry&apos;s</title>');
    expect(escaped).toContain('<title>Portal v9.0.0 &lt;beta&gt; &amp; &quot;more&quot;</title>');
    expect(escaped).toContain('<description>R&amp;D &lt;script&gt;</description>');
    expect(escaped).toContain('<lastBuildDate>Fri, 02 Oct 2026 12:00:00 GMT</lastBuildDate>');
    expect(escaped).not.toContain('<script>');
  });

  it('refuses invalid inputs', () => {
    expect(() => renderChangelogRss({ siteUrl: 'ftp://example.org', releases: [], deprecations: [] })).toThrow(RangeError);
    expect(() => renderChangelogRss({ siteUrl: 'https://example.org', releases: [], deprecations: [{ ...DEPRECATIONS[0]!, since: 'soon' }] })).toThrow(
      RangeError,
    );
  });
});

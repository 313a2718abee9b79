import MarkdownIt from 'markdown-it';
import quickStart from '../../../docs/quick-start.md';
import authentication from '../../../docs/authentication.md';
import webhooks from '../../../docs/webhooks.md';
import fhir from '../../../docs/fhir.md';
import tefca from '../../../docs/tefca.md';

/**
 * The docs hub's guides: Markdown files of the repository's `docs/` folder, bundled as text into
 * this module (loaded only when a docs page opens, so the portal's own bundle stays small).
 * The order is the hub's reading order. Each file's first `# ` line is its title.
 */
const FILES: { slug: string; markdown: string }[] = [
  { slug: 'quick-start', markdown: quickStart },
  { slug: 'authentication', markdown: authentication },
  { slug: 'webhooks', markdown: webhooks },
  { slug: 'fhir', markdown: fhir },
  { slug: 'tefca', markdown: tefca },
];

export interface Guide {
  slug: string;
  title: string;
  /** The first paragraph, for the hub's list. */
  summary: string;
  /** The rendered body (without the title, which the page shows as its heading). */
  html: string;
}

/**
 * markdown-it with raw HTML off (`html: false`: a `<script>` in a file is shown as text, never run),
 * its own link validation (no `javascript:` URLs), and two adjustments for the portal: links to
 * another guide (`tefca.md#…`) become portal addresses, and no element gets a `style` attribute
 * (table alignment would), since the CSP admits no inline style.
 */
const md = new MarkdownIt({ html: false, linkify: false, typographer: false });
md.core.ruler.push('portal_no_inline_style', (state) => {
  const strip = (tokens: { attrs: [string, string][] | null; children?: unknown }[]) => {
    for (const token of tokens) {
      if (token.attrs) token.attrs = token.attrs.filter(([name]) => name !== 'style');
      if (Array.isArray(token.children)) strip(token.children as typeof tokens);
    }
  };
  strip(state.tokens);
});
const defaultLinkOpen = md.renderer.rules['link_open'];
md.renderer.rules['link_open'] = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  const href = token.attrGet('href') ?? '';
  const guide = /^([a-z0-9-]+)\.md(#[\w-]*)?$/.exec(href);
  if (guide) token.attrSet('href', `/portal/${docsPage(guide[1]!)}${guide[2] ?? ''}`);
  return defaultLinkOpen ? defaultLinkOpen(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
};

/** The portal page of a guide: `/portal/docs-<slug>` (portal pages are one path segment). */
export function docsPage(slug: string): string {
  return `docs-${slug}`;
}

export const GUIDES: Guide[] = FILES.map(({ slug, markdown }) => {
  const title = /^# (.+)$/m.exec(markdown)?.[1]?.trim() ?? slug;
  const body = markdown.replace(/^# .+\n/m, '');
  const summary = body.split(/\n\s*\n/).map((p) => p.trim()).find((p) => p && !p.startsWith('#')) ?? '';
  return { slug, title, summary: summary.replace(/[`*_]/g, '').replace(/\[([^\]]+)\]\([^)]*\)/g, '$1'), html: md.render(body) };
});

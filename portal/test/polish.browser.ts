import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPE_CATALOG } from '../../platform/src/auth/scope-catalog.js';
import { approvedPartner, DESKTOP, openPortal, PHONE, type Portal } from './open-portal.js';

/**
 * Layout and accessibility of the portal shell, the explorers and the docs hub: chart labels, the
 * phone navigation and page widths, busy buttons, focus-ring contrast, and the docs pages.
 */

/** Relative luminance (WCAG 2) of an `rgb(…)`/`rgba(…)` colour. */
function luminance(rgb: number[]): number {
  const [r, g, b] = rgb.map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a: number[], b: number[]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/** The focused element's outline colour and the opaque background it is drawn on (its nearest ancestor's). */
async function focusRing(page: Page): Promise<{ visible: boolean; style: string; outline: number[]; background: number[] }> {
  return page.evaluate(() => {
    const parse = (c: string) => (c.match(/[\d.]+/g) ?? []).map(Number);
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    // The ring is drawn outside the element (outline-offset), so on its parent's background.
    let node: HTMLElement | null = el.parentElement;
    let background = [255, 255, 255];
    while (node) {
      const bg = parse(getComputedStyle(node).backgroundColor);
      if (bg.length >= 3 && (bg.length === 3 || bg[3]! > 0)) {
        background = bg.slice(0, 3);
        break;
      }
      node = node.parentElement;
    }
    return { visible: el.matches(':focus-visible'), style: style.outlineStyle, outline: parse(style.outlineColor).slice(0, 3), background };
  });
}

/** No sideways scrolling: the document is no wider than the viewport. */
async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  const widths = await page.evaluate(() => ({
    document: document.documentElement.scrollWidth,
    viewport: window.innerWidth,
    // The elements that reach past the right edge (outside boxes that scroll on their own), to name in a failure.
    past: Array.from(document.querySelectorAll('body *'))
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(0, 12)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className} ${Math.round(el.getBoundingClientRect().right)}`),
  }));
  expect(widths.document, `${name} is ${widths.document} px wide at ${widths.viewport} px: ${widths.past.join('; ')}`).toBeLessThanOrEqual(widths.viewport);
}

describe('portal layout, accessibility and docs hub', () => {
  let portal: Portal;
  let page: Page;
  let partner: { partnerGpid: string; email: string };

  beforeAll(async () => {
    portal = await openPortal('polish');
    page = portal.page;
    partner = await approvedPartner(portal.t);
    // A failed sync job with a long error code, for the pipeline's error chart.
    const job = await portal.t.graphql<{ createSyncJob: { jobId: string } }>('mutation($g: ID!) { createSyncJob(partnerGpid: $g, resourceTypes: ["Patient"]) { jobId } }', { g: partner.partnerGpid });
    expect(job.errors).toBeUndefined();
    const failed = await portal.t.graphql('mutation($j: ID!) { failSyncJob(jobId: $j, errorCode: "INSUFFICIENT_SCOPE", message: "cms.fhir.rest.write missing") { status } }', { j: job.data!.createSyncJob.jobId });
    expect(failed.errors).toBeUndefined();
  });

  afterAll(async () => {
    await portal?.close();
  });

  it('serves the docs hub signed out: guides from docs/*.md, the scope reference from the catalog, the FHIR reference from the CapabilityStatement', { timeout: 240_000 }, async () => {
    const cspErrors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && /Content Security Policy/i.test(msg.text()) && cspErrors.push(msg.text()));

    await portal.visit('/docs', 'docs-hub');
    await page.getByRole('link', { name: 'TEFCA guide' }).click();
    await page.getByRole('heading', { level: 1, name: 'TEFCA guide' }).waitFor();
    // Rendered Markdown: headings, code blocks, links to the other guides as portal pages.
    await page.getByRole('heading', { level: 2, name: 'Find a patient' }).waitFor();
    expect(await page.locator('article.markdown pre code').first().textContent()).toContain('/tefca/xcpd/search');
    expect(await page.locator('article.markdown a', { hasText: 'webhooks' }).getAttribute('href')).toBe('/portal/docs-webhooks');
    expect(await page.locator('article.markdown [style], article.markdown script').count()).toBe(0);
    await portal.audit('docs-tefca');
    await portal.visit('/docs-quick-start', 'docs-quick-start');
    await page.getByRole('heading', { level: 2, name: '1. Apply' }).waitFor();

    // The scope reference is the platform's catalog, every scope with its meaning.
    await portal.visit('/docs-scope-reference', 'docs-scope-reference');
    const rows = await page.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
    expect(rows).toEqual(expect.arrayContaining(SCOPE_CATALOG.map((s) => [s.scope, s.description])));
    expect(rows).toHaveLength(SCOPE_CATALOG.length);

    // The FHIR reference reads the live CapabilityStatement.
    await portal.visit('/docs-fhir-reference', 'docs-fhir-reference');
    await page.getByLabel('Filter resource types').fill('Patient');
    const patient = page.locator('details', { has: page.locator('summary strong', { hasText: /^Patient$/ }) });
    await patient.locator('summary').click();
    await patient.getByRole('row', { name: /^birthdate date/ }).waitFor();
    expect(await patient.locator('summary').textContent()).toMatch(/read/);
    await portal.audit('docs-fhir-reference-patient');
    expect(cspErrors).toEqual([]);
  });

  it('shows every error code of the pipeline charts in full, beside its bar', async () => {
    await portal.signInPartner(partner.email);
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      await portal.visit('/pipeline', viewport === DESKTOP ? 'pipeline-error-codes' : 'pipeline-error-codes-phone');
      const chart = page.getByRole('figure').filter({ hasText: 'Data-quality errors, last 24 hours' });
      const label = chart.getByText('INSUFFICIENT_SCOPE', { exact: true });
      await label.waitFor();
      const box = (await label.boundingBox())!;
      // Nothing clips it: the text is as wide as the box that shows it.
      expect(await label.evaluate((el) => el.scrollWidth <= Math.ceil(el.getBoundingClientRect().width) + 1)).toBe(true);
      // No bar is drawn over it.
      for (const bar of await chart.locator('rect').all()) {
        const b = (await bar.boundingBox())!;
        const overlaps = b.x < box.x + box.width && box.x < b.x + b.width && b.y < box.y + box.height && box.y < b.y + b.height;
        expect(overlaps, `a bar at ${JSON.stringify(b)} covers the label at ${JSON.stringify(box)}`).toBe(false);
      }
    }
    await page.setViewportSize(DESKTOP);
  });

  it('disables a button and marks it busy while its request runs, and gives it focus back', async () => {
    await portal.visit('/pipeline', 'pipeline');
    const refresh = page.getByRole('button', { name: 'Refresh usage' });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const hold = async (route: Route) => {
      await held;
      await route.continue();
    };
    await page.route('**/graphql', hold);
    await refresh.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => refresh.getAttribute('aria-busy')).toBe('true');
    expect(await refresh.isDisabled()).toBe(true);
    release();
    await expect.poll(() => refresh.getAttribute('aria-busy')).toBeNull();
    expect(await refresh.isEnabled()).toBe(true);
    expect(await refresh.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.unroute('**/graphql', hold);
  });

  it('draws the focus ring at 3:1 or more against its background (WCAG 1.4.11), in the header and on the page', async () => {
    await portal.visit('/webhooks', 'webhooks');
    const targets = [page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' }), page.getByRole('button', { name: 'Sign out' }), page.getByLabel('Endpoint URL'), page.getByRole('button', { name: 'Register webhook' })];
    for (const target of targets) {
      await target.focus();
      const ring = await focusRing(page);
      expect(ring.visible).toBe(true);
      expect(ring.style).toBe('solid');
      expect(contrast(ring.outline, ring.background), `${await target.evaluate((el) => el.outerHTML.slice(0, 80))}: ${JSON.stringify(ring)}`).toBeGreaterThanOrEqual(3);
    }
  });

  it('folds the navigation behind a Menu button at phone width, keyboard operable, and no page scrolls sideways', { timeout: 240_000 }, async () => {
    await portal.signInPartner(partner.email);
    await page.setViewportSize(PHONE);
    await page.goto(`${portal.base}/portal`);
    await page.locator('h1').first().waitFor();
    const menu = page.getByRole('button', { name: 'Menu' });
    const tokensLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API tokens' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await tokensLink.isVisible()).toBe(false);
    await menu.focus();
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await tokensLink.waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('nav')?.getAttribute('aria-label'))).toBe('Main');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await menu.evaluate((el) => el === document.activeElement)).toBe(true);
    // Escape also closes it from the button itself.
    await page.keyboard.press('Enter');
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // Following a link of the menu closes it.
    await menu.click();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // The header itself fits: the brand, the Menu button and the signed-in organisation in one screen width.
    expect((await page.locator('header').boundingBox())!.height).toBeLessThan(160);

    // The tokens page's table is another change's; every other page fits 390 px.
    const pages = ['', '/oauth-clients', '/webhooks', '/pipeline', '/tefca', '/analytics', '/legal', '/certification', '/catalog', '/openapi', '/changelog', '/docs', '/docs-quick-start', '/docs-authentication', '/docs-webhooks', '/docs-fhir', '/docs-tefca', '/docs-scope-reference', '/docs-fhir-reference'];
    for (const path of pages) {
      await page.goto(`${portal.base}/portal${path}`);
      await page.locator('h1').first().waitFor();
      await page.waitForFunction(() => !document.body.textContent?.includes('Loading…'));
      await expectNoSidewaysScroll(page, path || '/');
    }
    await portal.signOut();
    for (const path of ['/sign-in', '/apply', '/changelog', '/docs']) {
      await page.goto(`${portal.base}/portal${path}`);
      await page.locator('h1').first().waitFor();
      await expectNoSidewaysScroll(page, path);
    }
    // The sign-in helpers wait for a navigation link, which the phone's menu hides.
    await page.setViewportSize(DESKTOP);
    await portal.signInOperator();
    await page.setViewportSize(PHONE);
    for (const path of ['/applications', '/identity-changes', '/partners']) {
      await page.goto(`${portal.base}/portal${path}`);
      await page.locator('h1').first().waitFor();
      await page.waitForFunction(() => !document.body.textContent?.includes('Loading…'));
      await expectNoSidewaysScroll(page, path);
    }
    await portal.signOut();
    await page.setViewportSize(DESKTOP);
  });

  it('gives both explorers the portal header with a way back, and both pass axe', { timeout: 240_000 }, async () => {
    await page.setViewportSize(DESKTOP);
    await portal.signInPartner(partner.email);
    await page.goto(`${portal.base}/portal/graphiql.html`);
    await page.locator('.graphiql-execute-button').waitFor();
    await page.locator('.graphiql-query-editor .CodeMirror').first().waitFor();
    await portal.audit('graphiql');
    await page.goto(`${portal.base}/portal/rest-explorer.html?spec=platform`);
    await page.locator('.opblock').first().waitFor();
    await portal.audit('rest-explorer');
    // Also with an operation tried: its parameters, the cURL snippet and the response on screen.
    const catalogRoute = page.locator('.opblock-get', { hasText: '/api/partner/routes' }).first();
    await catalogRoute.locator('.opblock-summary').first().click();
    await catalogRoute.getByRole('button', { name: 'Execute' }).click();
    await catalogRoute.locator('.live-responses-table .response-col_status').getByText('200').waitFor();
    await portal.audit('rest-explorer-tried');
    await page.getByRole('link', { name: 'Back to the portal' }).click();
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  });
});

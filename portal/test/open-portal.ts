import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { bootSystem, type TestSystem } from '../../test/support/system.js';
import { onboardPartner, PORTAL_PASSWORD } from '../../test/support/partner-onboarding.js';
import { PATIENCE_MS } from '../../test/support/patience.js';

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const CHROMIUM = process.env['SVC_CHROMIUM'] ?? '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Where the browser suite keeps its screenshots: `artifacts/screenshots/` at the repository's root. */
export const SCREENSHOTS = fileURLToPath(new URL('../../artifacts/screenshots/', import.meta.url));

/** The screenshots of one browser file (`area`, the file's name without `.browser.ts`). */
export function screenshotDir(area: string): string {
  return join(SCREENSHOTS, area);
}

/** One service and one Chromium for a browser test file, with the portal's page helpers. */
export interface Portal {
  t: TestSystem;
  /** The service's origin, e.g. http://127.0.0.1:40123. */
  base: string;
  context: BrowserContext;
  page: Page;
  /** Names of the pages audited so far. */
  checked: string[];
  /** Open a portal path (`''` is the dashboard), wait for its data, then audit it. */
  visit(path: string, name: string): Promise<void>;
  /** axe (no serious or critical violation), then a screenshot at desktop and at phone width. */
  audit(name: string): Promise<void>;
  /** A screenshot of the page as it is, at desktop width only. */
  shot(name: string): Promise<void>;
  /** Sign in on the partner form; waits for the signed-in navigation. */
  signInPartner(email: string, password?: string): Promise<void>;
  /** Sign in on the operator form with the operator token. */
  signInOperator(): Promise<void>;
  signOut(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Boot the service with `env`, listen on a free port and open Chromium on a fresh profile.
 * Every audited page is screenshotted at desktop and phone width into
 * `artifacts/screenshots/<area>/<page>-<viewport>.png` (git-ignored, kept as CI artefacts; `.ci/run`
 * prints where). The shots reuse the page the audit already has open: no navigation of their own.
 */
export async function openPortal(area: string, env: Record<string, string> = {}, system?: TestSystem): Promise<Portal> {
  const t = system ?? (await bootSystem(env));
  const base = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
  const shots = screenshotDir(area);
  rmSync(shots, { recursive: true, force: true });
  mkdirSync(shots, { recursive: true });
  // A fresh profile every run: no state from an earlier run, nothing fetched from the network.
  const profile = mkdtempSync(join(tmpdir(), 'portal-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: DESKTOP });
  const page = context.pages()[0] ?? (await context.newPage());
  // Every wait for the page (playwright's default is 30 s) as patient as the rest of the tests.
  context.setDefaultTimeout(PATIENCE_MS);
  page.on('dialog', (dialog) => void dialog.accept());
  const checked: string[] = [];

  async function audit(name: string): Promise<void> {
    // evaluate() runs through the DevTools protocol, which the page's CSP does not govern: no inline script is allowed in.
    await page.evaluate(AXE);
    const violations = await page.evaluate(async () => {
      const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown }[] }[] }> } }).axe;
      const result = await axe.run(document, { resultTypes: ['violations'] });
      return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target) }));
    });
    expect(violations, `${name}: ${JSON.stringify(violations)}`).toEqual([]);
    await page.screenshot({ path: join(shots, `${name}-desktop.png`), fullPage: true });
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(shots, `${name}-phone.png`), fullPage: true });
    await page.setViewportSize(DESKTOP);
    checked.push(name);
    if (process.env['SVC_BROWSER_TRACE']) process.stderr.write(`checked ${name} at ${Math.round(performance.now())} ms\n`);
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(shots, `${name}-desktop.png`) });
  }

  async function visit(path: string, name: string): Promise<void> {
    await page.goto(`${base}/portal${path}`);
    await page.locator('h1').first().waitFor();
    await page.waitForFunction(() => !document.body.textContent?.includes('Loading…'));
    await audit(name);
  }

  async function signInPartner(email: string, password = PORTAL_PASSWORD): Promise<void> {
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'API tokens' }).waitFor();
  }

  async function signInOperator(): Promise<void> {
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('Operator token').fill(t.operatorToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('link', { name: 'Applications' }).waitFor();
  }

  async function signOut(): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  }

  async function close(): Promise<void> {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    if (!system) await t.close();
  }

  return { t, base, context, page, checked, visit, audit, shot, signInPartner, signInOperator, signOut, close };
}

/** A partner applied, submitted and approved over the API, ready to sign in with `PORTAL_PASSWORD`. */
export function approvedPartner(t: TestSystem, tag = Date.now().toString(36)): Promise<{ partnerGpid: string; email: string; applicationId: string }> {
  return onboardPartner(t, tag);
}

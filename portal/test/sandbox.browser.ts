import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../test/support/identity.js';
import { approvedPartner, DESKTOP, openPortal, PHONE, screenshotDir, type Portal } from './open-portal.js';

/**
 * A fresh sandbox in the portal: the TEFCA playground answers out of the box from the built-in
 * sandbox peer (labelled, with a sample patient to try; no setting named), the analytics playground
 * adds tagged sample patients with one click and counts them, and the e-mail-free password reset
 * (the sign-in page's advice, the operator's page, the partner's page, single use). Every page is
 * audited at desktop and phone width and its screenshots land in artifacts/screenshots/sandbox/.
 */
describe('a fresh sandbox in the portal', () => {
  let portal: Portal;
  let partner: { partnerGpid: string; email: string };
  const NEW_PASSWORD = 'Harbor9!Meadow#Kestrel';

  /** At phone width the page must not scroll sideways. */
  async function fitsPhone(): Promise<void> {
    await portal.page.setViewportSize(PHONE);
    const width = await portal.page.evaluate(() => document.documentElement.scrollWidth);
    await portal.page.setViewportSize(DESKTOP);
    expect(width).toBeLessThanOrEqual(PHONE.width);
  }

  beforeAll(async () => {
    portal = await openPortal('sandbox', { SVC_RATE_LIMITS: 'off' });
    partner = await approvedPartner(portal.t);
    const { DEFAULT_PARTNER_SCOPES } = await import('../../subgraphs/partner/src/domain/partner-scopes.js');
    const grant = await portal.t.request({ method: 'PUT', url: `/cms/partners/${partner.partnerGpid}/scopes`, body: { scopes: [...DEFAULT_PARTNER_SCOPES, 'tefca.xcpd.*', 'tefca.xca.*', 'analytics.query'] } });
    expect(grant.statusCode, grant.body).toBe(200);
  });
  afterAll(() => portal?.close());

  it('the TEFCA playground finds a sample patient and documents at the labelled sandbox peer', async () => {
    const { page } = portal;
    await portal.signInPartner(partner.email);
    await page.getByRole('link', { name: 'TEFCA exchange' }).click();
    const notice = page.getByTestId('sandbox-peer');
    await notice.getByText('Sandbox peer community (synthetic sample data)').waitFor();
    await page.getByText('Sandbox peer: sample data').waitFor();
    expect(await page.locator('main').textContent()).not.toMatch(/SVC_/);
    await portal.audit('tefca-sandbox');
    await fitsPhone();

    await notice.getByRole('button', { name: 'Fill in the sample patient' }).click();
    expect(await page.getByLabel('Family name').inputValue()).toBe('Sample');
    await page.getByRole('button', { name: 'Search peer communities' }).click();
    const matches = page.getByTestId('tefca-matches');
    await matches.getByText('SBX-PAT-0001').waitFor();
    await matches.getByText('100 % (certain)').waitFor();
    await page.getByRole('button', { name: /^Find documents of SBX-PAT-0001/ }).click();
    await page.getByText('Summary of care (synthetic sample)').waitFor();
    await page.getByText('Laboratory report (synthetic sample)').waitFor();
    await page.getByTestId('tefca-exchanges').getByText('xca.query').waitFor();
    await portal.audit('tefca-sandbox-documents');
  });

  it('the analytics playground adds tagged sample patients once and counts them', async () => {
    const { page, t } = portal;
    const token = await mintToken(t, ['analytics.query', 'cms.fhir.r4.read', 'cms.fhir.bundle.push', 'cms.fhir.rest.write'], partner.partnerGpid);
    await page.getByRole('link', { name: 'Analytics' }).click();
    await page.getByRole('heading', { name: /Sample data/ }).waitFor();
    await page.getByLabel('API token').fill(token);
    await portal.audit('analytics-sandbox');
    await fitsPhone();

    await page.getByRole('button', { name: 'Add sample patients' }).click();
    await page.getByTestId('samples-added').getByText(/^Added \d+ sample resources, tagged as synthetic sample data\.$/).waitFor();
    await page.getByRole('button', { name: 'How many female patients over 65 with diabetes?' }).click();
    await page.getByRole('button', { name: 'Read the question' }).click();
    await page.getByTestId('analytics-summary').waitFor();
    await page.getByRole('button', { name: 'Execute' }).click();
    const result = page.getByTestId('analytics-result');
    await result.waitFor();
    expect(await result.textContent()).toMatch(/^2 .* from 2 patients/);
    await portal.audit('analytics-sandbox-result');

    // A second click adds nothing: the sample set is created only where it is missing.
    await page.getByRole('button', { name: 'Add sample patients' }).click();
    await page.getByTestId('samples-added').getByText('The sample patients are already in your sandbox data.').waitFor();
    await portal.signOut();
  });

  it('an operator issues a one-time reset link; the partner sets a new password with it, once', async () => {
    const { page, base } = portal;
    await page.goto(`${base}/portal/sign-in`);
    await page.getByTestId('forgot-password').getByText(/Ask your operator/).waitFor();
    await portal.audit('sign-in-forgot-password');

    await portal.signInOperator();
    await page.getByRole('link', { name: 'Password resets' }).click();
    await page.getByRole('heading', { name: 'Password resets' }).waitFor();
    await page.locator(`#reset-partner option[value="${partner.partnerGpid}"]`).waitFor({ state: 'attached' });
    await portal.audit('password-resets');
    await fitsPhone();
    await page.getByLabel('Partner').selectOption(partner.partnerGpid);
    await page.getByRole('button', { name: 'Create reset link' }).click();
    const link = (await page.getByTestId('secret').textContent())!.trim();
    expect(link).toMatch(/^http:\/\/localhost:\d+\/portal\/reset-password#token=svc_pwr_/);
    await page.getByRole('heading', { name: `Reset link for ${partner.email}` }).waitFor();
    await portal.audit('password-reset-issued');
    await portal.signOut();

    // The link names the service's public URL; this test's service listens on its own port.
    const here = `${base}${new URL(link).pathname}${new URL(link).hash}`;
    await page.goto(here);
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await portal.audit('reset-password');
    await fitsPhone();
    await page.getByLabel('New password', { exact: true }).fill('passwordpassword1');
    await page.getByLabel('Repeat the new password').fill('passwordpassword1');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('alert').getByText('The password does not meet the portal password policy.').waitFor();
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('heading', { name: 'Password changed' }).waitFor();
    expect(page.url()).not.toContain('svc_pwr_');
    await portal.audit('reset-password-done');

    // Used once: the same link is refused, with the advice to ask for a new one.
    await page.goto('about:blank');
    await page.goto(here);
    await page.getByLabel('New password', { exact: true }).fill('Another7!Passphrase#Here');
    await page.getByLabel('Repeat the new password').fill('Another7!Passphrase#Here');
    await page.getByRole('button', { name: 'Set the new password' }).click();
    await page.getByRole('alert').getByText(/unknown, already used or expired/).waitFor();

    await portal.signInPartner(partner.email, NEW_PASSWORD);
  });

  it('keeps a desktop and a phone screenshot of every audited page', () => {
    const dir = screenshotDir('sandbox');
    expect(portal.checked.length).toBeGreaterThanOrEqual(8);
    for (const name of portal.checked) for (const viewport of ['desktop', 'phone']) expect(existsSync(join(dir, `${name}-${viewport}.png`)), `${name}-${viewport}.png`).toBe(true);
  });
});

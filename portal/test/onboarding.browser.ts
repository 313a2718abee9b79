import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGREEMENTS, INTEGRATION_STEP, organizationStep, PORTAL_PASSWORD, saveStep, startApplication } from '../../test/support/partner-onboarding.js';
import { approvedPartner, openPortal, PHONE, DESKTOP, type Portal } from './open-portal.js';

/**
 * Onboarding and first contact: applying with errors shown on their fields and the agreements'
 * texts at hand, the confirmation's reference and review time, signing in before approval (the
 * status page, not "wrong password"), the BAA's text on the e-signature page, the organization's
 * name in the header, changelog titles said once, and the bare origin and icon.
 */
describe('portal onboarding in a real browser', () => {
  let portal: Portal;
  let page: Page;
  let base: string;

  beforeAll(async () => {
    portal = await openPortal('onboarding', { SVC_RATE_LIMITS: 'off' });
    ({ page, base } = portal);
  });
  afterAll(() => portal?.close());

  it('shows application problems on their fields in words, links the agreements, and confirms with the reference and the review time', { timeout: 180_000 }, async () => {
    const tag = `ob${Date.now().toString(36)}`;
    const email = `dana.whitfield+${tag}@riverbend-health.org`;
    await portal.visit('/apply', 'apply');
    await page.getByLabel('Legal name').fill(`Riverbend Health ${tag}`);
    await page.getByLabel('NPI').fill('1234567890');
    await page.getByLabel('Contact name').fill('Dana Whitfield');
    await page.getByLabel('Contact e-mail (your portal sign-in)').fill(email);
    await page.getByRole('button', { name: 'Save and continue' }).click();
    // The NPI's problem is on the NPI field: invalid, described by the message, focused.
    const npi = page.getByLabel('NPI');
    await expect.poll(() => npi.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await npi.getAttribute('aria-describedby'))!.split(' ');
    expect(describedBy).toContain('npi-error');
    const message = await page.locator('#npi-error').textContent();
    expect(message).toMatch(/check digit|NPI/i);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('npi');
    expect(await page.locator('main').textContent()).not.toMatch(/organization\.npi/);
    await portal.audit('apply-field-errors');
    await npi.fill('1234567893');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByRole('group', { name: 'Capabilities' }).waitFor();
    await page.getByLabel('fhir_read').check();
    await page.getByRole('button', { name: 'Save and continue' }).click();

    // Step 3 links the NDA and the BAA it asks to accept, and shows their texts.
    await page.getByLabel('Portal password').fill(PORTAL_PASSWORD);
    expect(await page.getByRole('link', { name: /Download the mutual NDA/ }).getAttribute('href')).toBe('/cms/legal/documents/cms_mnda_v2026_03.txt');
    expect(await page.getByRole('link', { name: /Download the Business Associate Agreement/ }).getAttribute('href')).toBe('/cms/legal/documents/cms_hipaa_baa_v2026_03.txt');
    await page.getByText('Read the Business Associate Agreement').click();
    await expect.poll(async () => (await page.getByTestId('agreement-cms_hipaa_baa_v2026_03').textContent())?.length ?? 0).toBeGreaterThan(500);
    const download = await page.request.get(`${base}/cms/legal/documents/cms_mnda_v2026_03.txt`);
    expect(download.status()).toBe(200);
    // Submitting without accepting: the problems sit on the two checkboxes, in words.
    await page.getByRole('button', { name: 'Submit application' }).click();
    const mnda = page.getByRole('checkbox', { name: /I accept the mutual NDA/ });
    await expect.poll(() => mnda.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#mnda-error').textContent()).toMatch(/must be accepted/);
    expect(await page.locator('main').textContent()).not.toMatch(/account\.agreements/);
    await portal.audit('apply-step-3-agreements');
    await page.getByLabel('Portal password').fill(PORTAL_PASSWORD);
    await mnda.check();
    await page.getByRole('checkbox', { name: /I accept the Business Associate Agreement/ }).check();
    await page.getByRole('button', { name: 'Submit application' }).click();

    // The confirmation: the reference and the expected review time.
    await page.getByText('Your application was submitted').waitFor();
    const reference = (await page.getByTestId('application-reference').textContent())!;
    expect(reference).toMatch(/^app_[0-9a-z]{26}$/);
    await page.getByText(/within 2 business days/).waitFor();
    await portal.audit('apply-submitted');

    // The status page, e-mail-free, from the resume token this browser kept.
    await portal.visit('/application', 'application-status');
    expect(await page.getByTestId('application-reference').textContent()).toBe(reference);
    expect(await page.getByTestId('application-state').textContent()).toBe('Waiting for review');
    expect(await page.getByTestId('application-history').textContent()).toMatch(/Started.*Submitted for review/s);
    await page.getByTestId('expected-review').waitFor();

    // Signing in before approval: not "incorrect", but the status page (and no failure counted: more tries than the lockout allows).
    await page.evaluate(() => localStorage.clear());
    for (let i = 0; i < 6; i++) {
      await page.goto(`${base}/portal/sign-in`);
      await page.getByLabel('E-mail').fill(email);
      await page.getByLabel('Password', { exact: true }).fill(PORTAL_PASSWORD);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      await page.getByTestId('application-state').waitFor();
    }
    expect(await page.locator('main').textContent()).not.toMatch(/incorrect/);
    expect(await page.getByTestId('application-reference').textContent()).toBe(reference);

    // A reviewer returns it with a reason: the status page shows the reason and the history.
    const returned = await portal.t.graphql('mutation R($id: ID!) { returnPartnerApplication(id: $id, reason: "Please give the NPI of the billing organization.") { status } }', { id: reference });
    expect(returned.errors).toBeUndefined();
    await page.reload();
    await page.getByTestId('application-state').waitFor();
    expect(await page.getByTestId('application-state').textContent()).toBe('Returned for changes');
    expect(await page.getByTestId('application-history').textContent()).toContain('Please give the NPI of the billing organization.');
    await portal.audit('application-returned');

    // From a browser without the draft: the e-mail and password open it there.
    await page.evaluate(() => localStorage.clear());
    await portal.visit('/application', 'application-open');
    await page.getByLabel('Contact e-mail').fill(email);
    await page.getByLabel('Portal password').fill('Not-the-password-42!');
    await page.getByRole('button', { name: 'Show the status' }).click();
    await page.getByText('The e-mail address or password is incorrect.').waitFor();
    await page.getByLabel('Portal password').fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Show the status' }).click();
    await page.getByTestId('application-state').waitFor();
    expect(await page.getByTestId('application-reference').textContent()).toBe(reference);
  });

  it('a rejected application shows its reason at sign-in', { timeout: 60_000 }, async () => {
    const tag = `rj${Date.now().toString(36)}`;
    const app = await startApplication(portal.t);
    const organization = organizationStep(tag);
    await saveStep(portal.t, app, 'ORGANIZATION', organization);
    await saveStep(portal.t, app, 'INTEGRATION', INTEGRATION_STEP);
    await saveStep(portal.t, app, 'ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS });
    expect((await portal.t.graphql('mutation S($id: ID!, $t: String!) { submitPartnerApplication(applicationId: $id, resumeToken: $t) { id } }', { id: app.id, t: app.resumeToken }, null)).errors).toBeUndefined();
    expect((await portal.t.graphql('mutation J($id: ID!) { rejectPartnerApplication(id: $id, reason: "Not a covered entity or business associate.") { status } }', { id: app.id })).errors).toBeUndefined();
    await page.evaluate(() => localStorage.clear());
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('E-mail').fill(organization.contact.email);
    await page.getByLabel('Password', { exact: true }).fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByTestId('application-state').waitFor();
    expect(await page.getByTestId('application-state').textContent()).toBe('Rejected');
    expect(await page.locator('main').textContent()).toContain('Not a covered entity or business associate.');
    await portal.audit('application-rejected');
  });

  it('shows the organization name in the header, the BAA text and download on the e-signature page, and each changelog title once', { timeout: 90_000 }, async () => {
    const partner = await approvedPartner(portal.t, `hd${Date.now().toString(36)}`);
    await portal.signInPartner(partner.email);
    const who = page.getByTestId('who');
    await expect.poll(() => who.textContent()).toMatch(/^Riverbend Health hd/);
    expect(await who.getAttribute('title')).toBe(`Partner GPID ${partner.partnerGpid}`);

    await portal.visit('/legal', 'legal-baa-text');
    const text = page.getByTestId('agreement-cms_hipaa_baa_v2026_03');
    await text.waitFor();
    expect((await text.textContent())!.length).toBeGreaterThan(500);
    expect(await text.getAttribute('tabindex')).toBe('0');
    expect(await page.getByRole('link', { name: /Download the Business Associate Agreement/ }).getAttribute('href')).toBe('/cms/legal/documents/cms_hipaa_baa_v2026_03.txt');
    // On a phone the text wraps: the page does not scroll sideways.
    await page.setViewportSize(PHONE);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);

    await portal.visit('/changelog', 'changelog');
    const titles = await page.locator('article.release h2').allTextContents();
    expect(titles.length).toBeGreaterThan(3);
    expect(titles).toContain('v2.2.0');
    for (const title of titles) expect(title).not.toMatch(/^(v[\d.x]+): \1$/);
    await portal.signOut();
  });

  it('sends a browser from the bare origin to the portal, with its icon', { timeout: 60_000 }, async () => {
    await page.goto(base);
    await page.waitForURL(`${base}/portal/`);
    await page.locator('h1').first().waitFor();
    const icon = await page.request.get(`${base}/favicon.ico`);
    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toMatch(/^image\/svg\+xml/);
    expect(await page.locator('link[rel=icon]').getAttribute('href')).toBe('/portal/favicon.svg');
    const api = await page.request.get(`${base}/`, { headers: { accept: 'application/json' } });
    expect(api.status()).toBe(404);
    expect(api.headers()['content-type']).toMatch(/^application\/problem\+json/);
  });
});

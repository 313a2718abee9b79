import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPortal, approvedPartner, PHONE, DESKTOP, type Portal } from './open-portal.js';

// API keys (copy, last use, expiry, environment badge), the request log page, the REST explorer's
// snippets outside the browser, and the tokens page at phone width.
let portal: Portal;

beforeAll(async () => {
  portal = await openPortal('keys', { SVC_REQUEST_LOG_FLUSH_MS: '50' });
});
afterAll(() => portal?.close());

/** The page fits the viewport: nothing scrolls sideways. */
async function fitsWidth(width: number): Promise<void> {
  const scroll = await portal.page.evaluate(() => document.documentElement.scrollWidth);
  expect(scroll).toBeLessThanOrEqual(width);
}

describe('API keys and request log', () => {
  it('copies a new secret and a token id, shows last use, expiry and the sandbox badge, and lists the requests made with it', async () => {
    const { page, base, t } = portal;
    const { email } = await approvedPartner(t);
    await portal.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await portal.signInPartner(email);

    // A token, its secret copied from the page.
    await page.goto(`${base}/portal/tokens`);
    await page.getByLabel('Name').fill('keys test');
    await page.getByLabel('Expires in (days, optional)').fill('30');
    await page.getByRole('checkbox', { name: /cms\.tokens\.manage/ }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    const secret = (await page.getByTestId('secret').textContent())!.trim();
    expect(secret).toMatch(/^svc_pat_/);
    await page.getByRole('button', { name: 'Copy the new token' }).click();
    await page.getByText('Copied').first().waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    // Used outside the browser: once successfully, once refused.
    const auth = { authorization: `Bearer ${secret}` };
    expect((await fetch(`${base}/cms/tokens`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${base}/api/partner/requests?status_class=9xx`, { headers: auth })).status).toBe(422);

    // The list shows when and for what it was last used, its expiry, the environment, and copies its id.
    const row = page.getByRole('row', { name: /keys test/ });
    await expect
      .poll(async () => {
        await page.reload();
        await row.waitFor();
        return row.getByTestId('last-used').textContent();
      })
      .toContain('GET /cms/tokens');
    await expect.poll(() => row.getByText('Sandbox').count()).toBe(1);
    const tokenId = (await row.locator('code.token-id').textContent())!.trim();
    expect(await row.locator('td[data-label="Expires"]').textContent()).not.toBe('Never');
    await row.getByRole('button', { name: 'Copy the id of keys test' }).click();
    await row.getByText('Copied').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(tokenId);
    await portal.audit('tokens');

    // At phone width: no sideways scrolling, the id on one line, Revoke on screen.
    await page.setViewportSize(PHONE);
    await fitsWidth(PHONE.width);
    const id = row.locator('code.token-id');
    expect(await id.evaluate((el) => el.getClientRects().length)).toBe(1);
    const idBox = (await id.boundingBox())!;
    expect(idBox.x + idBox.width).toBeLessThanOrEqual(PHONE.width);
    const revokeBox = (await row.getByRole('button', { name: 'Revoke keys test' }).boundingBox())!;
    expect(revokeBox.x).toBeGreaterThanOrEqual(0);
    expect(revokeBox.x + revokeBox.width).toBeLessThanOrEqual(PHONE.width);
    await page.setViewportSize(DESKTOP);

    // The request log: both requests with this token, filterable by status class and credential.
    await page.getByRole('link', { name: 'Request log', exact: true }).click();
    await page.getByRole('heading', { name: 'Request log' }).waitFor();
    await page.getByLabel('Credential id (tok_…, cli_…, ses_…)').fill(tokenId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('row', { name: /GET \/cms\/tokens.*200/ }).waitFor();
    await page.getByRole('row', { name: /GET \/api\/partner\/requests.*422/ }).waitFor();
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('row', { name: /GET \/cms\/tokens.*200/ }).waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /422/ }).waitFor();
    expect(await page.locator('main').textContent()).not.toContain('9xx');
    await portal.audit('requests');
    await page.setViewportSize(PHONE);
    await fitsWidth(PHONE.width);
    await page.setViewportSize(DESKTOP);
  });

  it("gives the REST explorer's cURL snippet a bearer placeholder, never the browser's session", async () => {
    const { page, base } = portal;
    await page.goto(`${base}/portal/rest-explorer.html?spec=partner-ecosystem`);
    await page.getByText('replace <your token> with an API token').waitFor();
    const route = page.locator('.opblock-get', { hasText: '/cms/tokens' }).first();
    await route.locator('.opblock-summary').first().click();
    await route.getByRole('button', { name: 'Execute' }).click();
    // Try it out still runs with the session (the CSRF token is added when it is sent).
    await route.locator('.live-responses-table .response-col_status').getByText('200').waitFor();
    const snippet = (await route.locator('.curl-command, .request-snippets').first().textContent()) ?? '';
    expect(snippet).toContain('Authorization: Bearer <your token>');
    expect(snippet.toLowerCase()).not.toContain('x-csrf-token');
    expect(snippet).not.toContain('svc_ses_');
    await portal.shot('rest-explorer');
  });
});

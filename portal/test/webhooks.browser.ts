import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiToken, fhir } from '../../test/support/fhir.js';
import { PATIENCE_MS } from '../../test/support/patience.js';
import { WebhookReceiver } from '../../test/support/webhook-receiver.js';
import { approvedPartner, openPortal, type Portal } from './open-portal.js';

/**
 * The webhook page as a partner uses it: states that say what was proven (a 2xx test.ping is
 * reachability; "verified" needs the mis-signed probe refused with 4xx), the certification items
 * that evidence completes, editing, samples of any event type, the payload and response viewers,
 * rotation with overlap, disable/enable and the 24 h success rate; the event list without duplicates.
 */
describe('portal webhooks', () => {
  let portal: Portal;
  let page: Page;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    receiver = await WebhookReceiver.start();
    portal = await openPortal('webhooks', { SVC_WEBHOOK_ALLOW_PRIVATE: 'true', SVC_WEBHOOK_POLL_MS: '50', SVC_WEBHOOK_TIMEOUT_MS: String(PATIENCE_MS) });
    page = portal.page;
  });
  afterAll(async () => {
    await portal?.close();
    await receiver?.close();
  });

  it('shows a 2xx ping as reachable only, verifies a receiver that refuses the wrong key, and manages the endpoint', { timeout: 180_000 }, async () => {
    const { partnerGpid, email } = await approvedPartner(portal.t);
    // A FHIR read with an API token: "First authenticated call" must come from it (checked at the end).
    const token = await apiToken(portal.t, partnerGpid, ['cms.fhir.r4.read']);
    expect((await fhir(portal.t, token, 'GET', '/Patient?_count=1')).statusCode).toBe(200);
    await portal.signInPartner(email);
    await portal.visit('/webhooks', 'webhooks');

    // The event list names each event once, under the spec's names.
    const events = page.getByRole('group', { name: 'Events' });
    expect(await events.getByRole('checkbox', { name: /^identity\.match\b/ }).count()).toBe(1);
    expect(await events.getByRole('checkbox', { name: /identity\.matched/ }).count()).toBe(0);

    // A receiver that accepts anything: the ping succeeds, and the page says it proves reachability only.
    const lax = receiver.path('lax', { trusting: true });
    await page.getByLabel('Endpoint URL').fill(lax);
    await events.getByRole('checkbox', { name: /^pipeline\.sync\.completed\b/ }).check();
    await page.getByRole('button', { name: 'Register webhook' }).click();
    await page.getByTestId('secret').waitFor();
    const secret = (await page.getByTestId('secret').textContent())!;
    await page.getByRole('button', { name: 'Send test.ping' }).click();
    const log = page.getByTestId('delivery-log');
    await log.getByText('Reachable, signature NOT verified').waitFor();
    expect(await log.locator('.status-succeeded').count()).toBe(0);
    expect(await log.locator('.status-reachable').count()).toBe(1);
    await page.getByText('not verified: send a test.ping').waitFor();

    // Edit the URL to a receiver that verifies with the same secret: the next ping is verified.
    const strict = receiver.path('strict');
    receiver.setSecrets('strict', [secret]);
    await page.getByRole('button', { name: `Edit ${lax}` }).click();
    const edit = page.getByRole('form', { name: `Edit ${lax}` });
    await edit.getByLabel('URL of this endpoint').fill(strict);
    await edit.getByRole('checkbox', { name: /^identity\.match\b/ }).check();
    await portal.audit('webhooks-edit');
    await edit.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(strict).waitFor();
    await page.getByText(/Events: pipeline\.sync\.completed, identity\.match/).waitFor();
    await page.getByRole('button', { name: 'Send test.ping' }).click();
    await log.getByText('Signature verified').waitFor();
    expect(receiver.of('strict').map((r) => r.status)).toEqual([200, 401]);
    await page.getByText(/^verified /).waitFor();

    // A sample of any catalog type, whatever the filter: its signed body and the receiver's answer are shown.
    await page.getByLabel('Event type for a sample').selectOption({ label: 'tefca.xca.query.completed' });
    await page.getByRole('button', { name: 'Send sample' }).click();
    const sample = log.locator('li', { hasText: 'tefca.xca.query.completed' });
    await sample.getByText('SUCCEEDED').waitFor();
    await sample.locator('summary').click();
    expect(await sample.getByLabel(/^Request body of dlv_/).textContent()).toMatch(/"type": "tefca\.xca\.query\.completed"[\s\S]*"sample": true/);
    expect(await sample.getByLabel('Response body of attempt 1').textContent()).toBe('answer 200');
    await page.getByTestId('success-rate').getByText('100 % of 3 attempts in the last 24 h').waitFor();
    await portal.audit('webhooks-delivery-details');

    // Rotation with an overlap: both secrets sign until the time shown.
    await page.getByLabel('When rotating a signing secret').selectOption({ label: 'Both secrets sign for 1 hour' });
    await page.getByRole('button', { name: `Rotate secret of ${strict}` }).click();
    await page.getByText(/Deliveries carry both signatures \(new and old secret\) until/).waitFor();
    expect(await page.getByTestId('secret').textContent()).not.toBe(secret);

    // Disable, then enable again.
    await page.getByRole('button', { name: `Disable ${strict}` }).click();
    await page.getByText('disabled (partner)').waitFor();
    await page.getByRole('button', { name: `Enable ${strict}` }).click();
    await page.getByRole('button', { name: `Disable ${strict}` }).waitFor();

    // Certification: the HMAC item says what it checks and is complete from the verified ping; the
    // FHIR read made at the start with an API token completes "First authenticated call".
    await portal.visit('/certification', 'certification-evidence');
    expect(await page.locator('li', { hasText: 'Webhook HMAC-SHA256 verification' }).first().textContent()).toMatch(/refused with 4xx/);
    await page.getByText('✓ Webhook HMAC-SHA256 verification').first().waitFor();
    await page.getByText('✓ First authenticated call in sandbox').first().waitFor();
  });
});

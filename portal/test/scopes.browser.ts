import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvedPartner, openPortal, type Portal } from './open-portal.js';

/**
 * Scopes in the portal: a partner requests scopes with a reason, a grant reaches the open session
 * at once (the TEFCA page works on the next page, without signing out), an operator refuses a
 * request with a reason shown on its field, and edits a partner's scopes directly.
 */
describe('scopes in the portal', () => {
  let portal: Portal;
  let partner: { partnerGpid: string; email: string };

  beforeAll(async () => {
    portal = await openPortal('scopes', { SVC_RATE_LIMITS: 'off' });
    partner = await approvedPartner(portal.t);
  });
  afterAll(() => portal?.close());

  it('a partner requests TEFCA scopes; the grant reaches the signed-in session at once', async () => {
    const { page, t } = portal;
    await portal.signInPartner(partner.email);
    await page.getByRole('link', { name: 'TEFCA exchange' }).click();
    await page.getByText('which your organization does not hold').waitFor();

    await page.getByRole('link', { name: 'Scopes', exact: true }).click();
    await page.getByRole('heading', { name: 'Request scopes' }).waitFor();
    await portal.audit('scopes');
    // Validation shows on the field.
    await page.getByRole('checkbox', { name: /tefca\.xcpd\.\*/ }).check();
    await page.getByRole('checkbox', { name: /tefca\.xca\.\*/ }).check();
    await page.getByLabel('Why your organization needs them').fill('short');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.locator('#request-reason-error').getByText('at least 10 characters').waitFor();
    await page.getByLabel('Why your organization needs them').fill('Patient discovery for our care coordination team.');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByRole('status').getByText(/Request scr_\w+ sent/).waitFor();
    await page.getByTestId('scope-requests').getByText('PENDING').waitFor();
    await portal.audit('scopes-requested');

    // An operator grants it (from another browser); this session is not signed out and in again.
    const pending = await t.graphql<{ scopeRequests: { edges: { node: { id: string; partnerGpid: string } }[] } }>('{ scopeRequests(status: PENDING, first: 50) { edges { node { id partnerGpid } } } }');
    const id = pending.data!.scopeRequests.edges.find((e) => e.node.partnerGpid === partner.partnerGpid)!.node.id;
    expect((await t.graphql('mutation($id: ID!) { grantScopeRequest(id: $id) { status } }', { id })).errors).toBeUndefined();

    await page.getByRole('link', { name: 'TEFCA exchange' }).click();
    await page.getByRole('heading', { name: 'Patient discovery (XCPD)' }).waitFor();
    await page.getByRole('link', { name: 'Scopes', exact: true }).click();
    await page.getByTestId('scope-requests').getByText('GRANTED').waitFor();
    await page.getByTestId('granted-scopes').getByText('tefca.xcpd.*').waitFor();

    // A second request, for the operator to refuse.
    await page.getByRole('checkbox', { name: /identity\.merge/ }).check();
    await page.getByLabel('Why your organization needs them').fill('We steward duplicate patient records.');
    await page.getByRole('button', { name: 'Send request' }).click();
    await page.getByTestId('scope-requests').getByText('PENDING').waitFor();
    await portal.signOut();
  });

  it('an operator refuses a request with a reason and edits a partner\'s scopes in the portal', async () => {
    const { page, t } = portal;
    await portal.signInOperator();
    await page.getByRole('link', { name: 'Scope requests' }).click();
    await page.getByRole('heading', { name: 'Waiting for a decision' }).waitFor();
    await page.getByTestId('pending-scope-requests').getByText('We steward duplicate patient records.').waitFor();
    await portal.audit('scope-requests');

    const refuse = page.getByRole('button', { name: /^Refuse identity\.merge/ });
    await refuse.click();
    await page.getByText('is required').waitFor();
    await page.getByLabel(/^Decision note for/).fill('Merges need a signed data stewardship addendum.');
    await refuse.click();
    await page.getByRole('status').getByText(/refused/).waitFor();
    await page.getByText('No scope requests waiting.').waitFor();

    // Direct edit: remove identity.resolve from the partner's grant.
    await page.getByLabel('Partner', { exact: true }).selectOption(partner.partnerGpid);
    const resolve = page.getByRole('checkbox', { name: /^identity\.resolve/ });
    expect(await resolve.isChecked()).toBe(true);
    await resolve.uncheck();
    await page.getByRole('button', { name: 'Save scopes' }).click();
    await page.getByRole('status').getByText(/Saved: 0 added, 1 removed/).waitFor();
    await portal.audit('scope-requests-edited');
    const grant = await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: partner.partnerGpid });
    expect(grant.data!.partner.grantedScopes).not.toContain('identity.resolve');
    expect(grant.data!.partner.grantedScopes).toContain('tefca.xcpd.*');
    await portal.signOut();

    // The partner reads the refusal and its reason.
    await portal.signInPartner(partner.email);
    await portal.visit('/scopes', 'scopes-decided');
    await page.getByTestId('scope-requests').getByText('Merges need a signed data stewardship addendum.').waitFor();
  });
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../../test/support/system.js';
import { apiToken, fhir, registerPartner } from '../../test/support/fhir.js';
import { eventually, PATIENCE_MS } from '../../test/support/patience.js';
import { freePort } from '../../test/support/processes.js';
import { openPortal, type Portal } from './open-portal.js';

const PASSWORD = 'Tidal7!Quokka#Lantern';

const PEER_ID = 'urn:oid:2.999.77';

/** A peer TEFCA community (a second instance of the service) holding one patient with one document. */
async function peerCommunity(operatorToken: string): Promise<{ peer: TestSystem; url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const peer = await bootSystem({ SVC_BOOTSTRAP_TOKEN: operatorToken, SVC_PUBLIC_URL: url, SVC_TEFCA_HOME_COMMUNITY_ID: PEER_ID, SVC_TEFCA_HOME_COMMUNITY_NAME: 'Lakeside Community', SVC_RATE_LIMITS: 'off' });
  await peer.system.app.listen({ port, host: '127.0.0.1' });
  const writer = await apiToken(peer, await registerPartner(peer, 'Lakeside Hospital'), ['cms.fhir.r4.read', 'cms.fhir.rest.write']);
  const patient = await fhir(peer, writer, 'POST', '/Patient', { resourceType: 'Patient', name: [{ given: ['Amélie'], family: 'Côté' }], birthDate: '1984-03-07', gender: 'female' }, { 'x-svc-source': 'provider' });
  expect(patient.statusCode).toBe(201);
  const id = patient.json().id as string;
  // The identity registry links the Patient to a GPID, which is what discovery finds.
  await eventually(async () => expect((await fhir(peer, writer, 'GET', `/Patient/${id}`)).json().identifier).toEqual([expect.objectContaining({ system: 'urn:svc:gpid' })]));
  const doc = await fhir(peer, writer, 'POST', '/DocumentReference', {
    resourceType: 'DocumentReference',
    status: 'current',
    type: { coding: [{ system: 'http://loinc.org', code: '18842-5', display: 'Discharge summary' }] },
    subject: { reference: `Patient/${id}` },
    date: '2026-10-02T09:30:00Z',
    content: [{ attachment: { contentType: 'text/plain', data: Buffer.from('Discharged home.').toString('base64'), title: 'Discharge summary' } }],
  });
  expect(doc.statusCode).toBe(201);
  return { peer, url };
}

describe('partner portal in a real browser', () => {
  let portal: Portal;
  let t: TestSystem;
  let peer: TestSystem;
  let base: string;
  let page: Page;
  let receiver: Server;
  let receiverUrl: string;
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];

  beforeAll(async () => {
    const peerToken = `op_${'p'.repeat(32)}`;
    const lakeside = await peerCommunity(peerToken);
    peer = lakeside.peer;
    receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const address = receiver.address() as { port: number };
    receiverUrl = `http://127.0.0.1:${address.port}/hooks`;
    portal = await openPortal('journey', {
      SVC_WEBHOOK_ALLOW_PRIVATE: 'true',
      SVC_TEFCA_ALLOW_PRIVATE: 'true',
      // The peer and the webhook receiver answer as fast as the machine lets them: no deadline to race.
      SVC_TEFCA_TIMEOUT_MS: String(PATIENCE_MS),
      SVC_WEBHOOK_TIMEOUT_MS: String(PATIENCE_MS),
      SVC_TEFCA_PEERS: JSON.stringify([{ home_community_id: PEER_ID, name: 'Lakeside Community', base_url: lakeside.url, capabilities: ['xcpd', 'xca'], token: peerToken }]),
    });
    ({ t, base, page } = portal);
  });

  afterAll(async () => {
    await portal?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    await peer?.close();
  });

  const visit = (path: string, name: string) => portal.visit(path, name);
  const audit = (name: string) => portal.audit(name);

  it('applies, is approved by an operator, signs in, makes a token with two scopes, registers a webhook, pings it and revokes the token', { timeout: 300_000 }, async () => {
    const tag = Date.now().toString(36);
    const email = `dana.whitfield+${tag}@riverbend-health.org`;

    // Public pages.
    await visit('/sign-in', 'sign-in');
    await visit('/changelog', 'changelog-public');

    // 1. Apply: three steps, one draft.
    await visit('/apply', 'apply');
    await page.getByLabel('Legal name').fill(`Riverbend Health ${tag}`);
    await page.getByLabel('NPI').fill('1234567893');
    await page.getByLabel('Contact name').fill('Dana Whitfield');
    await page.getByLabel('Contact e-mail (your portal sign-in)').fill(email);
    await page.getByLabel('Contact phone').fill('+1 202 555 0143');
    await page.getByLabel('Contact title').fill('Chief Information Officer');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByRole('group', { name: 'Capabilities' }).waitFor();
    await page.getByLabel('fhir_write').check();
    await page.getByLabel('bundle_push').check();
    await audit('apply-step-2');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    await page.getByLabel('Portal password').fill(PASSWORD);
    await page.getByLabel(/mutual NDA/).check();
    await page.getByLabel(/Business Associate Agreement/).check();
    await page.getByRole('button', { name: 'Submit application' }).click();
    await page.getByText('Your application was submitted').waitFor();

    // 2. The operator approves it.
    await page.goto(`${base}/portal/sign-in`);
    await page.getByLabel('Operator token').fill(t.operatorToken);
    await page.getByRole('button', { name: 'Sign in as operator' }).click();
    await page.getByRole('link', { name: 'Applications' }).waitFor();
    await visit('/applications', 'operator-applications');
    await page.getByRole('button', { name: `Approve Riverbend Health ${tag}` }).click();
    await page.getByText('No applications waiting for review.').waitFor();
    await visit('/identity-changes', 'operator-merges-splits');
    await page.getByText(/Two-person rule/).waitFor();
    await visit('/partners', 'operator-partners');
    await page.getByRole('cell', { name: `Riverbend Health ${tag}` }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
    // The operator also grants the TEFCA and analytics products (over the API: the portal has no grant page).
    const partners = await t.graphql<{ partners: { edges: { node: { gpid: string; legalName: string; grantedScopes: string[] } }[] } }>('{ partners(first: 100) { edges { node { gpid legalName grantedScopes } } } }');
    const approved = partners.data!.partners.edges.map((e) => e.node).find((p) => p.legalName === `Riverbend Health ${tag}`)!;
    const granted = await t.request({ method: 'PUT', url: `/cms/partners/${approved.gpid}/scopes`, body: { scopes: [...approved.grantedScopes, 'tefca.xcpd.*', 'tefca.xca.*', 'analytics.query'] } });
    expect(granted.statusCode).toBe(200);

    // 3. The new partner signs in.
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('link', { name: 'API tokens' }).waitFor();
    await visit('', 'dashboard');

    // 4. A token with two scopes; the secret is shown once.
    await visit('/tokens', 'tokens');
    await page.getByLabel('Name').fill('browser journey');
    const scopeBoxes = page.getByRole('group', { name: /Scopes/ }).getByRole('checkbox');
    expect(await scopeBoxes.count()).toBeGreaterThanOrEqual(2);
    await scopeBoxes.nth(0).check();
    await scopeBoxes.nth(1).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByTestId('secret').waitFor();
    expect(await page.getByTestId('secret').textContent()).toMatch(/^svc_pat_/);
    const row = page.getByRole('row', { name: /browser journey/ });
    await row.waitFor();
    expect((await row.locator('td').nth(2).textContent())?.split(', ')).toHaveLength(2);
    await audit('tokens-created');

    // 5. A webhook against the local receiver; test.ping reaches it and shows in the delivery log.
    await visit('/webhooks', 'webhooks');
    await page.getByLabel('Endpoint URL').fill(receiverUrl);
    await page.getByRole('group', { name: 'Events' }).getByRole('checkbox').first().check();
    await page.getByRole('button', { name: 'Register webhook' }).click();
    await page.getByTestId('secret').waitFor();
    expect(await page.getByTestId('secret').textContent()).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Send test.ping' }).click();
    const log = page.getByTestId('delivery-log');
    await log.getByText('test.ping').first().waitFor();
    await log.getByText('SUCCEEDED').first().waitFor();
    expect(received.some((r) => r.body.includes('test.ping') && typeof r.headers['webhook-signature'] === 'string')).toBe(true);
    await audit('webhooks-delivered');

    // 6. An OAuth client: registered, its secret rotated with a grace period (the id stays), deleted.
    await visit('/oauth-clients', 'oauth-clients');
    await page.getByLabel('Client name').fill('browser client');
    await page.getByRole('group', { name: 'Scopes' }).getByRole('checkbox').first().check();
    await page.getByRole('button', { name: 'Register client' }).click();
    await page.getByTestId('secret').waitFor();
    const firstSecret = await page.getByTestId('secret').textContent();
    expect(firstSecret).toMatch(/svc_cs_/);
    await page.getByLabel('When rotating a secret').selectOption({ label: 'Old secret works 1 more hour' });
    await page.getByRole('button', { name: 'Rotate secret of browser client' }).click();
    await page.getByText(/old secret until/).waitFor();
    const rotatedSecret = await page.getByTestId('secret').textContent();
    expect(rotatedSecret).toMatch(/svc_cs_/);
    expect(rotatedSecret).not.toBe(firstSecret);
    expect(await page.getByRole('row', { name: /browser client/ }).count()).toBe(1);
    await audit('oauth-clients-rotated');
    await page.getByRole('button', { name: 'Delete browser client' }).click();
    await page.getByText('No clients yet.').waitFor();

    // 7. Usage: the partner's rate-limit counters, spent by this session's own requests.
    await visit('/pipeline', 'pipeline');
    await page.getByRole('img', { name: /Spent in the current window/ }).waitFor();
    expect(await page.getByRole('img', { name: /Spent in the current window/ }).getAttribute('aria-label')).toMatch(/partner-ecosystem \(500\/min\) [1-9]\d* used/);

    // 8. The TEFCA playground: the patient is found in the peer community, then its documents; the exchanges are in the audit log.
    await visit('/tefca', 'tefca');
    await page.getByLabel('Given names').fill('Amelie');
    await page.getByLabel('Family name').fill('Cote');
    await page.getByLabel('Date of birth').fill('1984-03-07');
    await page.getByRole('button', { name: 'Search peer communities' }).click();
    await page.getByTestId('tefca-matches').getByText('Lakeside Community').waitFor();
    await page.getByRole('button', { name: /^Find documents of / }).first().click();
    await page.getByRole('cell', { name: 'Discharge summary' }).first().waitFor();
    await audit('tefca-documents');
    await page.reload();
    await page.getByTestId('tefca-exchanges').getByRole('cell', { name: 'T-TRTMNT' }).first().waitFor();

    // 9. The analytics playground: a question is read into a query, reviewed, then executed.
    // Its questions run over health data, so with an API token (a session has no data-plane scope).
    await page.goto(`${base}/portal/tokens`);
    await page.getByLabel('Name').fill('analytics playground');
    await page.getByRole('checkbox', { name: /^analytics\.query / }).check();
    await page.getByRole('checkbox', { name: /^cms\.fhir\.r4\.read / }).check();
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByTestId('secret').waitFor();
    const analyticsToken = (await page.getByTestId('secret').textContent())!;
    await visit('/analytics', 'analytics');
    await page.getByLabel('API token').fill(analyticsToken);
    await page.getByLabel('Question').fill('How many patients with diabetes?');
    await page.getByRole('button', { name: 'Read the question' }).click();
    await page.getByTestId('analytics-summary').waitFor();
    await page.getByRole('button', { name: 'Execute' }).click();
    await page.getByTestId('analytics-result').waitFor();
    expect(await page.getByTestId('analytics-result').textContent()).toMatch(/from 0 patients/);
    await audit('analytics-executed');
    await page.getByLabel('Question').fill('How many unicorns on the moon?');
    await page.getByRole('button', { name: 'Read the question' }).click();
    await page.getByText('Questions it can read:').waitFor();

    // The remaining partner pages.
    await visit('/legal', 'legal');
    await visit('/certification', 'certification');
    await visit('/catalog', 'catalog');
    await visit('/openapi', 'openapi');
    await visit('/changelog', 'changelog');

    // The GraphQL explorer runs with the signed-in session, and nothing on it breaks the CSP.
    const cspErrors: string[] = [];
    page.on('console', (msg) => msg.type() === 'error' && /Content Security Policy/i.test(msg.text()) && cspErrors.push(msg.text()));
    await page.goto(`${base}/portal/graphiql.html`);
    await page.locator('.graphiql-execute-button').click();
    await page.locator('.result-window').getByText('"portal"').waitFor();
    expect(cspErrors).toEqual([]);
    await portal.audit('graphiql');

    // The REST explorer shows our OpenAPI document and tries a route with the same session.
    await page.goto(`${base}/portal/rest-explorer.html?spec=platform`);
    const catalogRoute = page.locator('.opblock-get', { hasText: '/api/partner/routes' }).first();
    await catalogRoute.locator('.opblock-summary').first().click();
    await catalogRoute.getByRole('button', { name: 'Execute' }).click();
    await catalogRoute.locator('.live-responses-table .response-col_status').getByText('200').waitFor();
    expect(cspErrors).toEqual([]);
    await portal.audit('rest-explorer');

    // 10. Revoke the token.
    await page.goto(`${base}/portal/tokens`);
    await page.getByRole('button', { name: 'Revoke browser journey' }).click();
    await page.getByRole('row', { name: /browser journey/ }).waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /analytics playground/ }).waitFor();

    expect(portal.checked.length).toBeGreaterThanOrEqual(23);
  });
});

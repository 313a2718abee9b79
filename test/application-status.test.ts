import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { AGREEMENTS, INTEGRATION_STEP, organizationStep, PORTAL_PASSWORD, saveStep, startApplication, submitApplication } from './support/partner-onboarding.js';
import { expectedReviewBy } from '../subgraphs/partner/src/domain/application-status.js';

const STATUS = `query Status($id: ID!, $token: String) { partnerApplication(id: $id, resumeToken: $token) {
  id status decisionReason reviewTime expectedReviewBy history { event at reason } } }`;
const LOGIN = 'mutation Login($email: String!, $password: String!) { portalLogin(email: $email, password: $password) { accessToken } }';
const OPEN = 'mutation Open($email: String!, $password: String!) { openPartnerApplication(email: $email, password: $password) { resumeToken application { id status history { event reason } } } }';

/** An application saved through its three steps (a draft with a password), optionally submitted. */
async function applied(t: TestSystem, tag: string, submit = true): Promise<{ id: string; resumeToken: string; email: string }> {
  const app = await startApplication(t);
  const organization = organizationStep(tag);
  for (const [step, input] of [
    ['ORGANIZATION', organization],
    ['INTEGRATION', INTEGRATION_STEP],
    ['ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS }],
  ] as const) {
    expect((await saveStep(t, app, step, input)).data?.savePartnerApplicationStep.fieldErrors).toEqual([]);
  }
  if (submit) expect((await submitApplication(t, app)).errors).toBeUndefined();
  return { ...app, email: organization.contact.email };
}

describe('application status: history, review time, and sign-in before approval', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
  });
  afterAll(() => t?.close());

  it('counts the expected review in business days', () => {
    // Friday 10:00 UTC + 2 business days = Tuesday 10:00 UTC.
    expect(expectedReviewBy(new Date('2026-11-27T10:00:00Z')).toISOString()).toBe('2026-12-01T10:00:00.000Z');
    expect(expectedReviewBy(new Date('2026-11-24T10:00:00Z')).toISOString()).toBe('2026-11-26T10:00:00.000Z');
  });

  it('records the history (submitted, returned with the reason, submitted again, rejected with the reason) and the expected review', async () => {
    const app = await applied(t, 'hist');
    const submitted = await t.graphql<{ partnerApplication: { status: string; reviewTime: string; expectedReviewBy: string; history: { event: string }[] } }>(STATUS, { id: app.id, token: app.resumeToken }, null);
    expect(submitted.data!.partnerApplication.status).toBe('SUBMITTED');
    expect(submitted.data!.partnerApplication.reviewTime).toBe('2 business days');
    expect(Date.parse(submitted.data!.partnerApplication.expectedReviewBy)).toBeGreaterThan(Date.now());
    expect(submitted.data!.partnerApplication.history.map((h) => h.event)).toEqual(['STARTED', 'SUBMITTED']);

    const returned = await t.graphql('mutation R($id: ID!) { returnPartnerApplication(id: $id, reason: "The NPI belongs to another organization.") { status } }', { id: app.id });
    expect(returned.errors).toBeUndefined();
    expect((await submitApplication(t, app)).errors).toBeUndefined();
    const rejected = await t.graphql('mutation J($id: ID!) { rejectPartnerApplication(id: $id, reason: "Not a covered entity.") { status } }', { id: app.id });
    expect(rejected.errors).toBeUndefined();

    // The same over REST, with the resume token header.
    const rest = await t.request({ url: `/api/partner/applications/${app.id}`, token: null, headers: { 'x-svc-resume-token': app.resumeToken } });
    expect(rest.statusCode).toBe(200);
    const body = rest.json();
    expect(body.status).toBe('rejected');
    expect(body.review_time).toBe('2 business days');
    expect(body.expected_review_by).toBeNull();
    expect(body.history.map((h: { event: string; reason: string | null }) => [h.event, h.reason ?? null])).toEqual([
      ['started', null],
      ['submitted', null],
      ['returned', 'The NPI belongs to another organization.'],
      ['submitted', null],
      ['rejected', 'Not a covered entity.'],
    ]);
  });

  it('signing in with the password of an application that is not approved says so (403) without counting a failure; a wrong one answers as for any address', async () => {
    const submitted = await applied(t, 'pending');
    const rejected = await applied(t, 'refused');
    expect((await t.graphql('mutation J($id: ID!) { rejectPartnerApplication(id: $id, reason: "Duplicate of another application.") { status } }', { id: rejected.id })).errors).toBeUndefined();
    const draft = await applied(t, 'draft', false);

    for (const [app, status] of [[submitted, 'submitted'], [rejected, 'rejected'], [draft, 'draft']] as const) {
      // More right attempts than the lockout allows failures: none of them is counted.
      for (let i = 0; i < 6; i++) {
        const res = await t.request({ method: 'POST', url: '/portal/session', token: null, body: { email: app.email, password: PORTAL_PASSWORD } });
        expect(res.statusCode, res.body).toBe(403);
        expect(res.json()).toMatchObject({ code: 'FORBIDDEN', reason: 'application_not_approved', application_id: app.id, application_status: status });
        expect(res.json().detail).not.toMatch(/incorrect/);
      }
      const graphql = await t.graphql(LOGIN, { email: app.email, password: PORTAL_PASSWORD }, null);
      expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', reason: 'application_not_approved', application_id: app.id });
    }

    // A wrong password for an address with an application, and for an address without one: the same answer.
    const withApplication = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: submitted.email, password: 'Wrong-password-123!' } });
    const without = await t.request({ method: 'POST', url: '/cms/partner-login', token: null, body: { email: 'nobody+none@riverbend-health.org', password: 'Wrong-password-123!' } });
    expect(withApplication.statusCode).toBe(401);
    expect(without.statusCode).toBe(401);
    expect(withApplication.json().detail).toBe(without.json().detail);
    expect(Object.keys(withApplication.json()).sort()).toEqual(Object.keys(without.json()).sort());
  });

  it('opens the application with the e-mail and password (GraphQL and REST), with a fresh resume token that replaces the old one', async () => {
    const app = await applied(t, 'open');
    const opened = await t.graphql<{ openPartnerApplication: { resumeToken: string; application: { id: string; status: string; history: { event: string }[] } } }>(OPEN, { email: app.email, password: PORTAL_PASSWORD }, null);
    expect(opened.errors).toBeUndefined();
    expect(opened.data!.openPartnerApplication.application).toMatchObject({ id: app.id, status: 'SUBMITTED' });
    const fresh = opened.data!.openPartnerApplication.resumeToken;
    expect(fresh).toMatch(/^svc_app_/);
    expect((await t.graphql<{ partnerApplication: unknown }>(STATUS, { id: app.id, token: app.resumeToken }, null)).data!.partnerApplication).toBeNull();
    expect((await t.graphql<{ partnerApplication: { id: string } }>(STATUS, { id: app.id, token: fresh }, null)).data!.partnerApplication.id).toBe(app.id);

    const rest = await t.request({ method: 'POST', url: '/api/partner/applications/sign-in', token: null, body: { email: app.email, password: PORTAL_PASSWORD } });
    expect(rest.statusCode, rest.body).toBe(200);
    expect(rest.headers['cache-control']).toMatch(/no-store/);
    expect(rest.json()).toMatchObject({ application_id: app.id, status: 'submitted', review_time: '2 business days' });
    expect(rest.json().resume_token).toMatch(/^svc_app_/);

    const wrong = await t.request({ method: 'POST', url: '/api/partner/applications/sign-in', token: null, body: { email: app.email, password: 'Wrong-password-123!' } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().detail).toBe('The e-mail address or password is incorrect.');
    const missing = await t.request({ method: 'POST', url: '/api/partner/applications/sign-in', token: null, body: { email: app.email } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toEqual([expect.objectContaining({ field: 'password' })]);
  });
});

describe('the bare origin and the icon', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
  });
  afterAll(() => t?.close());

  it('sends a browser from / to the portal; API clients keep their problem+json 404', async () => {
    const browser = await t.request({ url: '/', token: null, headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(browser.statusCode).toBe(302);
    expect(browser.headers['location']).toBe('/portal/');
    const portal = await t.request({ url: '/portal/', token: null, headers: { accept: 'text/html' } });
    expect(portal.statusCode).toBe(200);
    expect(portal.headers['content-type']).toMatch(/^text\/html/);
    for (const accept of [undefined, 'application/json', '*/*', 'text/html;q=0']) {
      const api = await t.request({ url: '/', token: null, headers: accept ? { accept } : {} });
      expect(api.statusCode, accept).toBe(404);
      expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(api.json().code).toBe('NOT_FOUND');
    }
  });

  it('serves /favicon.ico (the committed SVG)', async () => {
    const icon = await t.request({ url: '/favicon.ico', token: null });
    expect(icon.statusCode).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(icon.body).toMatch(/^<svg /);
  });
});

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { USE_POSTGRES } from './support/databases.js';
import {
  AGREEMENTS,
  approveApplication,
  INTEGRATION_STEP,
  onboardPartner,
  organizationStep,
  PORTAL_PASSWORD,
  portalSession,
  saveStep,
  startApplication,
  submitApplication,
} from './support/partner-onboarding.js';
import { eventually } from './support/patience.js';

const RESUME = `query Resume($id: ID!, $token: String) {
  partnerApplication(id: $id, resumeToken: $token) {
    id status organization integration account portalPasswordSet decisionReason partnerGpid
    progress { nextStep complete steps { step status } errors { field message } }
  }
}`;

async function eventTypes(t: TestSystem, types: string[], expected: number): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const query = 'query Events($types: [String!]) { events(first: 50, types: $types) { edges { node { type partnerGpid data } } } }';
  return eventually(async () => {
    const res = await t.graphql<{ events: { edges: { node: { type: string; data: Record<string, unknown> } }[] } }>(query, { types });
    const nodes = res.data?.events.edges.map((e) => e.node) ?? [];
    expect(nodes.length, `events of ${types.join(', ')}`).toBeGreaterThanOrEqual(expected);
    return nodes;
  });
}

describe('partner onboarding: a draft application saved, resumed, submitted and reviewed', () => {
  let t: TestSystem;
  beforeAll(async () => {
    // Every application here comes from one address, more often than the anonymous onboarding
    // limits allow in a minute; those limits are tested in test/hardening/04-graphql-rate-limits.test.ts.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
  });
  afterAll(() => t?.close());

  it('applies in three steps with a saved draft resumed later, field errors, submission and approval', async () => {
    const app = await startApplication(t);
    expect(app.id).toMatch(/^app_[0-9a-z]{26}$/);
    expect(app.resumeToken).toMatch(/^svc_app_/);

    // Step 1 with a mistyped NPI (wrong check digit): saved, but with a field-level error.
    const organization = organizationStep('onboarding');
    const badNpi = await saveStep(t, app, 'ORGANIZATION', { ...organization, npi: '1234567890' });
    expect(badNpi.errors).toBeUndefined();
    expect(badNpi.data!.savePartnerApplicationStep.valid).toBe(false);
    expect(badNpi.data!.savePartnerApplicationStep.fieldErrors).toEqual([{ field: 'organization.npi', message: expect.stringMatching(/check digit/i) }]);

    const fixed = await saveStep(t, app, 'ORGANIZATION', organization);
    expect(fixed.data!.savePartnerApplicationStep).toMatchObject({ valid: true, fieldErrors: [], application: { progress: { nextStep: 'INTEGRATION', complete: false } } });

    // Later, from another browser: resume with the id and the resume token only.
    const resumed = await t.graphql<{ partnerApplication: Record<string, any> }>(RESUME, { id: app.id, token: app.resumeToken }, null);
    expect(resumed.data!.partnerApplication).toMatchObject({
      status: 'DRAFT',
      organization: { legal_name: 'Riverbend Health onboarding', organization_type: 'HEALTH_SYSTEM', npi: '1234567893', contact: { phone: '+12025550143' } },
      integration: null,
      progress: { nextStep: 'INTEGRATION', steps: [{ step: 'ORGANIZATION', status: 'COMPLETE' }, { step: 'INTEGRATION', status: 'NOT_STARTED' }, { step: 'ACCOUNT', status: 'NOT_STARTED' }] },
    });
    const wrongToken = await t.graphql<{ partnerApplication: unknown }>(RESUME, { id: app.id, token: 'svc_app_wrong' }, null);
    expect(wrongToken.data!.partnerApplication).toBeNull();

    expect((await saveStep(t, app, 'INTEGRATION', INTEGRATION_STEP)).data!.savePartnerApplicationStep.fieldErrors).toEqual([]);

    // Step 3 with a weak password and an agreement version that is not in force.
    const weak = await saveStep(t, app, 'ACCOUNT', { portal_password: 'password123', agreements: { ...AGREEMENTS, baa: { accepted: true, version: 'v2025-01' } } });
    const weakErrors = weak.data!.savePartnerApplicationStep.fieldErrors;
    expect(weakErrors.map((e) => e.field)).toContain('account.portal_password');
    expect(weakErrors).toContainEqual({ field: 'account.agreements.baa.version', message: expect.stringContaining('v2026-03') });
    expect(weak.data!.savePartnerApplicationStep.application.portalPasswordSet).toBe(false);

    // Submitting now is refused, field by field.
    const early = await submitApplication(t, app);
    expect(early.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', status: 422 });
    expect((early.errors?.[0]?.extensions?.['fieldErrors'] as { field: string }[]).map((e) => e.field)).toEqual(
      expect.arrayContaining(['account.portal_password', 'account.agreements.baa.version']),
    );

    const good = await saveStep(t, app, 'ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS });
    expect(good.data!.savePartnerApplicationStep).toMatchObject({ valid: true, application: { portalPasswordSet: true, progress: { complete: true, nextStep: null } } });
    // The draft never holds the password, only the agreements.
    expect(JSON.stringify(good.data)).not.toContain(PORTAL_PASSWORD);
    expect(good.data!.savePartnerApplicationStep.application.account).toEqual({
      agreements: { mnda: { accepted: true, version: 'v2026-03', document_id: 'cms_mnda_v2026_03' }, baa: { accepted: true, version: 'v2026-03', document_id: 'cms_hipaa_baa_v2026_03' } },
    });

    const submitted = await submitApplication(t, app);
    expect(submitted.errors).toBeUndefined();
    expect(submitted.data!.submitPartnerApplication.status).toBe('SUBMITTED');
    const editAfterSubmit = await saveStep(t, app, 'INTEGRATION', INTEGRATION_STEP);
    expect(editAfterSubmit.errors?.[0]?.extensions).toMatchObject({ code: 'CONFLICT', status: 409 });

    // Not a reviewer: an anonymous caller cannot review or list.
    const anonymous = await approveApplication(t, app.id, null);
    expect(anonymous.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    const list = await t.graphql('query { partnerApplications(status: SUBMITTED) { edges { node { id } } } }', {}, null);
    expect(list.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');

    // The reviewer sees it in the queue and approves it.
    const queue = await t.graphql<{ partnerApplications: { edges: { node: { id: string } }[] } }>('query { partnerApplications(status: SUBMITTED) { edges { node { id } } } }');
    expect(queue.data!.partnerApplications.edges.map((e) => e.node.id)).toContain(app.id);
    const approved = await approveApplication(t, app.id);
    expect(approved.errors).toBeUndefined();
    const result = approved.data!.approvePartnerApplication;
    expect(result.status).toBe('APPROVED');
    expect(result.partnerGpid).toMatch(/^CMS-\d{8}$/);
    expect(result.partner).toEqual({ gpid: result.partnerGpid, legalName: 'Riverbend Health onboarding', organizationType: 'HEALTH_SYSTEM' });
    expect((await approveApplication(t, app.id)).errors?.[0]?.extensions?.['code']).toBe('CONFLICT');

    // The applicant's resume token now shows the outcome.
    const outcome = await t.graphql<{ partnerApplication: { status: string; partnerGpid: string } }>(RESUME, { id: app.id, token: app.resumeToken }, null);
    expect(outcome.data!.partnerApplication).toMatchObject({ status: 'APPROVED', partnerGpid: result.partnerGpid });

    // The new partner signs in to the portal with the password chosen in step 3 and sees its agreements.
    const session = await portalSession(t, organization.contact.email);
    const documents = await t.graphql<{ partner: { gpid: string; legalAgreements: { document: { id: string; sha256: string; sections: number }; acceptedAt: string; signature: null }[] } }>(
      'query Mine($gpid: ID!) { partner(gpid: $gpid) { gpid legalAgreements { document { id sha256 sections } acceptedAt signature { id } } } }',
      { gpid: result.partnerGpid },
      session,
    );
    expect(documents.errors).toBeUndefined();
    expect(documents.data!.partner.legalAgreements).toEqual([
      { document: { id: 'cms_mnda_v2026_03', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), sections: 10 }, acceptedAt: expect.any(String), signature: null },
      { document: { id: 'cms_hipaa_baa_v2026_03', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), sections: 8 }, acceptedAt: expect.any(String), signature: null },
    ]);

    const events = await eventTypes(t, ['partner.application.submitted', 'partner.application.approved', 'partner.registered'], 3);
    expect(events.map((e) => e.type).sort()).toEqual(['partner.application.approved', 'partner.application.submitted', 'partner.registered']);
    expect(events.find((e) => e.type === 'partner.application.approved')!.data).toMatchObject({ application_id: app.id, partner_gpid: result.partnerGpid });
  });

  it('never stores the portal password or the resume token in plaintext', async () => {
    const app = await startApplication(t);
    await saveStep(t, app, 'ORGANIZATION', organizationStep('storage'));
    await saveStep(t, app, 'ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS });
    if (USE_POSTGRES) return; // The SQLite files are the storage to search; PostgreSQL runs the same code.
    const dir = t.storage.env['SVC_DATA_DIR']!;
    const bytes = readdirSync(dir)
      .filter((name) => name.startsWith('partner.sqlite'))
      .map((name) => readFileSync(join(dir, name)).toString('latin1'))
      .join('');
    expect(bytes).toContain(app.id);
    expect(bytes).toContain('$argon2id$');
    expect(bytes).not.toContain(PORTAL_PASSWORD);
    expect(bytes).not.toContain(app.resumeToken);
  });

  it('rejects with a reason, and returns a fixable application to its applicant', async () => {
    const rejectedApp = await startApplication(t);
    const second = await startApplication(t);
    for (const app of [rejectedApp, second]) {
      const tag = app === second ? 'returned' : 'rejected';
      await saveStep(t, app, 'ORGANIZATION', organizationStep(tag));
      await saveStep(t, app, 'INTEGRATION', INTEGRATION_STEP);
      await saveStep(t, app, 'ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS });
      expect((await submitApplication(t, app)).errors).toBeUndefined();
    }
    const noReason = await t.graphql('mutation R($id: ID!) { rejectPartnerApplication(id: $id, reason: "  ") { id } }', { id: rejectedApp.id });
    expect(noReason.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'reason', message: expect.any(String) }] });
    const rejected = await t.graphql<{ rejectPartnerApplication: { status: string; decisionReason: string; reviewer: string } }>(
      'mutation R($id: ID!) { rejectPartnerApplication(id: $id, reason: "Not a covered entity.") { status decisionReason reviewer } }',
      { id: rejectedApp.id },
    );
    expect(rejected.data!.rejectPartnerApplication).toMatchObject({ status: 'REJECTED', decisionReason: 'Not a covered entity.', reviewer: expect.stringMatching(/^tok_/) });
    expect((await approveApplication(t, rejectedApp.id)).errors?.[0]?.extensions?.['code']).toBe('CONFLICT');

    const returned = await t.graphql<{ returnPartnerApplication: { status: string } }>(
      'mutation R($id: ID!) { returnPartnerApplication(id: $id, reason: "Use the organization NPI, not a personal one.") { status } }',
      { id: second.id },
    );
    expect(returned.data!.returnPartnerApplication.status).toBe('DRAFT');
    const draft = await t.graphql<{ partnerApplication: { status: string; decisionReason: string } }>(RESUME, { id: second.id, token: second.resumeToken }, null);
    expect(draft.data!.partnerApplication).toMatchObject({ status: 'DRAFT', decisionReason: 'Use the organization NPI, not a personal one.' });
    expect((await saveStep(t, second, 'ORGANIZATION', { ...organizationStep('returned'), npi: '1245319599' })).data!.savePartnerApplicationStep.valid).toBe(true);
    expect((await submitApplication(t, second)).data!.submitPartnerApplication.status).toBe('SUBMITTED');

    const events = await eventTypes(t, ['partner.application.rejected'], 1);
    expect(events[0]!.data).toMatchObject({ application_id: rejectedApp.id, reason: 'Not a covered entity.' });
  });

  it('refuses a second portal account for the same contact e-mail at approval', async () => {
    const first = await onboardPartner(t, 'duplicate');
    const again = await startApplication(t);
    await saveStep(t, again, 'ORGANIZATION', organizationStep('duplicate'));
    await saveStep(t, again, 'INTEGRATION', INTEGRATION_STEP);
    await saveStep(t, again, 'ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS });
    await submitApplication(t, again);
    const refused = await approveApplication(t, again.id);
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('CONFLICT');
    // Nothing half-made: the application is still waiting, and only the first partner exists.
    const still = await t.graphql<{ partnerApplication: { status: string; partnerGpid: string | null } }>(RESUME, { id: again.id });
    expect(still.data!.partnerApplication).toMatchObject({ status: 'SUBMITTED', partnerGpid: null });
    expect(first.partnerGpid).toMatch(/^CMS-\d{8}$/);
  });
});

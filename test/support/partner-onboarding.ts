import { expect } from 'vitest';
import type { TestSystem } from './system.js';

/** Current legal template version the agreements are accepted in. */
export const AGREEMENTS = { mnda: { accepted: true, version: 'v2026-03' }, baa: { accepted: true, version: 'v2026-03' } };

/** A portal password that satisfies the policy for the organizations below. */
export const PORTAL_PASSWORD = 'Tidal7!Quokka#Lantern';

/** Step 1 of an application, with a contact address unique to `tag`. */
export function organizationStep(tag: string) {
  return {
    legal_name: `Riverbend Health ${tag}`,
    organization_type: 'Health System / Hospital',
    contact: { name: 'Dana Whitfield', email: `dana.whitfield+${tag}@riverbend-health.org`, phone: '+1 202 555 0143', title: 'Chief Information Officer' },
    npi: '1234567893',
  };
}

/** Step 2 of an application. */
export const INTEGRATION_STEP = { use_case: 'care_coordination', capabilities: ['fhir_write', 'bundle_push'], data_direction: 'bidirectional' };

const START = 'mutation { startPartnerApplication { resumeToken application { id status } } }';
const SAVE = `mutation Save($id: ID!, $token: String!, $step: OnboardingStep!, $input: JSONObject!) {
  savePartnerApplicationStep(applicationId: $id, resumeToken: $token, step: $step, input: $input) {
    valid fieldErrors { field message } step application { id status portalPasswordSet account progress { nextStep complete } }
  }
}`;
const SUBMIT = 'mutation Submit($id: ID!, $token: String!) { submitPartnerApplication(applicationId: $id, resumeToken: $token) { id status submittedAt } }';
const APPROVE = 'mutation Approve($id: ID!) { approvePartnerApplication(id: $id) { id status partnerGpid partner { gpid legalName organizationType } } }';

/** Start an application anonymously; answers its id and resume token. */
export async function startApplication(t: TestSystem): Promise<{ id: string; resumeToken: string }> {
  const res = await t.graphql<{ startPartnerApplication: { resumeToken: string; application: { id: string } } }>(START, {}, null);
  expect(res.errors).toBeUndefined();
  return { id: res.data!.startPartnerApplication.application.id, resumeToken: res.data!.startPartnerApplication.resumeToken };
}

export interface SavedStep {
  valid: boolean;
  fieldErrors: { field: string; message: string }[];
  step: string;
  application: { id: string; status: string; portalPasswordSet: boolean; account: Record<string, unknown> | null; progress: { nextStep: string | null; complete: boolean } };
}

/** Save one step anonymously with the resume token. */
export async function saveStep(t: TestSystem, app: { id: string; resumeToken: string }, step: 'ORGANIZATION' | 'INTEGRATION' | 'ACCOUNT', input: unknown) {
  return t.graphql<{ savePartnerApplicationStep: SavedStep }>(SAVE, { id: app.id, token: app.resumeToken, step, input }, null);
}

/** Submit anonymously with the resume token. */
export function submitApplication(t: TestSystem, app: { id: string; resumeToken: string }) {
  return t.graphql<{ submitPartnerApplication: { id: string; status: string } }>(SUBMIT, { id: app.id, token: app.resumeToken }, null);
}

/** Approve as `token` (the operator by default). */
export function approveApplication(t: TestSystem, id: string, token: string | null = t.operatorToken) {
  return t.graphql<{ approvePartnerApplication: { status: string; partnerGpid: string; partner: { gpid: string; legalName: string; organizationType: string } } }>(APPROVE, { id }, token);
}

/** A partner onboarded end to end: applied, submitted and approved. */
export async function onboardPartner(t: TestSystem, tag: string): Promise<{ partnerGpid: string; email: string; applicationId: string }> {
  const app = await startApplication(t);
  const organization = organizationStep(tag);
  for (const [step, input] of [
    ['ORGANIZATION', organization],
    ['INTEGRATION', INTEGRATION_STEP],
    ['ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS }],
  ] as const) {
    const saved = await saveStep(t, app, step, input);
    expect(saved.data?.savePartnerApplicationStep.fieldErrors, `${step}: ${JSON.stringify(saved.errors)}`).toEqual([]);
  }
  expect((await submitApplication(t, app)).errors).toBeUndefined();
  const approved = await approveApplication(t, app.id);
  expect(approved.errors).toBeUndefined();
  return { partnerGpid: approved.data!.approvePartnerApplication.partnerGpid, email: organization.contact.email, applicationId: app.id };
}

/** Sign in to the portal; answers the session's bearer secret. */
export async function portalSession(t: TestSystem, email: string, password = PORTAL_PASSWORD): Promise<string> {
  const res = await t.graphql<{ portalLogin: { accessToken: string } }>(
    'mutation Login($email: String!, $password: String!) { portalLogin(email: $email, password: $password) { accessToken } }',
    { email, password },
    null,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.portalLogin.accessToken;
}

/** An API token of the session's partner with these scopes; answers its bearer secret. */
export async function partnerToken(t: TestSystem, session: string, scopes: string[]): Promise<string> {
  const res = await t.graphql<{ createApiToken: { secret: string } }>(
    'mutation Token($input: CreateApiTokenInput!) { createApiToken(input: $input) { secret } }',
    { input: { name: `test ${scopes.join(' ')}`, scopes } },
    session,
  );
  expect(res.errors).toBeUndefined();
  return res.data!.createApiToken.secret;
}

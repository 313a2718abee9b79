import type { Client } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';
import { ok, type JsonBody } from './operations.js';

/** The onboarding steps, in order. */
export type ApplicationStep = 'organization' | 'integration' | 'account';

/** The header that carries a draft application's resume token (no credential is needed). */
export const RESUME_TOKEN_HEADER = 'X-Svc-Resume-Token' as const;

/**
 * The applicant flow, before the organization is a partner: start a draft (keep its
 * `resume_token`: it is shown once), save the three steps, read it back, submit it for review.
 * Works on a client without credentials.
 */
export function applicantApi(rest: Client<paths>) {
  const draft = (applicationId: string, resumeToken: string) => ({ path: { application_id: applicationId }, header: { 'X-Svc-Resume-Token': resumeToken } });
  return {
    start: () => ok(rest.POST('/api/partner/applications', {})),
    get: (applicationId: string, resumeToken: string) => ok(rest.GET('/api/partner/applications/{application_id}', { params: draft(applicationId, resumeToken) })),
    /** Save one step, valid or not: the answer's `field_errors` say what to fix. */
    saveStep: (applicationId: string, resumeToken: string, step: ApplicationStep, body: JsonBody<'partners.applications.save-step'>) =>
      ok(rest.PUT('/api/partner/applications/{application_id}/steps/{step}', { params: { ...draft(applicationId, resumeToken), path: { application_id: applicationId, step } }, body })),
    /** Submit a complete draft; an incomplete one is refused with every problem named. */
    submit: (applicationId: string, resumeToken: string) => ok(rest.POST('/api/partner/applications/{application_id}/submit', { params: draft(applicationId, resumeToken) })),
  };
}

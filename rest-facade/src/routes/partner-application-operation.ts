import { capabilityRoute, DomainError } from '@svc/platform';
import type { JsonSchema, RouteSpec } from './route.js';

/**
 * GET /api/partner/application: the onboarding application the caller's partner was created from
 * (Partner.application): its status, its saved steps (without the password) and the decision.
 * A partner registered directly by an operator has none (404).
 */

export const APPLICATION_FIELDS = 'id status organization integration account progress { nextStep complete steps { step status } } partnerGpid decisionReason createdAt updatedAt submittedAt decidedAt history { event at reason } reviewTime expectedReviewBy';
const NULLABLE_TIMESTAMP: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

export interface ApplicationData {
  id: string;
  status: string;
  organization: unknown;
  integration: unknown;
  account: unknown;
  progress: { nextStep: string | null; complete: boolean; steps: { step: string; status: string }[] };
  partnerGpid: string | null;
  decisionReason: string | null;
  createdAt: string;
  updatedAt: string;
  submittedAt: string | null;
  decidedAt: string | null;
  history: { event: string; at: string; reason: string | null }[];
  reviewTime: string;
  expectedReviewBy: string | null;
}

/** An onboarding application as REST shows it. */
export const APPLICATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['application_id', 'status', 'progress', 'created_at'],
  properties: {
    application_id: { type: 'string', pattern: '^app_[0-9a-z]{26}$' },
    status: { type: 'string', enum: ['draft', 'submitted', 'approved', 'rejected'] },
    organization: { type: ['object', 'null'], description: 'Step 1 as saved.' },
    integration: { type: ['object', 'null'], description: 'Step 2 as saved.' },
    account: { type: ['object', 'null'], description: 'Step 3 as saved, without the password: { agreements }.' },
    progress: {
      type: 'object',
      properties: {
        next_step: { type: ['string', 'null'], enum: ['organization', 'integration', 'account', null] },
        complete: { type: 'boolean' },
        steps: { type: 'array', items: { type: 'object', properties: { step: { type: 'string' }, status: { type: 'string' } } } },
      },
    },
    partner_gpid: { type: ['string', 'null'] },
    decision_reason: { type: ['string', 'null'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    submitted_at: NULLABLE_TIMESTAMP,
    decided_at: NULLABLE_TIMESTAMP,
    history: {
      type: 'array',
      description: 'What happened to the application, oldest first.',
      items: {
        type: 'object',
        required: ['event', 'at'],
        properties: {
          event: { type: 'string', enum: ['started', 'submitted', 'returned', 'approved', 'rejected'] },
          at: { type: 'string', format: 'date-time' },
          reason: { type: ['string', 'null'], description: "The reviewer's reason, for returned and rejected." },
        },
      },
    },
    review_time: { type: 'string', description: 'The review time promised to applicants, such as "2 business days" (from submission).' },
    expected_review_by: { ...NULLABLE_TIMESTAMP, description: 'When the review of a submitted application is due; null unless it is waiting for review.' },
  },
};

/** The application in REST spelling; its steps keep the snake_case keys they were saved with. */
export function applicationBody(a: ApplicationData): Record<string, unknown> {
  return {
    application_id: a.id,
    status: a.status.toLowerCase(),
    organization: a.organization,
    integration: a.integration,
    account: a.account,
    progress: {
      next_step: a.progress.nextStep?.toLowerCase() ?? null,
      complete: a.progress.complete,
      steps: a.progress.steps.map((s) => ({ step: s.step.toLowerCase(), status: s.status.toLowerCase() })),
    },
    partner_gpid: a.partnerGpid,
    decision_reason: a.decisionReason,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    submitted_at: a.submittedAt,
    decided_at: a.decidedAt,
    history: a.history.map((h) => ({ event: h.event.toLowerCase(), at: h.at, reason: h.reason })),
    review_time: a.reviewTime,
    expected_review_by: a.expectedReviewBy,
  };
}

export const partnerApplicationRoute: RouteSpec = {
  id: 'partners.application',
  method: 'GET',
  path: '/api/partner/application',
  ...capabilityRoute('partners.application'),
  summary: "The caller's partner's onboarding application: status, saved steps and decision",
  auth: 'bearer',
  scopes: ['cms.partner.read', 'cms.partner.write'],
  successStatus: 200,
  operation: {
    document: `query PartnerApplication($gpid: ID!) { partner(gpid: $gpid) { gpid application { ${APPLICATION_FIELDS} } } }`,
    variables: ({ principal }) => {
      if (!principal.partnerGpid) throw new DomainError('NOT_FOUND', 'The credential belongs to no partner.');
      return { gpid: principal.partnerGpid };
    },
    result: (data) => {
      const partner = data['partner'] as { application: ApplicationData | null } | null;
      if (!partner?.application) throw new DomainError('NOT_FOUND', 'No onboarding application: this partner was registered directly by an operator.');
      return applicationBody(partner.application);
    },
  },
  responseBody: APPLICATION_SCHEMA,
};

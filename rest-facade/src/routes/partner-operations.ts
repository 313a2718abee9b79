import { certificationChecklistsRoute } from './certification-checklists.js';
import { eventLogRoutes } from './event-log-operations.js';
import { partnerApplicantRoutes } from './partner-applicant.js';
import { partnerApplicationRoute } from './partner-application-operation.js';
import type { RouteSpec } from './route.js';
import { syncJobRoutes } from './sync-job-operations.js';
import { webhookManagementRoutes } from './webhook-management.js';

/**
 * Operations a partner can call that the spec's tables do not name, served over REST like their
 * GraphQL twins: managing a webhook endpoint, sync jobs, the event log and replay, the partner's
 * onboarding application, the anonymous applicant flow, and the certification checklists.
 */
export const partnerOperationRoutes: RouteSpec[] = [
  ...webhookManagementRoutes,
  ...syncJobRoutes,
  ...eventLogRoutes,
  partnerApplicationRoute,
  ...partnerApplicantRoutes,
  certificationChecklistsRoute,
];

import type { MigrationEntry } from '@svc/platform';
import { M001PartnersAndTokens } from './m001-partners-and-tokens.js';
import { M002Credentials } from './m002-credentials.js';
import { M003OnboardingLegalCertification } from './m003-onboarding-legal-certification.js';
import { M004OAuthClientPatient } from './m004-oauth-client-patient.js';
import { M005OAuthClientSecretRotation } from './m005-oauth-client-secret-rotation.js';
import { M006ApplicationStatusHistory } from './m006-application-status-history.js';
import { M007ScopeRequests } from './m007-scope-requests.js';
import { M008RequestLog } from './m008-request-log.js';
import { M009PortalPasswordResets } from './m009-portal-password-resets.js';
import { M010OutboxTraceParent } from './m010-outbox-trace-parent.js';
import { M011CertificationEvidenceCounts } from './m011-certification-evidence-counts.js';

/** The partner subgraph's migration history, in order. Append new entries; never reorder or rename. */
export const migrations: MigrationEntry[] = [
  { name: 'm001-partners-and-tokens', class: M001PartnersAndTokens },
  { name: 'm002-credentials', class: M002Credentials },
  { name: 'm003-onboarding-legal-certification', class: M003OnboardingLegalCertification },
  { name: 'm004-oauth-client-patient', class: M004OAuthClientPatient },
  { name: 'm005-oauth-client-secret-rotation', class: M005OAuthClientSecretRotation },
  { name: 'm006-application-status-history', class: M006ApplicationStatusHistory },
  { name: 'm007-scope-requests', class: M007ScopeRequests },
  { name: 'm008-request-log', class: M008RequestLog },
  { name: 'm009-portal-password-resets', class: M009PortalPasswordResets },
  { name: 'm010-outbox-trace-parent', class: M010OutboxTraceParent },
  { name: 'm011-certification-evidence-counts', class: M011CertificationEvidenceCounts },
];

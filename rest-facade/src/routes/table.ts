import { partnerEcosystemRoutes } from './partner-ecosystem.js';
import { identityRoutes } from './identity.js';
import { identityReviewRoutes } from './identity-review.js';
import { identityRegistryRoutes } from './identity-registry.js';
import { identityScoringModelRoutes } from './identity-scoring-model.js';
import { fhirRoutes } from './fhir.js';
import { otherRoutes } from './other.js';
import { legalAndCertificationRoutes } from './legal-and-certification.js';
import { clearinghouseRoutes } from './clearinghouse.js';
import { portalRoutes } from './portal.js';
import { partnerOperationRoutes } from './partner-operations.js';
import { scopeRequestRoutes } from './scope-request-operations.js';
import { requestLogRoutes } from './request-log.js';
import { portalPasswordResetRoutes } from './portal-password-resets.js';
import type { RouteSpec } from './route.js';

/** Every documented HTTP path. The router, the route catalog and OpenAPI are generated from it. */
export const ROUTES: readonly RouteSpec[] = [...partnerEcosystemRoutes, ...identityRoutes, ...identityReviewRoutes, ...identityRegistryRoutes, ...identityScoringModelRoutes, ...fhirRoutes, ...otherRoutes, ...legalAndCertificationRoutes, ...clearinghouseRoutes, ...portalRoutes, ...partnerOperationRoutes, ...scopeRequestRoutes, ...requestLogRoutes, ...portalPasswordResetRoutes];

/** The spec's Limits table, declared in platform and shared with the gateway. */
export { PRODUCT_LIMITS } from '@svc/platform';

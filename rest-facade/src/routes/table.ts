import { partnerEcosystemRoutes } from './partner-ecosystem.js';
import { identityRoutes } from './identity.js';
import { fhirRoutes } from './fhir.js';
import { otherRoutes } from './other.js';
import { legalAndCertificationRoutes } from './legal-and-certification.js';
import type { Product, RateLimit, RouteSpec } from './route.js';

/** Every documented HTTP path. The router, the route catalog and OpenAPI are generated from it. */
export const ROUTES: readonly RouteSpec[] = [...partnerEcosystemRoutes, ...identityRoutes, ...fhirRoutes, ...otherRoutes, ...legalAndCertificationRoutes];

/** The spec's Limits table: the overall and burst limits per subject, by product. */
export const PRODUCT_LIMITS: Record<Product, { overall: RateLimit; burst: RateLimit }> = {
  'partner-ecosystem': { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  identity: { overall: { points: 1000, per: 'minute' }, burst: { points: 50, per: 'second' } },
  fhir: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  tefca: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  analytics: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  clearinghouse: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  wearables: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
  platform: { overall: { points: 500, per: 'minute' }, burst: { points: 30, per: 'second' } },
};

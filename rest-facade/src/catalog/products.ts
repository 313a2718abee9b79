import type { Product, RateLimit } from '../routes/route.js';

/** How each product is named in the catalog, the OpenAPI documents and the changelog. */
export const PRODUCT_TITLES: Record<Product, string> = {
  'partner-ecosystem': 'Partner ecosystem',
  identity: 'Identity',
  fhir: 'FHIR R4',
  tefca: 'TEFCA gateway',
  analytics: 'Analytics',
  clearinghouse: 'Clearinghouse',
  wearables: 'Wearables',
  platform: 'Platform',
};

const UNIT: Record<RateLimit['per'], string> = { second: 'sec', minute: 'min', hour: 'hour' };
const SECONDS: Record<RateLimit['per'], number> = { second: 1, minute: 60, hour: 3600 };

/** A rate limit as the spec writes it: `10/min`, `3/hour`, `30/sec`. */
export function rateLimitText(limit: RateLimit): string {
  return `${limit.points}/${UNIT[limit.per]}`;
}

/** Length of a limit's window in seconds. */
export function windowSeconds(limit: RateLimit): number {
  return SECONDS[limit.per];
}

/**
 * The overall and burst limits of each product (the spec's Limits table). Read from the route table
 * module at call time: this module is itself imported by the table, so a static import would be a
 * cycle.
 */
export async function productLimits(): Promise<Record<Product, { overall: RateLimit; burst: RateLimit }>> {
  const { PRODUCT_LIMITS } = await import('../routes/table.js');
  return PRODUCT_LIMITS;
}

/**
 * Wearable products: the `{wearableProduct}` segment of `POST /{wearableProduct}/v1/wearables/events`.
 *
 * The spec names the path `/<wearable_product>/v1/wearables/events` without listing the products.
 * A product there is one of the spec's 8 source origins (`X-Svc-Source`), the platform's only list
 * of products, so the path also declares where the readings come from: readings ingested under
 * `/pulse/…` are written with source `pulse`, as a FHIR write sending `X-Svc-Source: pulse` would be.
 * Only the origins that are device products take wearable readings: `pulse` (consumer wearables:
 * heart rate, activity, sleep) and `beacon` (connected home-monitoring devices: blood pressure cuffs,
 * scales, thermometers, pulse oximeters). The others are a provider feed, the data lake, the
 * platform itself, exchange networks (`tefca`) and programs; their path answers 404.
 */
import type { SourceOrigin } from './source-origins.js';

export const WEARABLE_PRODUCTS = ['pulse', 'beacon'] as const satisfies readonly SourceOrigin[];
export type WearableProduct = (typeof WEARABLE_PRODUCTS)[number];

export function isWearableProduct(value: unknown): value is WearableProduct {
  return typeof value === 'string' && (WEARABLE_PRODUCTS as readonly string[]).includes(value);
}

/**
 * The scope that lets a credential ingest readings for one product: `pulse.wearables.ingest`.
 * Product scopes in dot notation, granted by an operator under the catalog's `pulse.wearables.*`.
 */
export function wearableIngestScope(product: WearableProduct): string {
  return `${product}.wearables.ingest`;
}

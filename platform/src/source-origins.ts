/**
 * GPID boundary headers. Write paths that touch golden-record identities carry the caller's source
 * origin in `X-Svc-Source`, one of the spec's 8 origins. The list lives here, not in one subgraph,
 * because every component that serves or checks a write path reads the same header.
 */
import { DomainError } from './errors.js';

/** The 8 source origins a caller declares in the `X-Svc-Source` header (spec spelling; never rename one). */
export const SOURCE_ORIGINS = ['pulse', 'provider', 'lake', 'cms', 'beacon', 'prime', 'catalyst', 'tefca'] as const;
export type SourceOrigin = (typeof SOURCE_ORIGINS)[number];

/** The header name as documented; HTTP header names are case-insensitive. */
export const SOURCE_HEADER = 'X-Svc-Source';

export function isSourceOrigin(value: unknown): value is SourceOrigin {
  return typeof value === 'string' && (SOURCE_ORIGINS as readonly string[]).includes(value);
}

/**
 * The source origin of a request from its headers (a Node/Fastify header map, lowercase names).
 * Missing or blank → 400 MISSING_SOURCE_HEADER; anything but one of the 8 origins (after trimming;
 * the value is case-sensitive, as the spec spells it) → 400 INVALID_SOURCE_HEADER. Both name the header.
 */
export function readSourceHeader(headers: Readonly<Record<string, string | string[] | undefined>>): SourceOrigin {
  const raw = headers[SOURCE_HEADER.toLowerCase()];
  const value = Array.isArray(raw) ? raw.join(',') : raw;
  if (value === undefined || value.trim() === '') {
    throw new DomainError('MISSING_SOURCE_HEADER', `The ${SOURCE_HEADER} header is required on this write path: one of ${SOURCE_ORIGINS.join(', ')}.`, {
      details: { header: SOURCE_HEADER, allowed: [...SOURCE_ORIGINS] },
    });
  }
  const origin = value.trim();
  if (!isSourceOrigin(origin)) {
    throw new DomainError('INVALID_SOURCE_HEADER', `The ${SOURCE_HEADER} header must be one of ${SOURCE_ORIGINS.join(', ')} (got "${origin.slice(0, 40)}").`, {
      details: { header: SOURCE_HEADER, allowed: [...SOURCE_ORIGINS] },
    });
  }
  return origin;
}

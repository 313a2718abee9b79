/**
 * The developer portal's release history, latest first. The spec gives versions and contents but
 * no dates; the dates are ours, chosen to keep the order and to place v2.0.0 on 2026-06-12, the day
 * the legacy TEFCA and analytics routes were announced as deprecated (sunset 2026-09-12).
 */

/** One portal release. */
export interface PortalRelease {
  /** Stable identifier, also used in feed GUIDs and anchors: `v2.2.0`, `v1.4.x`, `v1.3.0`. */
  version: string;
  /** Heading as published (`v1.3.0 and earlier` covers every release up to v1.3.0). */
  title: string;
  /** ISO 8601 date of the release. */
  released_at: string;
  /** What shipped, as published in the release history. */
  content: string;
  /** The same content, one entry per change, for lists. */
  highlights: readonly string[];
}

/** Portal releases, latest first. */
export const RELEASE_HISTORY: readonly PortalRelease[] = [
  {
    version: 'v2.2.0',
    title: 'v2.2.0',
    released_at: '2026-08-25',
    content:
      'Token and OAuth scope picker, sandbox flows, usage and pipeline pages on live partner APIs, certification sync, BAA e-sign, ' +
      'webhook delivery log and test.ping, changelog RSS, public apply page',
    highlights: [
      'Token and OAuth scope picker',
      'Sandbox flows',
      'Usage and pipeline pages on live partner APIs',
      'Certification sync',
      'BAA e-sign',
      'Webhook delivery log and test.ping',
      'Changelog RSS',
      'Public apply page',
    ],
  },
  {
    version: 'v2.1.0',
    title: 'v2.1.0',
    released_at: '2026-07-21',
    content: 'Clearinghouse partnership: eligibility, claim status, claim submission, clearinghouse OAuth scopes and routes, sandbox stub',
    highlights: [
      'Clearinghouse partnership: eligibility, claim status, claim submission',
      'Clearinghouse OAuth scopes and routes',
      'Clearinghouse sandbox stub',
    ],
  },
  {
    version: 'v2.0.0',
    title: 'v2.0.0',
    released_at: '2026-06-12',
    content: 'Go-live readiness for TEFCA; legacy route deprecation headers; official SDKs; webhook registration UI',
    highlights: ['Go-live readiness for TEFCA', 'Legacy route deprecation headers', 'Official SDKs', 'Webhook registration UI'],
  },
  {
    version: 'v1.9.0',
    title: 'v1.9.0',
    released_at: '2026-05-26',
    content: 'XCA retrieve, TEFCA exchange audit log, partner webhook registration API, server-side certification submission',
    highlights: ['XCA retrieve', 'TEFCA exchange audit log', 'Partner webhook registration API', 'Server-side certification submission'],
  },
  {
    version: 'v1.8.0',
    title: 'v1.8.0',
    released_at: '2026-05-05',
    content: 'TEFCA OAuth scopes, purpose-of-use validation on exchange endpoints, exchange playground',
    highlights: ['TEFCA OAuth scopes', 'Purpose-of-use validation on exchange endpoints', 'Exchange playground'],
  },
  {
    version: 'v1.7.1',
    title: 'v1.7.1',
    released_at: '2026-04-09',
    content: 'Network endpoint seed and TEFCA certification phase',
    highlights: ['Network endpoint seed', 'TEFCA certification phase'],
  },
  {
    version: 'v1.7.0',
    title: 'v1.7.0',
    released_at: '2026-03-31',
    content: 'TEFCA guide, live SDK catalog, OpenAPI deprecation flags',
    highlights: ['TEFCA guide', 'Live SDK catalog', 'OpenAPI deprecation flags'],
  },
  {
    version: 'v1.6.0',
    title: 'v1.6.0',
    released_at: '2026-02-24',
    content: 'TEFCA OpenAPI, analytics query playground, SDK generator, deprecation policy',
    highlights: ['TEFCA OpenAPI', 'Analytics query playground', 'SDK generator', 'Deprecation policy'],
  },
  {
    version: 'v1.5.0',
    title: 'v1.5.0',
    released_at: '2026-01-13',
    content: 'Server-side route catalog, webhook signing specification, certification checklist, rate limits reference',
    highlights: ['Server-side route catalog', 'Webhook signing specification', 'Certification checklist', 'Rate limits reference'],
  },
  {
    version: 'v1.4.x',
    title: 'v1.4.x',
    released_at: '2025-11-04',
    content: 'Route catalog gated behind partner sign-in; documentation hub, scope reference, FHIR reference',
    highlights: ['Route catalog gated behind partner sign-in', 'Documentation hub', 'Scope reference', 'FHIR reference'],
  },
  {
    version: 'v1.3.0',
    title: 'v1.3.0 and earlier',
    released_at: '2025-09-16',
    content:
      'Explorer, catalogs, Postman collections, sandbox, OpenAPI specs, wearable ingest, FHIR metadata and SMART configuration discovery',
    highlights: [
      'Explorer',
      'Catalogs',
      'Postman collections',
      'Sandbox',
      'OpenAPI specs',
      'Wearable ingest',
      'FHIR metadata and SMART configuration discovery',
    ],
  },
];

/** The most recent release. */
export function latestRelease(): PortalRelease {
  const [latest] = RELEASE_HISTORY;
  if (!latest) throw new Error('The release history is empty.');
  return latest;
}

import type { Deprecation } from './routes/route.js';

/** The spec's deprecation window of its legacy routes (announced, and sunset); an operator can move a sunset with SVC_DEPRECATION_SUNSETS. */
export const SPEC_DEPRECATION: Pick<Deprecation, 'since' | 'sunset'> = { since: '2026-06-12', sunset: '2026-09-12' };

/** RFC 7231 IMF-fixdate of an ISO date, e.g. "Sat, 12 Sep 2026 00:00:00 GMT". */
export function httpDate(isoDate: string): string {
  return new Date(`${isoDate}T00:00:00Z`).toUTCString();
}

/** The headers every response of a deprecated path carries, errors included. */
export function deprecationHeaders(deprecation: Deprecation, publicUrl: string): Record<string, string> {
  return {
    deprecation: 'true',
    sunset: httpDate(deprecation.sunset),
    link: deprecation.successors.map((s) => `<${publicUrl}${s.path}>; rel="successor-version"`).join(', '),
  };
}

/** Past the sunset date the path is gone: it answers 410 with the same headers. */
export function isSunset(deprecation: Deprecation, now: Date): boolean {
  return now.getTime() >= Date.parse(`${deprecation.sunset}T00:00:00Z`);
}

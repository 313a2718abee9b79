/** A call to a deprecated route: what the API said in its Deprecation, Sunset and Link headers. */
export interface DeprecationWarning {
  method: string;
  /** The URL called (without its query). */
  url: string;
  /** The Deprecation header: `true`, or the date the route was deprecated. */
  deprecation: string;
  /** The Sunset header as a date: after it the route answers 410 Gone. */
  sunset: Date | undefined;
  /** Successor routes (Link rel="successor-version"), and any other links the response names. */
  links: { url: string; rel: string }[];
  /** The HTTP status of the response (410 once the route is gone). */
  status: number;
}

/** The deprecation a response announces, or undefined for a current route. */
export function deprecationOf(method: string, url: string, response: Response): DeprecationWarning | undefined {
  const deprecation = response.headers.get('deprecation');
  const sunsetHeader = response.headers.get('sunset');
  if (deprecation === null && sunsetHeader === null) return undefined;
  const sunset = sunsetHeader === null ? undefined : new Date(sunsetHeader);
  return {
    method,
    url: url.split('?')[0]!,
    deprecation: deprecation ?? 'true',
    sunset: sunset && !Number.isNaN(sunset.getTime()) ? sunset : undefined,
    links: parseLinks(response.headers.get('link')),
    status: response.status,
  };
}

/** An RFC 8288 Link header's targets and relations. */
export function parseLinks(header: string | null): { url: string; rel: string }[] {
  if (!header) return [];
  const links: { url: string; rel: string }[] = [];
  for (const match of header.matchAll(/<([^>]*)>\s*((?:;\s*[^;,]+)*)/g)) {
    const rel = /;\s*rel="?([^";,]+)"?/i.exec(match[2] ?? '')?.[1];
    links.push({ url: match[1]!, rel: rel ?? '' });
  }
  return links;
}

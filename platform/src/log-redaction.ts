/**
 * Credentials and health data in URLs. Logs must never hold either: the HTTP layer refuses
 * credentials in query strings where no standard requires them (see query-credentials.ts in the
 * HTTP helpers), and a search's values (a name, a birth date, an identifier) are health data.
 */

export const REDACTED = '[redacted]';

/**
 * Query parameters whose values are credentials or single-use grants: OAuth 2.0 and OIDC
 * (access_token, refresh_token, id_token, code, client_secret, client_assertion, assertion), and
 * anything named like a token, secret, password, key or signature.
 */
const SENSITIVE_PARAMETER = /(token|secret|passw|assertion|api[_-]?key|signature|credential|session)|^(code|key|sig)$/i;

export function isSensitiveParameter(name: string): boolean {
  return SENSITIVE_PARAMETER.test(name);
}

/**
 * Query parameters whose values a log line keeps: they shape an answer (page size, order, format,
 * the types and elements included) or name an OAuth client and flow, and hold neither a credential
 * nor personal or health data. Every other value is replaced: search values (names, birth dates,
 * identifiers, codes, references), paging cursors (which carry the sort values of a row), and any
 * parameter not named here. A FHIR modifier counts by its parameter (`_include:iterate`).
 */
const LOGGABLE_PARAMETERS = new Set([
  '_count', '_sort', '_total', '_summary', '_elements', '_format', '_pretty', '_include', '_revinclude', '_type', '_outputFormat', '_since',
  'limit', 'first', 'offset', 'page',
  'client_id', 'response_type', 'grant_type', 'scope', 'state', 'redirect_uri', 'aud', 'code_challenge_method',
]);

function isLoggableParameter(name: string): boolean {
  const colon = name.indexOf(':');
  return LOGGABLE_PARAMETERS.has(colon < 0 ? name : name.slice(0, colon)) && !isSensitiveParameter(name);
}

function isGraphqlPath(path: string): boolean {
  return path === '/graphql' || path.endsWith('/graphql');
}

/**
 * A URL as it may be logged: the path as sent, every query value but those of
 * {@link LOGGABLE_PARAMETERS} replaced by `[redacted]` (names kept, so the line still says what was
 * asked), and for GET /graphql the whole query string, whose `variables` and inline arguments may
 * carry anything.
 */
export function redactUrl(method: string | undefined, url: string): string {
  const mark = url.indexOf('?');
  if (mark < 0) return url;
  const path = url.slice(0, mark);
  const query = url.slice(mark + 1);
  if (query === '') return url;
  if (isGraphqlPath(path) && (method ?? 'GET').toUpperCase() !== 'POST') return `${path}?${REDACTED}`;
  const parts = query.split('&').map((part) => {
    const eq = part.indexOf('=');
    const rawName = eq < 0 ? part : part.slice(0, eq);
    let name: string;
    try {
      name = decodeURIComponent(rawName.replaceAll('+', ' '));
    } catch {
      // A name we cannot even decode may hide anything.
      return REDACTED;
    }
    return eq >= 0 && !isLoggableParameter(name) ? `${rawName}=${REDACTED}` : part;
  });
  return `${path}?${parts.join('&')}`;
}

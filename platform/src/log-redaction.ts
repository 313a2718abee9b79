/**
 * Credentials in URLs. Logs must never hold one, and the HTTP layer refuses them where no standard
 * requires them (see query-credentials.ts in the HTTP helpers).
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

function isGraphqlPath(path: string): boolean {
  return path === '/graphql' || path.endsWith('/graphql');
}

/**
 * A URL as it may be logged: the path as sent, sensitive query values replaced by `[redacted]`
 * (names kept, so the line still says what was sent), and for GET /graphql the whole query string,
 * whose `variables` and inline arguments may carry anything.
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
    return isSensitiveParameter(name) && eq >= 0 ? `${rawName}=${REDACTED}` : part;
  });
  return `${path}?${parts.join('&')}`;
}

import { createHash } from 'node:crypto';
import { parse as parseCookie, serialize } from 'cookie';
import { DomainError } from '../errors.js';
import { safeEqual } from './secrets.js';

/**
 * The partner portal's browser credential: an HttpOnly cookie holding the same bearer a script
 * would send (a portal session `svc_ses_…`, or an operator's token). The facade and the gateway
 * turn it back into `Authorization: Bearer …`, so it is authenticated, rate limited and scoped
 * exactly like that bearer: there is no second way in.
 */
export const PORTAL_COOKIE = 'svc_portal';

/** The header (and graphql-ws connection parameter) that carries the CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_CONNECTION_PARAM = 'csrfToken';

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The CSRF token of a cookie credential: a hash of the credential itself. A page of another origin
 * can neither read the HttpOnly cookie nor our answers, so it cannot compute or learn it; nothing
 * is stored, so every replica agrees on it.
 */
export function csrfTokenFor(credential: string): string {
  return createHash('sha256').update(`svc-portal-csrf\0${credential}`, 'utf8').digest('base64url');
}

/** The portal credential in a Cookie header, if any. */
export function portalCookieOf(headers: Headers): string | undefined {
  const raw = header(headers, 'cookie');
  if (!raw) return undefined;
  const value = parseCookie(raw)[PORTAL_COOKIE];
  return value && value.length > 0 ? value : undefined;
}

/**
 * Whether the portal cookie carries `Secure`. Configuration decides, never a header the client
 * chooses (Host, X-Forwarded-Host): Secure when `SVC_PUBLIC_URL` is https, or when the request
 * itself reached us over https as the HTTP server established it, that is TLS on our own socket or
 * `X-Forwarded-Proto` from a proxy that `SVC_TRUST_PROXY` trusts (Fastify's `request.protocol`
 * ignores that header from anyone else). The default public URL `http://localhost:4000` keeps the
 * cookie usable over a developer's plain http.
 */
export function portalCookieSecure(publicUrl: string, requestProtocol: string | undefined): boolean {
  let publicScheme: string;
  try {
    publicScheme = new URL(publicUrl).protocol;
  } catch {
    publicScheme = '';
  }
  return publicScheme === 'https:' || requestProtocol === 'https';
}

/** Set-Cookie for a signed-in browser (session cookie when maxAgeSeconds is absent); `secure` from `portalCookieSecure`. */
export function portalSetCookie(credential: string, secure: boolean, maxAgeSeconds?: number): string {
  return serialize(PORTAL_COOKIE, credential, {
    httpOnly: true,
    sameSite: 'strict',
    secure,
    path: '/',
    ...(maxAgeSeconds !== undefined ? { maxAge: maxAgeSeconds } : {}),
  });
}

/** Set-Cookie that removes the portal cookie (with the same `Secure` as the one it replaces). */
export function portalClearCookie(secure: boolean): string {
  return serialize(PORTAL_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure, path: '/', maxAge: 0, expires: new Date(0) });
}

/**
 * An Origin header, when the browser sends one, must name this very host: a page elsewhere may not
 * drive a signed-in browser (SameSite=Strict already keeps the cookie off cross-site requests).
 */
function assertSameOrigin(headers: Headers): void {
  const origin = header(headers, 'origin');
  if (origin === undefined) return;
  const host = header(headers, 'x-forwarded-host')?.split(',')[0]?.trim() ?? header(headers, 'host');
  let originHost: string | null = null;
  try {
    originHost = origin === 'null' ? null : new URL(origin).host;
  } catch {
    originHost = null;
  }
  if (!host || originHost !== host) throw new DomainError('FORBIDDEN', 'The request comes from another origin than the portal; it is refused.', { details: { reason: 'origin_mismatch' } });
}

/** The CSRF token must match the cookie's (timing-safe). */
function assertCsrf(credential: string, presented: string | undefined): void {
  if (presented === undefined || !safeEqual(presented, csrfTokenFor(credential))) {
    throw new DomainError('FORBIDDEN', `A request authenticated by the portal cookie needs the ${CSRF_HEADER} header of the session (GET /portal/session).`, { details: { reason: 'csrf' } });
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The Authorization value a request carries: its own header when present (scripts), else the
 * portal cookie as a bearer, after the CSRF checks. `alwaysCheck` applies the CSRF rule to safe
 * methods too (GraphQL, where the operation rather than the method says whether it writes).
 */
export function requestAuthorization(method: string, headers: Headers, alwaysCheck = false): string | undefined {
  const authorization = header(headers, 'authorization');
  if (authorization !== undefined) return authorization;
  const credential = portalCookieOf(headers);
  if (credential === undefined) return undefined;
  assertSameOrigin(headers);
  if (alwaysCheck || !SAFE_METHODS.has(method.toUpperCase())) assertCsrf(credential, header(headers, CSRF_HEADER));
  return `Bearer ${credential}`;
}

/** The same rule for a graphql-ws connection: the upgrade's cookie and Origin, the CSRF token in the connection parameters. */
export function connectionAuthorization(params: Record<string, unknown>, upgradeHeaders: Headers): string | undefined {
  const raw = params['authorization'] ?? params['Authorization'];
  if (typeof raw === 'string') return raw;
  const credential = portalCookieOf(upgradeHeaders);
  if (credential === undefined) return undefined;
  assertSameOrigin(upgradeHeaders);
  const csrf = params[CSRF_CONNECTION_PARAM];
  assertCsrf(credential, typeof csrf === 'string' ? csrf : undefined);
  return `Bearer ${credential}`;
}

import { capabilityRoute, csrfTokenFor, DomainError, portalClearCookie, portalCookieOf, portalSetCookie } from '@svc/platform';
import type { JsonSchema, RouteInput, RouteSpec } from './route.js';
import { BodyReader } from './body-readers.js';
import { portalAsset } from '../portal/assets.js';
import { NO_STORE } from './no-store.js';

const SESSION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['signed_in'],
  properties: {
    signed_in: { type: 'boolean', description: 'Whether the browser holds a portal cookie (GraphQL `viewer` says whose, and whether it is still valid).' },
    csrf_token: { type: 'string', description: 'Send as X-CSRF-Token (and graphql-ws connection parameter csrfToken) with every request the cookie authenticates.' },
    partner_gpid: { type: 'string' },
    expires_at: { type: 'string', format: 'date-time' },
  },
};

/** True when an Accept header asks for HTML (a browser navigating), with a quality above zero. */
export function acceptsHtml(accept: string | string[] | undefined): boolean {
  const value = Array.isArray(accept) ? accept.join(',') : (accept ?? '');
  return value.split(',').some((part) => {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return (type === 'text/html' || type === 'application/xhtml+xml') && (q === undefined || Number(q.slice(2)) > 0);
  });
}

function bearerOf(input: RouteInput): string {
  const value = input.headers['authorization'];
  const raw = Array.isArray(value) ? value[0] : value;
  const match = raw ? /^Bearer\s+(\S+)$/i.exec(raw) : null;
  if (!match) throw new DomainError('VALIDATION_ERROR', 'Send the credential to keep as "Authorization: Bearer <token>".', { fieldErrors: [{ field: 'authorization', message: 'A bearer credential is required.' }] });
  return match[1]!;
}

/**
 * The partner portal: its files and its browser session. The session is the ordinary portal session
 * (or a bearer the browser already holds) in an HttpOnly, SameSite=Strict cookie; every later call
 * presents it through the same authentication as the bearer itself (platform `portal-cookie.ts`).
 */
export const portalRoutes: RouteSpec[] = [
  {
    id: 'portal.origin',
    method: 'GET',
    path: '/',
    product: 'platform',
    summary: 'The bare origin: a browser (Accept: text/html) gets 302 to the partner portal (/portal/); any other client gets the 404 problem document',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    rateLimit: { points: 600, per: 'minute' },
    operation: {
      local: (input) => {
        if (!acceptsHtml(input.headers['accept'])) throw new DomainError('NOT_FOUND', 'No route GET /. The API lives under /api, /cms and /fhir/R4; GET /api/partner/routes lists every route.');
        return { status: 302, body: '', headers: { location: '/portal/', 'cache-control': 'no-cache', vary: 'Accept' } };
      },
    },
    // The table's success statuses are 2xx: the answer's own status (302) overrides it.
    responseBody: { type: 'string', description: 'Empty, with status 302 and Location: /portal/.' },
  },
  {
    id: 'portal.favicon',
    method: 'GET',
    path: '/favicon.ico',
    product: 'platform',
    summary: "The portal's icon (SVG), where browsers look for it",
    auth: 'none',
    scopes: [],
    successStatus: 200,
    rateLimit: { points: 600, per: 'minute' },
    responseContentType: 'image/svg+xml',
    operation: { local: () => portalAsset('favicon.svg') },
    responseBody: { type: 'string', description: 'portal/src/favicon.svg.' },
  },
  {
    id: 'portal.app',
    method: 'GET',
    path: '/portal',
    product: 'platform',
    summary: 'The partner portal (single-page app)',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    rateLimit: { points: 600, per: 'minute' },
    responseContentType: 'text/html',
    operation: { local: () => portalAsset(undefined) },
    responseBody: { type: 'string', description: 'index.html of the portal.' },
  },
  {
    id: 'portal.file',
    method: 'GET',
    path: '/portal/{file}',
    product: 'platform',
    summary: 'A file of the partner portal, or one of its pages (served index.html)',
    auth: 'none',
    scopes: [],
    successStatus: 200,
    rateLimit: { points: 600, per: 'minute' },
    operation: { local: (input) => portalAsset(input.params['file']) },
    pathParameters: { file: { schema: { type: 'string', pattern: '^[\\w.-]{1,120}$' }, description: 'A bundled file (hashed name), or a page such as webhooks.' } },
    responseBody: { type: 'string', description: 'The file; Content-Security-Policy and caching headers included.' },
  },
  {
    id: 'portal.session.read',
    method: 'GET',
    path: '/portal/session',
    product: 'platform',
    summary: "The browser's portal session: whether signed in, and its CSRF token",
    auth: 'none',
    scopes: [],
    successStatus: 200,
    rateLimit: { points: 120, per: 'minute' },
    operation: {
      local: (input) => {
        const credential = portalCookieOf(input.headers);
        return { body: credential ? { signed_in: true, csrf_token: csrfTokenFor(credential) } : { signed_in: false }, headers: NO_STORE };
      },
    },
    responseBody: SESSION_SCHEMA,
  },
  {
    id: 'portal.session.create',
    method: 'POST',
    path: '/portal/session',
    summary: 'Sign in to the portal with e-mail and password: sets the session cookie',
    auth: 'none',
    scopes: [],
    // The same counter and lockout as POST /cms/partner-login and portalLogin.
    ...capabilityRoute('partner.login'),
    successStatus: 201,
    operation: {
      document: `mutation PortalSignIn($email: String!, $password: String!, $clientAddress: String) {
        portalLogin(email: $email, password: $password, clientAddress: $clientAddress) { accessToken expiresIn expiresAt partnerGpid }
      }`,
      asFacade: true,
      variables: ({ body, clientIp }) => {
        const reader = new BodyReader(body);
        const email = reader.string('email', true);
        const password = reader.string('password', true);
        reader.done();
        return { email, password, clientAddress: clientIp ?? null };
      },
      result: () => null,
      respond: (data, input) => {
        const s = data['portalLogin'] as { accessToken: string; expiresIn: number; expiresAt: string; partnerGpid: string };
        return {
          body: { signed_in: true, csrf_token: csrfTokenFor(s.accessToken), partner_gpid: s.partnerGpid, expires_at: s.expiresAt },
          headers: { ...NO_STORE, 'set-cookie': portalSetCookie(s.accessToken, input.secureCookies, s.expiresIn) },
        };
      },
    },
    requestBody: {
      type: 'object',
      required: ['email', 'password'],
      properties: { email: { type: 'string', format: 'email' }, password: { type: 'string', minLength: 1, maxLength: 128, writeOnly: true } },
    },
    responseBody: SESSION_SCHEMA,
  },
  {
    id: 'portal.session.bearer',
    method: 'POST',
    path: '/portal/session/bearer',
    product: 'platform',
    summary: 'Sign in to the portal with a bearer the caller holds (an operator token): sets it as the session cookie',
    auth: 'bearer',
    scopes: [],
    successStatus: 201,
    rateLimit: { points: 10, per: 'minute' },
    operation: {
      // The handler has already authenticated the bearer (a refused one never reaches here).
      local: (input) => {
        const credential = bearerOf(input);
        return { body: { signed_in: true, csrf_token: csrfTokenFor(credential), ...(input.principal.partnerGpid ? { partner_gpid: input.principal.partnerGpid } : {}) }, headers: { ...NO_STORE, 'set-cookie': portalSetCookie(credential, input.secureCookies) } };
      },
    },
    responseBody: SESSION_SCHEMA,
  },
  {
    id: 'portal.session.delete',
    method: 'DELETE',
    path: '/portal/session',
    product: 'platform',
    summary: 'Sign out: ends the portal session on the server and removes the cookie',
    auth: 'bearer',
    scopes: [],
    successStatus: 204,
    rateLimit: { points: 60, per: 'minute' },
    operation: {
      // A portal session ends everywhere at once (its WebSockets close); a kept bearer (an operator
      // token) is only forgotten by the browser, since it lives on outside the portal.
      document: (principal) => (principal.kind === 'portal' ? 'mutation PortalSignOut { logout { sessionId } }' : 'query PortalForget { viewer { kind } }'),
      documents: ['mutation PortalSignOut { logout { sessionId } }', 'query PortalForget { viewer { kind } }'],
      result: () => null,
      respond: (_data, input) => ({ body: null, headers: { ...NO_STORE, 'set-cookie': portalClearCookie(input.secureCookies) } }),
    },
  },
];

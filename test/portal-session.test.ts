import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { onboardPartner, PORTAL_PASSWORD } from './support/partner-onboarding.js';

const VIEWER = { query: '{ viewer { kind partnerGpid } }' };

function cookieOf(setCookie: string | string[] | undefined): string {
  const value = Array.isArray(setCookie) ? setCookie[0]! : setCookie!;
  return value.split(';')[0]!;
}

describe('portal: static files and the browser session cookie', () => {
  let t: TestSystem;
  let email: string;
  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    ({ email } = await onboardPartner(t, 'portal-http'));
  });
  afterAll(() => t?.close());

  it('serves the app and its pages with a strict CSP and revalidation; bundles are immutable', async () => {
    for (const url of ['/portal', '/portal/webhooks']) {
      const page = await t.request({ url, token: null });
      expect(page.statusCode).toBe(200);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      const csp = String(page.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe-inline');
      expect(page.headers['cache-control']).toBe('no-cache');
      expect(page.body).not.toMatch(/<script>(?!<\/script>)/);
    }
    const index = (await t.request({ url: '/portal', token: null })).body;
    const bundle = /src="\/portal\/([^"]+\.js)"/.exec(index)![1]!;
    const js = await t.request({ url: `/portal/${bundle}`, token: null });
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toMatch(/^text\/javascript/);
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await t.request({ url: '/portal/nothing-here.js', token: null })).statusCode).toBe(404);
  });

  it('signs in with an HttpOnly SameSite=Strict cookie, refuses calls without the CSRF token, and signs out on the server', async () => {
    const signIn = await t.request({ method: 'POST', url: '/portal/session', token: null, body: { email, password: PORTAL_PASSWORD } });
    expect(signIn.statusCode).toBe(201);
    const setCookie = String(signIn.headers['set-cookie']);
    expect(setCookie).toMatch(/^svc_portal=svc_ses_/);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Strict/i);
    expect(setCookie).toMatch(/Path=\//);
    // The default public URL is http://localhost: the cookie works over a developer's plain http.
    expect(setCookie).not.toMatch(/Secure/i);
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const csrf = signIn.json<{ csrf_token: string }>().csrf_token;

    const session = await t.request({ url: '/portal/session', token: null, headers: { cookie } });
    expect(session.json()).toEqual({ signed_in: true, csrf_token: csrf });

    // The cookie is the session's bearer: the same principal on /graphql, with the CSRF token.
    const viewer = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { cookie, 'x-csrf-token': csrf }, body: VIEWER });
    expect(viewer.json()).toMatchObject({ data: { viewer: { kind: 'portal' } } });

    const noCsrf = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { cookie }, body: VIEWER });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ errors: [{ extensions: { code: 'FORBIDDEN', reason: 'csrf' } }] });
    const wrongCsrf = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { cookie, 'x-csrf-token': 'x'.repeat(43) }, body: VIEWER });
    expect(wrongCsrf.statusCode).toBe(403);
    const otherOrigin = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' }, body: VIEWER });
    expect(otherOrigin.statusCode).toBe(403);
    expect(otherOrigin.json()).toMatchObject({ errors: [{ extensions: { reason: 'origin_mismatch' } }] });

    // A state-changing REST call on the cookie needs the token too.
    const deleteNoCsrf = await t.request({ method: 'DELETE', url: '/portal/session', token: null, headers: { cookie } });
    expect(deleteNoCsrf.statusCode).toBe(403);
    expect(deleteNoCsrf.headers['content-type']).toMatch(/problem\+json/);

    const signOut = await t.request({ method: 'DELETE', url: '/portal/session', token: null, headers: { cookie, 'x-csrf-token': csrf } });
    expect(signOut.statusCode).toBe(204);
    expect(String(signOut.headers['set-cookie'])).toMatch(/^svc_portal=;.*Max-Age=0/i);

    // The session ended on the server: the old cookie no longer authenticates.
    const after = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { cookie, 'x-csrf-token': csrf }, body: VIEWER });
    expect(after.statusCode).toBe(401);
  });

  it('authenticates graphql-ws by the cookie only with the CSRF token, and closes it when the session signs out', async () => {
    const base = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    const wsUrl = `${base.replace('http', 'ws')}/graphql`;
    const signIn = await t.request({ method: 'POST', url: '/portal/session', token: null, body: { email, password: PORTAL_PASSWORD } });
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const csrf = signIn.json<{ csrf_token: string }>().csrf_token;
    const origin = base;

    /** Open a socket, send connection_init, and answer the first message or the close code. */
    const connect = (payload: Record<string, unknown>, headers: Record<string, string>) =>
      new Promise<{ socket: WebSocket; first: string | number }>((resolve) => {
        const socket = new WebSocket(wsUrl, 'graphql-transport-ws', { headers });
        socket.on('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload })));
        socket.on('message', (data: Buffer) => resolve({ socket, first: (JSON.parse(data.toString()) as { type: string }).type }));
        socket.on('close', (code: number) => resolve({ socket, first: code }));
      });

    const refused = await connect({}, { cookie, origin });
    expect(refused.first).toBe(4403);
    const foreign = await connect({ csrfToken: csrf }, { cookie, origin: 'https://evil.example' });
    expect(foreign.first).toBe(4403);

    const accepted = await connect({ csrfToken: csrf }, { cookie, origin });
    expect(accepted.first).toBe('connection_ack');
    const closed = new Promise<number>((resolve) => accepted.socket.on('close', (code: number) => resolve(code)));
    const signOut = await t.request({ method: 'DELETE', url: '/portal/session', token: null, headers: { cookie, 'x-csrf-token': csrf } });
    expect(signOut.statusCode).toBe(204);
    expect(await closed).toBeGreaterThanOrEqual(4000);
  });

  it('keeps an operator bearer as the cookie, with the operator principal', async () => {
    const signIn = await t.request({ method: 'POST', url: '/portal/session/bearer' });
    expect(signIn.statusCode).toBe(201);
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const csrf = signIn.json<{ csrf_token: string }>().csrf_token;
    const viewer = await t.request({ method: 'POST', url: '/graphql', token: null, headers: { cookie, 'x-csrf-token': csrf }, body: VIEWER });
    expect(viewer.json<{ data: { viewer: { kind: string } } }>().data.viewer.kind).not.toBe('portal');
    const refused = await t.request({ method: 'POST', url: '/portal/session/bearer', token: null });
    expect(refused.statusCode).toBe(401);
  });
});

/** `Secure` is configuration's (SVC_PUBLIC_URL, a trusted proxy's X-Forwarded-Proto), never the client's Host. */
describe('portal: the cookie is Secure by configuration, not by the client', () => {
  const secureOf = (res: { headers: Record<string, unknown> }) => /;\s*Secure(;|$)/i.test(String(res.headers['set-cookie']));
  const CLIENT_HOSTS: Record<string, string>[] = [{}, { host: 'portal.example.com' }, { host: 'localhost' }, { host: 'portal.example.com', 'x-forwarded-host': 'localhost' }, { host: 'localhost:4000', 'x-forwarded-host': 'portal.example.com' }];

  describe('with the default public URL (http://localhost) and no trusted proxy', () => {
    let t: TestSystem;
    let email: string;
    beforeAll(async () => {
      t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
      ({ email } = await onboardPartner(t, 'portal-plain'));
    });
    afterAll(() => t?.close());

    it('is not Secure whatever Host or X-Forwarded-Host say, and X-Forwarded-Proto from an untrusted peer is ignored', async () => {
      for (const headers of [...CLIENT_HOSTS, { host: 'portal.example.com', 'x-forwarded-proto': 'https' }]) {
        const signIn = await t.request({ method: 'POST', url: '/portal/session', token: null, headers, body: { email, password: PORTAL_PASSWORD } });
        expect(signIn.statusCode, JSON.stringify(headers)).toBe(201);
        expect(secureOf(signIn), JSON.stringify(headers)).toBe(false);
      }
    });
  });

  describe('with an https public URL', () => {
    let t: TestSystem;
    let email: string;
    beforeAll(async () => {
      t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_PUBLIC_URL: 'https://portal.example.com' });
      ({ email } = await onboardPartner(t, 'portal-https'));
    });
    afterAll(() => t?.close());

    it('is Secure whatever Host, X-Forwarded-Host or X-Forwarded-Proto say, on sign-in, bearer sign-in and sign-out', async () => {
      for (const headers of [...CLIENT_HOSTS, { host: 'localhost', 'x-forwarded-proto': 'http' }]) {
        const signIn = await t.request({ method: 'POST', url: '/portal/session', token: null, headers, body: { email, password: PORTAL_PASSWORD } });
        expect(signIn.statusCode, JSON.stringify(headers)).toBe(201);
        expect(secureOf(signIn), JSON.stringify(headers)).toBe(true);
        const bearer = await t.request({ method: 'POST', url: '/portal/session/bearer', headers });
        expect(secureOf(bearer), JSON.stringify(headers)).toBe(true);
        const cookie = cookieOf(signIn.headers['set-cookie']);
        const signOut = await t.request({ method: 'DELETE', url: '/portal/session', token: null, headers: { ...headers, cookie, 'x-csrf-token': signIn.json<{ csrf_token: string }>().csrf_token } });
        expect(signOut.statusCode, JSON.stringify(headers)).toBe(204);
        expect(String(signOut.headers['set-cookie'])).toMatch(/^svc_portal=;.*Max-Age=0/i);
        expect(secureOf(signOut), JSON.stringify(headers)).toBe(true);
      }
    });
  });

  describe('behind a proxy (SVC_TRUST_PROXY=10.0.0.0/8, default public URL)', () => {
    let t: TestSystem;
    let email: string;
    beforeAll(async () => {
      t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_TRUST_PROXY: '10.0.0.0/8' });
      ({ email } = await onboardPartner(t, 'portal-proxy'));
    });
    afterAll(() => t?.close());

    /** POST /portal/session from `remoteAddress` (the peer the server sees). */
    const signInFrom = (remoteAddress: string, headers: Record<string, string>) =>
      t.system.app.inject({ method: 'POST', url: '/portal/session', remoteAddress, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ email, password: PORTAL_PASSWORD }) });

    it('honours X-Forwarded-Proto from the trusted proxy, and ignores it from anyone else', async () => {
      const viaProxy = await signInFrom('10.1.2.3', { host: 'portal.example.com', 'x-forwarded-proto': 'https' });
      expect(viaProxy.statusCode).toBe(201);
      expect(secureOf(viaProxy)).toBe(true);
      expect(secureOf(await signInFrom('10.1.2.3', { host: 'portal.example.com', 'x-forwarded-proto': 'http' }))).toBe(false);
      expect(secureOf(await signInFrom('10.1.2.3', { host: 'localhost', 'x-forwarded-host': 'localhost', 'x-forwarded-proto': 'https' }))).toBe(true);

      const direct = await signInFrom('192.0.2.7', { host: 'portal.example.com', 'x-forwarded-proto': 'https' });
      expect(direct.statusCode).toBe(201);
      expect(secureOf(direct)).toBe(false);
      expect(secureOf(await signInFrom('192.0.2.7', { host: 'portal.example.com', 'x-forwarded-host': 'portal.example.com' }))).toBe(false);
    });
  });
});

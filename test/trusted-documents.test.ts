import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ts from 'typescript';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { CSRF_HEADER, csrfTokenFor } from '@svc/platform';
import { extractTrustedDocuments, manifestText, TRUSTED_DOCUMENTS_MANIFEST } from '../portal/trusted-documents.js';
import { bootSystem, type TestSystem } from './support/system.js';
import { AGREEMENTS, INTEGRATION_STEP, organizationStep, PORTAL_PASSWORD } from './support/partner-onboarding.js';

const ROOT = join(import.meta.dirname, '..');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const manifest = JSON.parse(readFileSync(TRUSTED_DOCUMENTS_MANIFEST, 'utf8')) as Record<string, string>;

/** The id of the portal's operation named `name` (its trusted document). */
function idOf(name: string): string {
  const entry = Object.entries(manifest).find(([, text]) => new RegExp(`^(query|mutation|subscription) ${name}\\b`).test(text));
  if (!entry) throw new Error(`The portal has no operation ${name}.`);
  return entry[0];
}

/** The runtime value of every template literal marked /* GraphQL *\/ in the portal's sources (explorers aside). */
function markedLiterals(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'explorer' ? [] : markedLiterals(path);
    if (!/\.tsx?$/.test(entry.name)) return [];
    const text = readFileSync(path, 'utf8');
    const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, entry.name.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const found: string[] = [];
    const visit = (node: ts.Node) => {
      if (ts.isNoSubstitutionTemplateLiteral(node) && text.slice(node.pos, node.getStart(file)).trim() === '/* GraphQL */') found.push(node.text);
      ts.forEachChild(node, visit);
    };
    visit(file);
    return found;
  });
}

/**
 * Trusted documents on the embedded system, with one mode per principal class: anonymous callers and
 * portal sessions `require`, partner credentials `allow`, operators `off`.
 */
describe('trusted documents and automatic persisted queries at the public /graphql', () => {
  let t: TestSystem;
  let url: string;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    t.system.app.inject({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify(body) });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const untrusted = async (principalClass: string, outcome: string) => {
    const res = await t.system.internalApp!.inject({ url: '/metrics' });
    const line = res.body.split('\n').find((l) => l.startsWith(`svc_graphql_untrusted_documents_total{principal_class="${principalClass}",outcome="${outcome}"}`));
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  // A portal browser: the cookie POST /portal/session set, and its CSRF token; and the partner's scopes.
  let portal: { cookie: string; csrf: string; credential: string };
  let scopes: string[];

  beforeAll(async () => {
    t = await bootSystem({ SVC_GRAPHQL_TRUSTED_DOCUMENTS: 'allow,anonymous=require,portal=require,service=off' });
    await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    url = `http://127.0.0.1:${(t.system.app.server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it("lists exactly the portal's operations: the manifest matches its sources, and the built portal sends them by id", () => {
    expect(readFileSync(TRUSTED_DOCUMENTS_MANIFEST, 'utf8'), 'portal/trusted-documents.json is stale: run npx tsx portal/build.ts').toBe(manifestText(extractTrustedDocuments()));
    const literals = markedLiterals(join(ROOT, 'portal/src'));
    expect(literals.length).toBeGreaterThan(40);
    // What the pages send at run time is, byte for byte, a listed document.
    for (const literal of literals) expect(manifest[sha256(literal)], literal.slice(0, 80)).toBe(literal);
    const bundle = readdirSync(join(ROOT, 'portal/dist'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(ROOT, 'portal/dist', f), 'utf8'))
      .join('\n');
    for (const id of Object.keys(manifest)) expect(bundle).toContain(id);
  });

  it('every listed document is valid against the served schema', async () => {
    const ids = Object.keys(manifest);
    // GET runs queries (no variables: missing ones are BAD_USER_INPUT) and answers 405 to the others, after validation.
    const answers = await Promise.all(ids.map((id) => t.system.app.inject({ method: 'GET', url: `/graphql?documentId=${id}`, headers: { ...bearer(t.operatorToken), 'apollo-require-preflight': 'true' } })));
    answers.forEach((res, i) => {
      const codes = ((res.json() as { errors?: { extensions?: { code?: string } }[] }).errors ?? []).map((e) => e.extensions?.code);
      expect(codes, manifest[ids[i]!]!.slice(0, 80)).not.toContain('GRAPHQL_VALIDATION_FAILED');
      expect(codes).not.toContain('GRAPHQL_PARSE_FAILED');
      expect(codes).not.toContain('PERSISTED_QUERY_NOT_LISTED');
    });
  });

  it("anonymous (require): an applicant applies with the portal's documents by id; any other text is refused", async () => {
    const started = await post({ documentId: idOf('StartApplication') });
    expect(started.statusCode).toBe(200);
    const app = (started.json() as { data: { startPartnerApplication: { resumeToken: string; application: { id: string } } } }).data.startPartnerApplication;
    const organization = organizationStep('trusted');
    for (const [step, input] of [
      ['ORGANIZATION', organization],
      ['INTEGRATION', INTEGRATION_STEP],
      ['ACCOUNT', { portal_password: PORTAL_PASSWORD, agreements: AGREEMENTS }],
    ] as const) {
      const saved = await post({ documentId: `sha256:${idOf('SaveStep')}`, variables: { id: app.application.id, token: app.resumeToken, step, input } });
      expect(saved.json()).toMatchObject({ data: { savePartnerApplicationStep: { valid: true, fieldErrors: [] } } });
    }
    expect((await post({ documentId: idOf('SubmitApplication'), variables: { id: app.application.id, token: app.resumeToken } })).json()).toMatchObject({ data: { submitPartnerApplication: { status: 'SUBMITTED' } } });

    // A listed document sent as its text passes too; anything else is refused before it is parsed.
    const changelog = manifest[idOf('Changelog')]!;
    expect((await post({ query: changelog })).statusCode).toBe(200);
    const refusedBefore = await untrusted('anonymous', 'refused');
    const refused = await post({ query: '{ releaseHistory { version } }' });
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ errors: [{ extensions: { code: 'TRUSTED_DOCUMENT_REQUIRED', principalClass: 'anonymous' } }] });
    expect(await untrusted('anonymous', 'refused')).toBe(refusedBefore + 1);

    // An APQ registration of unlisted text is refused and not stored: the hash stays unknown.
    const text = 'query NotShipped { releaseHistory { version title } }';
    const apq = { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(text) } } };
    expect((await post({ query: text, ...apq })).statusCode).toBe(403);
    expect((await post(apq, bearer(t.operatorToken))).json()).toMatchObject({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    // A listed document's id is also its APQ hash: answered from the manifest, never a miss.
    expect((await post({ extensions: { persistedQuery: { version: 1, sha256Hash: idOf('Changelog') } } })).json()).toMatchObject({ data: { releaseHistory: expect.any(Array) } });

    // The operator (off) approves with its own text; the applicant then signs in through the portal's REST route.
    const approved = await t.graphql<{ approvePartnerApplication: { partnerGpid: string } }>('mutation($id: ID!) { approvePartnerApplication(id: $id) { partnerGpid } }', { id: app.application.id });
    expect(approved.errors).toBeUndefined();
    const signIn = await t.system.app.inject({ method: 'POST', url: '/portal/session', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ email: organization.contact.email, password: PORTAL_PASSWORD }) });
    expect(signIn.statusCode).toBe(201);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const credential = decodeURIComponent(cookie.split('=')[1]!);
    portal = { cookie, csrf: csrfTokenFor(credential), credential };
  });

  it('portal sessions (require): the portal\'s requests go by id; other text is refused, over HTTP and WebSocket', async () => {
    const headers = { cookie: portal.cookie, [CSRF_HEADER]: portal.csrf };
    const viewer = await post({ documentId: idOf('Viewer') }, headers);
    expect(viewer.json()).toMatchObject({ data: { viewer: { kind: 'portal' } } });
    scopes = (viewer.json() as { data: { viewer: { scopes: string[] } } }).data.viewer.scopes;
    const refused = await post({ query: '{ viewer { kind scopes } }' }, headers);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ errors: [{ extensions: { code: 'TRUSTED_DOCUMENT_REQUIRED', principalClass: 'portal' } }] });

    const client = createClient({ url: `${url.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization: `Bearer ${portal.credential}` }, retryAttempts: 0 });
    const run = (query: string) =>
      new Promise<unknown>((resolve) => {
        client.subscribe({ query }, { next: resolve, error: resolve, complete: () => undefined });
      });
    expect(await run(manifest[idOf('Viewer')]!)).toMatchObject({ data: { viewer: { kind: 'portal' } } });
    expect(await run('subscription { events { id } }')).toMatchObject([{ extensions: { code: 'TRUSTED_DOCUMENT_REQUIRED', principalClass: 'portal' } }]);
    await client.dispose();
  });

  it('partner credentials (allow) run unlisted operations and are counted; operators (off) are not; an unknown id is refused in every mode', async () => {
    const created = await post({ documentId: idOf('CreateToken'), variables: { input: { name: 'trusted-documents', scopes: scopes.slice(0, 1) } } }, { cookie: portal.cookie, [CSRF_HEADER]: portal.csrf });
    expect(created.json(), created.body).toMatchObject({ data: { createApiToken: { secret: expect.any(String) } } });
    const token = (created.json() as { data: { createApiToken: { secret: string } } }).data.createApiToken.secret;
    const before = await untrusted('partner', 'run');
    const ran = await post({ query: '{ viewer { kind } }' }, bearer(token));
    expect(ran.json()).toEqual({ data: { viewer: { kind: 'partner' } } });
    expect(await untrusted('partner', 'run')).toBe(before + 1);

    expect((await post({ query: '{ viewer { kind } }' }, bearer(t.operatorToken))).json()).toEqual({ data: { viewer: { kind: 'service' } } });
    expect(await untrusted('service', 'run')).toBe(0);

    for (const headers of [{}, bearer(token), bearer(t.operatorToken)]) {
      const unknown = await post({ documentId: sha256('query Unknown { viewer { kind } }') }, headers);
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json()).toMatchObject({ errors: [{ extensions: { code: 'PERSISTED_QUERY_NOT_LISTED', field: 'documentId' } }] });
    }
    const both = await post({ documentId: idOf('Viewer'), query: '{ viewer { kind } }' }, bearer(t.operatorToken));
    expect(both.json()).toMatchObject({ errors: [{ extensions: { code: 'BAD_REQUEST', field: 'documentId' } }] });
  });

  it("APQ with Apollo Client's persisted-query link: a miss is registered, the next client hits; a wrong hash is refused", async () => {
    const sent: Record<string, unknown>[] = [];
    const clientOf = () =>
      new ApolloClient({
        cache: new InMemoryCache(),
        link: new PersistedQueryLink({ sha256 }).concat(
          new HttpLink({
            uri: `${url}/graphql`,
            headers: bearer(t.operatorToken),
            fetch: (input, init) => {
              sent.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
              return fetch(input, init);
            },
          }),
        ),
      });
    const query = gql`
      query EmbeddedApq {
        releaseHistory {
          version
        }
      }
    `;
    const first = await clientOf().query({ query, fetchPolicy: 'no-cache' });
    expect(first.data).toMatchObject({ releaseHistory: expect.any(Array) });
    // Hash alone (PersistedQueryNotFound), then the text with the hash.
    expect(sent.map((b) => typeof b['query'])).toEqual(['undefined', 'string']);
    sent.length = 0;
    const second = await clientOf().query({ query, fetchPolicy: 'no-cache' });
    expect(second.data).toEqual(first.data);
    expect(sent.map((b) => typeof b['query'])).toEqual(['undefined']);

    const mismatch = await post({ query: '{ viewer { kind } }', extensions: { persistedQuery: { version: 1, sha256Hash: sha256('{ viewer { scopes } }') } } }, bearer(t.operatorToken));
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json()).toMatchObject({ errors: [{ extensions: { code: 'PERSISTED_QUERY_HASH_MISMATCH', field: 'extensions.persistedQuery.sha256Hash' } }] });
  });
});

import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { bootSystem, type TestSystem } from '../support/system.js';

const INTROSPECTION = '{ __schema { queryType { name } types { name } } }';

/**
 * Issue point 10 (GraphQL part): in SVC_ENVIRONMENT=production, introspection was open to anonymous
 * callers and validation errors suggested field names. Now anonymous introspection is refused
 * (authenticated callers keep it, for the portal's explorer) and no message says "Did you mean".
 * The sandbox counterpart (both stay as they were) is in 11-graphql-error-masking.test.ts.
 */
describe('hardening 10: GraphQL in production', () => {
  let t: TestSystem;
  let partnerToken: string;

  beforeAll(async () => {
    t = await bootSystem({
      SVC_ENVIRONMENT: 'production',
      SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION: 'true',
      SVC_FINGERPRINT_KEY: randomBytes(32).toString('base64url'),
    });
    const created = await t.graphql<{ registerPartner: { gpid: string } }>('mutation { registerPartner(input: { legalName: "Production Health", organizationType: "HEALTH_SYSTEM" }) { gpid } }');
    const token = await t.graphql<{ createApiToken: { secret: string } }>(
      'mutation($g: ID) { createApiToken(input: { partnerGpid: $g, name: "explorer", scopes: ["cms.pipeline.read"] }) { secret } }',
      { g: created.data!.registerPartner.gpid },
    );
    expect(token.errors).toBeUndefined();
    partnerToken = token.data!.createApiToken.secret;
  });
  afterAll(() => t?.close());

  it('refuses introspection to anonymous callers with 401 and a code', async () => {
    for (const query of [INTROSPECTION, '{ __type(name: "Partner") { fields { name } } }', 'query Q { ...F } fragment F on Query { __schema { types { name } } }']) {
      const res = await t.request({ method: 'POST', url: '/graphql', token: null, body: { query } });
      expect(res.statusCode).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer');
      const body = res.json() as { data?: unknown; errors: { message: string; extensions: Record<string, unknown> }[] };
      expect(body.data).toBeUndefined();
      expect(body.errors[0]!.extensions['code']).toBe('UNAUTHENTICATED');
      expect(body.errors[0]!.message).toMatch(/Introspection needs credentials/);
    }
  });

  it('still lets authenticated callers introspect (the portal explorer), and anonymous callers ask for __typename', async () => {
    const asPartner = await t.graphql<{ __schema: { types: { name: string }[] } }>(INTROSPECTION, {}, partnerToken);
    expect(asPartner.errors).toBeUndefined();
    expect(asPartner.data!.__schema.types.some((type) => type.name === 'Partner')).toBe(true);
    const asOperator = await t.graphql(INTROSPECTION);
    expect(asOperator.errors).toBeUndefined();
    const typename = await t.graphql<{ __typename: string }>('{ __typename legalDocuments { id } }', {}, null);
    expect(typename.errors).toBeUndefined();
    expect(typename.data!.__typename).toBe('Query');
  });

  it('does not suggest field names in validation errors', async () => {
    for (const token of [null, partnerToken]) {
      const res = await t.graphql('{ legalDocuments { titel } partnr(gpid: "CMS-00000000") { gpid } }', {}, token);
      expect(res.status).toBe(400);
      expect(res.errors!.length).toBe(2);
      for (const error of res.errors!) {
        expect(error.extensions?.['code']).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(error.message).toMatch(/^Cannot query field "(titel|partnr)" on type "(LegalDocument|Query)"\.$/);
        expect(error.message).not.toMatch(/Did you mean/);
      }
    }
    const argument = await t.graphql('{ partners(frist: 5) { edges { node { gpid } } } }');
    expect(argument.errors![0]!.message).not.toMatch(/Did you mean|first/);
  });

  it('applies the same rules over graphql-ws', async () => {
    const address = await t.system.app.listen({ port: 0, host: '127.0.0.1' });
    const client = createClient({ url: `${address.replace('http', 'ws')}/graphql`, webSocketImpl: WebSocket, lazy: false });
    const run = (query: string) =>
      new Promise<readonly { message: string; extensions?: Record<string, unknown> }[]>((resolve) => {
        client.subscribe({ query }, { next: (value) => resolve(value.errors ?? []), error: (errors) => resolve(errors as never), complete: () => resolve([]) });
      });
    try {
      const introspection = await run(INTROSPECTION);
      expect(introspection[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
      const typo = await run('{ legalDocuments { titel } }');
      expect(typo[0]?.message).toMatch(/Cannot query field "titel"/);
      expect(typo[0]?.message).not.toMatch(/Did you mean/);
    } finally {
      await client.dispose();
    }
  });
});

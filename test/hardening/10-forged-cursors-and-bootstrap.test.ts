import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';
import { memoryLogger } from '../support/logs.js';
import { freshStorage } from '../support/databases.js';

/** Cursors this API never issued: a NUL byte ("AA"), empty, not base64url, huge, JSON of the wrong shape. */
const FORGED = ['AA', '', '%%%', 'QUFB'.repeat(3000), Buffer.from(JSON.stringify({ id: 1, offset: 20 })).toString('base64url'), Buffer.from('evt_../../etc').toString('base64url')];

/** Every list that takes a cursor (Query fields with `after` in supergraph.graphql). */
const LISTS = [
  'events(first: 2, after: $c) { edges { cursor } }',
  'partners(first: 2, after: $c) { edges { cursor } }',
  'partnerApplications(first: 2, after: $c) { edges { cursor } }',
  'identityChangeRequests(first: 2, after: $c) { edges { cursor } }',
  'identityAuditEntries(first: 2, after: $c) { edges { cursor } }',
  // One of the typed FHIR search connections: they share one cursor decoder.
  'fhirPatients(first: 2, after: $c) { edges { cursor } }',
];

describe('forged pagination cursors are a 400 naming the argument, on GraphQL and REST', () => {
  let sys: TestSystem;
  let partnerToken: string;
  beforeAll(async () => {
    sys = await bootSystem();
    // Two partners besides the operator, so a real cursor leads somewhere.
    const gpids: string[] = [];
    for (const name of ['Cursor Clinic', 'Cursor Labs']) {
      const res = await sys.graphql<{ registerPartner: { gpid: string } }>(`mutation { registerPartner(input: { legalName: "${name}", organizationType: "PAYER" }) { gpid } }`);
      gpids.push(res.data!.registerPartner.gpid);
    }
    const token = await sys.graphql<{ createApiToken: { secret: string } }>(
      'mutation($g: ID) { createApiToken(input: { partnerGpid: $g, name: "cursor test", scopes: ["cms.pipeline.read"] }) { secret } }',
      { g: gpids[0] },
    );
    partnerToken = token.data!.createApiToken.secret;
  });
  afterAll(() => sys?.close());

  for (const list of LISTS) {
    const field = list.slice(0, list.indexOf('('));
    it(`${field}(after:) refuses every forged cursor with BAD_REQUEST naming "after"`, async () => {
      for (const cursor of FORGED) {
        const res = await sys.graphql(`query($c: String) { ${list} }`, { c: cursor });
        expect(res.errors, `${field} with ${cursor.slice(0, 20)}`).toHaveLength(1);
        const error = res.errors![0]!;
        expect(error.extensions?.['code']).toBe('BAD_REQUEST');
        expect(error.extensions?.['status']).toBe(400);
        expect(error.extensions?.['fieldErrors']).toEqual([{ field: 'after', message: 'is not a cursor this API issued' }]);
        expect(error.message).toMatch(/^after: /);
      }
    });
  }

  it('still pages with the cursors it issues', async () => {
    const first = await sys.graphql<{ partners: { edges: { cursor: string }[]; pageInfo: { endCursor: string; hasNextPage: boolean } } }>(
      '{ partners(first: 1) { edges { cursor } pageInfo { endCursor hasNextPage } } }',
    );
    expect(first.data!.partners.pageInfo.hasNextPage).toBe(true);
    const next = await sys.graphql<{ partners: { edges: { cursor: string }[] } }>('query($c: String) { partners(first: 1, after: $c) { edges { cursor } } }', { c: first.data!.partners.pageInfo.endCursor });
    expect(next.errors).toBeUndefined();
    expect(next.data!.partners.edges).toHaveLength(1);
    const events = await sys.graphql<{ events: { pageInfo: { endCursor: string } } }>('{ events(first: 1) { pageInfo { endCursor } } }');
    const after = await sys.graphql('query($c: String) { events(first: 1, after: $c) { edges { cursor } } }', { c: events.data!.events.pageInfo.endCursor });
    expect(after.errors).toBeUndefined();
  });

  it('GET /cms/pipeline/partners?cursor= refuses every forged cursor with a problem naming "cursor", for operators and partners alike', async () => {
    const queries = [...FORGED.map((c) => `cursor=${encodeURIComponent(c)}`), 'cursor=%%%', 'cursor=AA&cursor=AB'];
    for (const [query, token] of queries.flatMap((q) => [[q, sys.operatorToken], [q, partnerToken]] as const)) {
      const res = await sys.request({ url: `/cms/pipeline/partners?${query}`, token });
      expect(res.statusCode, `${query.slice(0, 30)} as ${token === partnerToken ? 'partner' : 'operator'}`).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = res.json();
      expect(problem.code).toBe('BAD_REQUEST');
      expect(problem.errors).toEqual([{ field: 'cursor', message: 'is not a cursor this API issued' }]);
      expect(problem.request_id).toBe(res.headers['x-request-id']);
    }
    const ok = await sys.request({ url: '/cms/pipeline/partners?limit=1' });
    expect(ok.statusCode).toBe(200);
    const next = await sys.request({ url: `/cms/pipeline/partners?limit=1&cursor=${ok.json().next_cursor}` });
    expect(next.statusCode).toBe(200);
    expect(next.json().partners).toHaveLength(1);
  });
});

describe('a bootstrap credential stored earlier stops working in production', () => {
  const token = 'bootstrap-in-production-secret-0123456789';
  const fingerprintKey = 'fingerprint-key-for-this-test-0123456789abcdef';

  // Four starts of the system on one storage.
  it('works in a sandbox, keeps working in production when allowed, and is revoked with a log line in production otherwise', async () => {
    const storage = await freshStorage();
    try {
      const sandbox = await bootSystem({ SVC_BOOTSTRAP_TOKEN: token, SVC_FINGERPRINT_KEY: fingerprintKey }, { storage });
      expect((await sandbox.request({ url: '/cms/tokens', token })).statusCode).toBe(200);
      await sandbox.close();

      // Production with SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION=true leaves the stored credential alone.
      const allowed = await bootSystem({ SVC_ENVIRONMENT: 'production', SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION: 'true', SVC_BOOTSTRAP_TOKEN: '', SVC_FINGERPRINT_KEY: fingerprintKey }, { storage });
      expect((await allowed.request({ url: '/cms/tokens', token })).statusCode).toBe(200);
      await allowed.close();

      const { lines, logger } = memoryLogger();
      const production = await bootSystem({ SVC_ENVIRONMENT: 'production', SVC_BOOTSTRAP_TOKEN: '', SVC_FINGERPRINT_KEY: fingerprintKey }, { storage, logger });
      try {
        const refused = await production.request({ url: '/cms/tokens', token });
        expect(refused.statusCode).toBe(401);
        expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
        const revoked = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => String(l['msg']).startsWith('bootstrap operator credential revoked'));
        expect(revoked).toHaveLength(1);
        expect(revoked[0]!['msg']).toContain('SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION');
        expect(revoked[0]!['tokenId']).toMatch(/^tok_/);
        expect(lines.join('\n')).not.toContain(token);
      } finally {
        await production.close();
      }

      // Revoked means revoked: a later start that allows it again does not bring it back.
      const later = await bootSystem({ SVC_ENVIRONMENT: 'production', SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION: 'true', SVC_BOOTSTRAP_TOKEN: '', SVC_FINGERPRINT_KEY: fingerprintKey }, { storage });
      try {
        expect((await later.request({ url: '/cms/tokens', token })).statusCode).toBe(401);
      } finally {
        await later.close();
      }
    } finally {
      await storage.dispose();
    }
  });
});

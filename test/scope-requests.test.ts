import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { onboardPartner, portalSession } from './support/partner-onboarding.js';

/**
 * Scope requests: a partner asks for scopes with a reason (REST and GraphQL), validation names the
 * field, only catalog scopes, no duplicate of a pending request; an operator grants (the scopes join
 * the grant, partner.scopes.updated, the open session carries them at once) or refuses with a
 * reason; another partner's request looks missing.
 */

let t: TestSystem;
beforeAll(async () => {
  t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
});
afterAll(() => t?.close());

const post = (url: string, token: string | undefined, body: unknown) => t.request({ method: 'POST', url, body, ...(token === undefined ? {} : { token }) });

describe('scope requests', () => {
  it('a partner requests, an operator grants; the open session carries the scopes at once', async () => {
    const { partnerGpid, email } = await onboardPartner(t, `req-${Date.now().toString(36)}`);
    const session = await portalSession(t, email);

    // Validation names the field.
    const bad = await post('/cms/scope-requests', session, { scopes: ['tefca.xcpd.*', 'no.such.scope', 'cms.admin'], reason: 'short' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((f: { field: string }) => f.field)).toEqual(['scopes.1', 'scopes.2']);
    const noReason = await post('/cms/scope-requests', session, { scopes: ['tefca.xcpd.*'], reason: 'short' });
    expect(noReason.statusCode).toBe(422);
    expect(noReason.json().errors).toEqual([{ field: 'reason', message: expect.stringContaining('at least 10') }]);
    const held = await post('/cms/scope-requests', session, { scopes: ['cms.fhir.r4.read'], reason: 'We read FHIR resources.' });
    expect(held.statusCode).toBe(422);
    expect(held.json().errors).toEqual([{ field: 'scopes.0', message: 'cms.fhir.r4.read is already granted' }]);

    const created = await post('/cms/scope-requests', session, { scopes: ['tefca.xcpd.*', 'tefca.xca.*'], reason: 'Patient discovery for our care coordination team.' });
    expect(created.statusCode, created.body).toBe(201);
    const request = created.json();
    expect(request).toMatchObject({ id: expect.stringMatching(/^scr_/), partner_gpid: partnerGpid, status: 'pending', scopes: ['tefca.xcpd.*', 'tefca.xca.*'], decided_at: null });

    // No duplicate of a pending request.
    const dup = await post('/cms/scope-requests', session, { scopes: ['tefca.xca.*'], reason: 'Document query as well, please.' });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().errors).toEqual([{ field: 'scopes.0', message: `already requested in ${request.id}` }]);

    // The partner lists its own; another partner sees nothing of it.
    const mine = await t.request({ url: '/cms/scope-requests?status=pending', token: session });
    expect(mine.json().scope_requests.map((r: { id: string }) => r.id)).toEqual([request.id]);
    const other = await portalSession(t, (await onboardPartner(t, `other-${Date.now().toString(36)}`)).email);
    expect((await t.request({ url: `/cms/scope-requests/${request.id}`, token: other })).statusCode).toBe(404);
    expect((await t.request({ url: `/cms/scope-requests?partner_gpid=${partnerGpid}`, token: other })).json().scope_requests).toEqual([]);
    // Only operators decide.
    expect((await post(`/cms/scope-requests/${request.id}/grant`, session, {})).statusCode).toBe(403);

    // The operator sees it pending, grants it (GraphQL door).
    const pending = await t.graphql<{ scopeRequests: { edges: { node: { id: string } }[] } }>('{ scopeRequests(status: PENDING, first: 100) { edges { node { id } } } }');
    expect(pending.data!.scopeRequests.edges.map((e) => e.node.id)).toContain(request.id);
    expect((await t.graphql('{ viewer { scopes } }', {}, session)).data).toEqual({ viewer: { scopes: expect.not.arrayContaining(['tefca.xcpd.*']) } });
    const granted = await t.graphql<{ grantScopeRequest: { status: string; decidedBy: string | null } }>('mutation($id: ID!) { grantScopeRequest(id: $id) { status decidedBy } }', { id: request.id });
    expect(granted.errors).toBeUndefined();
    expect(granted.data!.grantScopeRequest.status).toBe('GRANTED');
    const viewer = await t.graphql<{ viewer: { scopes: string[] } }>('{ viewer { scopes } }', {}, session);
    expect(viewer.data!.viewer.scopes).toEqual(expect.arrayContaining(['tefca.xcpd.*', 'tefca.xca.*']));
    const grant = await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: partnerGpid });
    expect(grant.data!.partner.grantedScopes).toEqual(expect.arrayContaining(['tefca.xcpd.*', 'tefca.xca.*', 'cms.fhir.r4.read']));
    // Decided once.
    expect((await post(`/cms/scope-requests/${request.id}/refuse`, undefined, { reason: 'Changed our mind here.' })).statusCode).toBe(409);
  });

  it('an operator refuses with a reason the partner reads; a refusal needs one', async () => {
    const { email } = await onboardPartner(t, `ref-${Date.now().toString(36)}`);
    const session = await portalSession(t, email);
    const res = await t.graphql<{ requestScopes: { id: string } }>('mutation($s: [String!]!, $r: String!) { requestScopes(scopes: $s, reason: $r) { id } }', { s: ['identity.merge'], r: 'We steward duplicate records.' }, session);
    expect(res.errors).toBeUndefined();
    const id = res.data!.requestScopes.id;
    const noReason = await post(`/cms/scope-requests/${id}/refuse`, undefined, {});
    expect(noReason.statusCode).toBe(422);
    expect(noReason.json().errors[0].field).toBe('reason');
    const refused = await post(`/cms/scope-requests/${id}/refuse`, undefined, { reason: 'Merges need a signed data stewardship addendum.' });
    expect(refused.statusCode, refused.body).toBe(200);
    const seen = await t.request({ url: `/cms/scope-requests/${id}`, token: session });
    expect(seen.json()).toMatchObject({ status: 'refused', decision_reason: 'Merges need a signed data stewardship addendum.', decided_at: expect.any(String) });
    // A refused request no longer blocks a new one.
    expect((await post('/cms/scope-requests', session, { scopes: ['identity.merge'], reason: 'The addendum is signed now.' })).statusCode).toBe(201);
  });
});

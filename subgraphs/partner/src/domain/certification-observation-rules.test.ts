import { describe, expect, it } from 'vitest';
import { makeEvent } from '@svc/platform';
import { evidenceFromEvent } from './certification-evidence-rules.js';
import { assessLeastPrivilege, overbroadScopeReason } from './certification-least-privilege.js';

describe('least-privilege observation', () => {
  it('flags operator, product-wide and all-resource scopes, and accepts narrow ones', () => {
    expect(overbroadScopeReason('*')).toBe('the operator wildcard');
    expect(overbroadScopeReason('cms.admin')).toBe('the operator scope');
    expect(overbroadScopeReason('tefca.*')).toBe('a product-wide wildcard');
    expect(overbroadScopeReason('system/*.*')).toBe('every permission on every resource type');
    expect(overbroadScopeReason('system/*.cruds')).toBe('every permission on every resource type');
    expect(overbroadScopeReason('TEFCA.*')).toBe('a malformed scope');
    for (const scope of ['tefca.xcpd.*', 'cms.fhir.r4.read', 'system/*.read', 'patient/Patient.rs']) expect(overbroadScopeReason(scope), scope).toBeNull();
  });

  it('needs at least one scoped credential and no over-broad one', () => {
    expect(assessLeastPrivilege([]).satisfied).toBe(false);
    expect(assessLeastPrivilege([{ id: 'tok_a', scopes: [] }]).satisfied).toBe(false);
    const ok = assessLeastPrivilege([{ id: 'tok_a', scopes: ['cms.fhir.r4.read'] }, { id: 'cli_b', scopes: ['identity.match'] }]);
    expect(ok).toMatchObject({ satisfied: true, detail: '2 active credential(s), scopes: cms.fhir.r4.read identity.match.' });
    const broad = assessLeastPrivilege([{ id: 'tok_a', scopes: ['cms.fhir.r4.read'] }, { id: 'tok_b', scopes: ['cms.*', 'identity.read'] }]);
    expect(broad).toMatchObject({ satisfied: false, overbroad: [{ credential_id: 'tok_b', scopes: ['cms.*'] }] });
  });
});

describe('evidence from events', () => {
  const gpid = 'CMS-12345678';
  it('maps documented events to items, and ignores failures, unknown origins and partnerless events', () => {
    expect(evidenceFromEvent(makeEvent('partner.credential.used', gpid, { token_id: 'tok_1', request_id: 'req_1', status: 200 }))).toEqual([
      { item_id: 'sandbox_first_authenticated_call', detail: 'Authenticated request req_1 with tok_1.' },
    ]);
    expect(evidenceFromEvent(makeEvent('fhir.resource.read', gpid, { status: 404 }))).toEqual([]);
    expect(evidenceFromEvent(makeEvent('identity.match', gpid, {}))[0]?.item_id).toBe('identity_sandbox_match');
    expect(evidenceFromEvent(makeEvent('identity.resolved', gpid, { source: 'beacon' }))[0]?.item_id).toBe('gpid_boundary_headers');
    expect(evidenceFromEvent(makeEvent('identity.resolved', gpid, {}))).toEqual([]);
    expect(evidenceFromEvent(makeEvent('webhook.test_ping.verified', null, { status: 200 }))).toEqual([]);
    expect(evidenceFromEvent(makeEvent('pipeline.sync.completed', gpid, { source: 'lake' }))).toEqual([]);
  });
});

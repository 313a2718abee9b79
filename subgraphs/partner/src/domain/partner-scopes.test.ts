import { describe, expect, it } from 'vitest';
import { DomainError, type Principal } from '@svc/platform';
import { assertDelegable, defaultGrantFor, DEFAULT_PARTNER_SCOPES, portalSessionScopes, readScopeList } from './partner-scopes.js';
import { OPERATOR_PARTNER_GPID } from './operator-partner.js';

const partner = (scopes: string[], kind: Principal['kind'] = 'partner'): Principal => ({ kind, partnerGpid: 'CMS-12345678', tokenId: 'tok_x', scopes });

function refusal(fn: () => void): DomainError | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  return undefined;
}

describe('partner grants', () => {
  it('give partners the spec cms.* scopes, identity match/resolve/read and self-service; the operator everything', () => {
    expect(defaultGrantFor('CMS-12345678')).toEqual([...DEFAULT_PARTNER_SCOPES]);
    expect(DEFAULT_PARTNER_SCOPES).toEqual(expect.arrayContaining(['cms.fhir.r4.read', 'cms.pipeline.read', 'identity.match', 'identity.resolve', 'identity.read', 'cms.tokens.manage', 'cms.webhooks.manage']));
    expect(DEFAULT_PARTNER_SCOPES).not.toContain('identity.merge');
    expect(defaultGrantFor(OPERATOR_PARTNER_GPID)).toEqual(['*']);
  });

  it('give portal sessions only the self-service scopes the partner holds', () => {
    expect(portalSessionScopes(DEFAULT_PARTNER_SCOPES)).toEqual(['cms.partner.read', 'cms.partner.write', 'cms.pipeline.read', 'cms.sdk.read', 'cms.tokens.manage', 'cms.webhooks.manage']);
    expect(portalSessionScopes(['cms.*'])).toContain('cms.tokens.manage');
    expect(portalSessionScopes(['identity.read'])).toEqual([]);
    expect(portalSessionScopes(['cms.partner.read', 'tefca.xcpd.*', 'tefca.xca.query', 'tefca.other'])).toEqual(['cms.partner.read', 'tefca.xcpd.*', 'tefca.xca.query']);
  });
});

describe('requested scope lists', () => {
  it('are de-duplicated, non-empty and well-formed', () => {
    expect(readScopeList(['a.b', 'a.b', 'system/*.read'])).toEqual(['a.b', 'system/*.read']);
    expect(refusal(() => readScopeList([]))?.fieldErrors).toEqual([{ field: 'scopes', message: expect.any(String) }]);
    expect(refusal(() => readScopeList('a.b'))?.code).toBe('VALIDATION_ERROR');
    expect(refusal(() => readScopeList(['ok.scope', 'TEFCA.*', 7, 'svc.internal']))?.fieldErrors.map((e) => e.field)).toEqual(['scopes.1', 'scopes.2', 'scopes.3']);
  });
});

describe('least privilege', () => {
  const held = ['cms.fhir.r4.read', 'identity.match', 'identity.read', 'cms.tokens.manage'];

  it('refuses scopes the partner does not hold, naming them', () => {
    const err = refusal(() => assertDelegable(['identity.read', 'identity.merge', 'tefca.*'], held, partner(['*'], 'portal')));
    expect(err?.code).toBe('FORBIDDEN');
    expect(err?.details['exceeding_scopes']).toEqual(['identity.merge', 'tefca.*']);
  });

  it('lets a portal session or an operator delegate anything the partner holds', () => {
    expect(refusal(() => assertDelegable(held, held, partner(['cms.tokens.manage'], 'portal')))).toBeUndefined();
    expect(refusal(() => assertDelegable(held, held, partner(['cms.admin'], 'service')))).toBeUndefined();
  });

  it('never lets a token mint a stronger token', () => {
    const err = refusal(() => assertDelegable(['identity.match'], held, partner(['cms.tokens.manage'])));
    expect(err?.details['exceeding_scopes']).toEqual(['identity.match']);
    expect(refusal(() => assertDelegable(['identity.match'], held, partner(['cms.tokens.manage', 'identity.*'])))).toBeUndefined();
  });
});

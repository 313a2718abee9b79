import { describe, expect, it } from 'vitest';
import { DomainError, SCOPE_CATALOG } from '@svc/platform';
import { isGrantableScope, readScopeGrant } from './partner-scope-grant.js';
import { DEFAULT_PARTNER_SCOPES } from './partner-scopes.js';

function refusal(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('grantable scopes', () => {
  it('are the catalog entries (but cms.admin) and anything narrower than one', () => {
    for (const { scope } of SCOPE_CATALOG) expect(isGrantableScope(scope), scope).toBe(scope !== 'cms.admin');
    for (const scope of DEFAULT_PARTNER_SCOPES) expect(isGrantableScope(scope), scope).toBe(true);
    for (const scope of ['tefca.xcpd.search', 'tefca.xca.retrieve', 'velocity.clearinghouse.eligibility.*', 'system/Observation.rs', 'patient/Observation.read', 'system/Patient.cud']) {
      expect(isGrantableScope(scope), scope).toBe(true);
    }
  });

  it('exclude wildcards wider than the catalog, unknown names and the operator scopes', () => {
    for (const scope of ['tefca.*', 'velocity.*', 'cms.*', 'identity.*', 'system/*.*', 'identity.delete', 'fhirUser', '*', 'cms.admin', 'svc.internal']) {
      expect(isGrantableScope(scope), scope).toBe(false);
    }
  });

  it('are read with every refused scope named by index, once', () => {
    const err = refusal(() => readScopeGrant(['identity.read', 'tefca.*', 'identity.nope', 'tefca.*', 'cms.admin']));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe('Unknown or ungrantable scopes: tefca.*, identity.nope, cms.admin.');
    expect(err.fieldErrors.map((e) => e.field)).toEqual(['scopes.1', 'scopes.2', 'scopes.4']);
    expect(readScopeGrant(['identity.read', 'identity.merge', 'identity.read'])).toEqual(['identity.read', 'identity.merge']);
    expect(refusal(() => readScopeGrant([])).fieldErrors).toEqual([{ field: 'scopes', message: 'must list at least one scope' }]);
  });
});

import { describe, it, expect } from 'vitest';
import { hasAnyScope, hasScope, isValidScope, parseScopeString, scopeSatisfies, scopesWithin } from './scopes.js';

describe('isValidScope', () => {
  it.each([
    '*',
    'openid',
    'offline_access',
    'fhirUser',
    'launch',
    'launch/patient',
    'tefca',
    'tefca.*',
    'tefca.xcpd.search',
    'tefca.xcpd.*',
    'cms.fhir.r4.read',
    'my-product.v2_beta.*',
    'patient/Patient.read',
    'user/Observation.write',
    'system/*.*',
    'system/*.read',
    'patient/Observation.rs',
    'user/Observation.c',
    'system/Patient.cruds',
    'patient/Observation.rs?category=laboratory',
    'patient/Observation.rs?category=http://terminology.hl7.org/CodeSystem/observation-category|laboratory',
    'patient/Observation.rs?category=vital-signs&status=final',
  ])('accepts %s', (scope) => {
    expect(isValidScope(scope)).toBe(true);
  });

  it.each([
    ['empty segment', 'tefca..x'],
    ['uppercase product scope', 'TEFCA.*'],
    ['wildcard not last', '*.tefca'],
    ['wildcard in the middle', 'tefca.*.search'],
    ['partial wildcard segment', 'tefca.x*'],
    ['leading dot', '.tefca'],
    ['trailing dot', 'tefca.'],
    ['bare double wildcard', '**'],
    ['empty', ''],
    ['whitespace', 'tefca xcpd'],
    ['unknown SMART permission', 'system/Patient.xyz'],
    ['unordered v2 letters', 'patient/Patient.sr'],
    ['repeated v2 letters', 'patient/Patient.rr'],
    ['empty permission', 'patient/Patient.'],
    ['missing permission', 'patient/Patient'],
    ['unknown context', 'admin/Patient.read'],
    ['uppercase context', 'Patient/Patient.read'],
    ['lowercase resource type', 'patient/patient.read'],
    ['query on v1 permission', 'patient/Observation.read?category=laboratory'],
    ['empty query', 'patient/Observation.rs?'],
    ['query without value', 'patient/Observation.rs?category'],
    ['query with empty value', 'patient/Observation.rs?category='],
  ])('rejects %s', (_label, scope) => {
    expect(isValidScope(scope)).toBe(false);
  });
});

describe('scopeSatisfies: the operator wildcard', () => {
  it('covers every valid scope', () => {
    for (const required of ['*', 'openid', 'launch/patient', 'tefca.*', 'tefca.xcpd.search', 'system/*.*', 'patient/Observation.rs?code=1']) {
      expect(scopeSatisfies('*', required)).toBe(true);
    }
  });

  it('is only covered by itself', () => {
    expect(scopeSatisfies('tefca.*', '*')).toBe(false);
    expect(scopeSatisfies('system/*.*', '*')).toBe(false);
    expect(scopeSatisfies('openid', '*')).toBe(false);
  });

  it('does not cover malformed scopes', () => {
    expect(scopeSatisfies('*', 'TEFCA.*')).toBe(false);
    expect(scopeSatisfies('*', 'system/Patient.xyz')).toBe(false);
  });
});

describe('scopeSatisfies: product dot scopes', () => {
  it('matches concrete scopes exactly', () => {
    expect(scopeSatisfies('tefca.xcpd.search', 'tefca.xcpd.search')).toBe(true);
    expect(scopeSatisfies('tefca.xcpd.search', 'tefca.xcpd.discover')).toBe(false);
    expect(scopeSatisfies('tefca.xcpd', 'tefca.xcpd.search')).toBe(false);
    expect(scopeSatisfies('tefca.xcpd.search', 'tefca.xcpd')).toBe(false);
  });

  it('lets a wildcard cover every deeper scope', () => {
    expect(scopeSatisfies('tefca.*', 'tefca.xcpd.search')).toBe(true);
    expect(scopeSatisfies('tefca.*', 'tefca.xca.query')).toBe(true);
    expect(scopeSatisfies('tefca.*', 'tefca.xcpd')).toBe(true);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xcpd.search')).toBe(true);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xcpd.discover')).toBe(true);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xcpd.search.batch')).toBe(true);
  });

  it('does not let a wildcard cover its bare parent', () => {
    expect(scopeSatisfies('tefca.*', 'tefca')).toBe(false);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xcpd')).toBe(false);
  });

  it('does not let a wildcard cover a sibling or a lookalike prefix', () => {
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xca.query')).toBe(false);
    expect(scopeSatisfies('tefca.*', 'tefcax.xcpd.search')).toBe(false);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xcpdx.search')).toBe(false);
    expect(scopeSatisfies('tefca.*', 'cms.fhir.r4.read')).toBe(false);
  });

  it('covers a required wildcard only with an equal or broader wildcard', () => {
    expect(scopeSatisfies('tefca.*', 'tefca.*')).toBe(true);
    expect(scopeSatisfies('tefca.*', 'tefca.xcpd.*')).toBe(true);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.xcpd.*')).toBe(true);
    expect(scopeSatisfies('tefca.xcpd.*', 'tefca.*')).toBe(false);
    expect(scopeSatisfies('tefca.xcpd.search', 'tefca.xcpd.*')).toBe(false);
    expect(scopeSatisfies('tefca.xcpd', 'tefca.xcpd.*')).toBe(false);
  });

  it('never crosses into SMART scopes', () => {
    expect(scopeSatisfies('tefca.*', 'patient/Patient.read')).toBe(false);
    expect(scopeSatisfies('system/*.*', 'tefca.xcpd.search')).toBe(false);
  });
});

describe('scopeSatisfies: SMART on FHIR scopes', () => {
  it('treats v1 and v2 permissions as equivalent', () => {
    expect(scopeSatisfies('patient/Patient.read', 'patient/Patient.rs')).toBe(true);
    expect(scopeSatisfies('patient/Patient.rs', 'patient/Patient.read')).toBe(true);
    expect(scopeSatisfies('patient/Patient.write', 'patient/Patient.cud')).toBe(true);
    expect(scopeSatisfies('patient/Patient.cud', 'patient/Patient.write')).toBe(true);
    expect(scopeSatisfies('patient/Patient.*', 'patient/Patient.cruds')).toBe(true);
    expect(scopeSatisfies('patient/Patient.cruds', 'patient/Patient.*')).toBe(true);
  });

  it('requires granted permissions to be a superset of the required ones', () => {
    expect(scopeSatisfies('user/Observation.rs', 'user/Observation.r')).toBe(true);
    expect(scopeSatisfies('user/Observation.rs', 'user/Observation.s')).toBe(true);
    expect(scopeSatisfies('user/Observation.rs', 'user/Observation.c')).toBe(false);
    expect(scopeSatisfies('user/Observation.r', 'user/Observation.rs')).toBe(false);
    expect(scopeSatisfies('user/Observation.read', 'user/Observation.write')).toBe(false);
    expect(scopeSatisfies('user/Observation.write', 'user/Observation.read')).toBe(false);
    expect(scopeSatisfies('user/Observation.read', 'user/Observation.cruds')).toBe(false);
    expect(scopeSatisfies('user/Observation.*', 'user/Observation.d')).toBe(true);
  });

  it('lets broader contexts cover narrower ones', () => {
    expect(scopeSatisfies('system/*.read', 'system/Patient.rs')).toBe(true);
    expect(scopeSatisfies('system/*.read', 'patient/Patient.read')).toBe(true);
    expect(scopeSatisfies('system/Patient.read', 'user/Patient.read')).toBe(true);
    expect(scopeSatisfies('user/Patient.read', 'patient/Patient.read')).toBe(true);
    expect(scopeSatisfies('user/Patient.read', 'user/Patient.read')).toBe(true);
  });

  it('does not let narrower contexts cover broader ones', () => {
    expect(scopeSatisfies('patient/Patient.read', 'system/Patient.read')).toBe(false);
    expect(scopeSatisfies('patient/Patient.read', 'user/Patient.read')).toBe(false);
    expect(scopeSatisfies('user/Patient.read', 'system/Patient.read')).toBe(false);
  });

  it('lets a * resource type cover any type, but not the reverse', () => {
    expect(scopeSatisfies('patient/*.read', 'patient/Observation.r')).toBe(true);
    expect(scopeSatisfies('patient/*.read', 'patient/*.read')).toBe(true);
    expect(scopeSatisfies('patient/Patient.read', 'patient/*.read')).toBe(false);
    expect(scopeSatisfies('patient/Patient.read', 'patient/Observation.read')).toBe(false);
  });

  it('lets an unfiltered grant cover a filtered requirement', () => {
    expect(scopeSatisfies('patient/Observation.rs', 'patient/Observation.rs?category=laboratory')).toBe(true);
    expect(scopeSatisfies('patient/Observation.read', 'patient/Observation.r?category=laboratory')).toBe(true);
    expect(scopeSatisfies('system/*.*', 'patient/Observation.rs?category=laboratory')).toBe(true);
  });

  it('lets a filtered grant cover only the identical filter', () => {
    const granted = 'patient/Observation.rs?category=laboratory';
    expect(scopeSatisfies(granted, 'patient/Observation.rs?category=laboratory')).toBe(true);
    expect(scopeSatisfies(granted, 'patient/Observation.r?category=laboratory')).toBe(true);
    expect(scopeSatisfies(granted, 'patient/Observation.rs')).toBe(false);
    expect(scopeSatisfies(granted, 'patient/Observation.read')).toBe(false);
    expect(scopeSatisfies(granted, 'patient/Observation.rs?category=vital-signs')).toBe(false);
    expect(scopeSatisfies(granted, 'patient/Observation.rs?category=laboratory&status=final')).toBe(false);
    expect(scopeSatisfies(granted, 'patient/Observation.c?category=laboratory')).toBe(false);
  });
});

describe('scopeSatisfies: other scopes', () => {
  it('matches only exactly', () => {
    expect(scopeSatisfies('openid', 'openid')).toBe(true);
    expect(scopeSatisfies('launch/patient', 'launch/patient')).toBe(true);
    expect(scopeSatisfies('offline_access', 'offline_access')).toBe(true);
    expect(scopeSatisfies('fhirUser', 'fhirUser')).toBe(true);
    expect(scopeSatisfies('launch', 'launch/patient')).toBe(false);
    expect(scopeSatisfies('launch/patient', 'launch')).toBe(false);
    expect(scopeSatisfies('openid', 'offline_access')).toBe(false);
    expect(scopeSatisfies('fhirUser', 'fhiruser')).toBe(false);
    expect(scopeSatisfies('system/*.*', 'launch/patient')).toBe(false);
    expect(scopeSatisfies('system/*.*', 'openid')).toBe(false);
  });

  it('never matches malformed scopes, even against themselves', () => {
    expect(scopeSatisfies('TEFCA.*', 'TEFCA.*')).toBe(false);
    expect(scopeSatisfies('tefca..x', 'tefca..x')).toBe(false);
    expect(scopeSatisfies('system/Patient.xyz', 'system/Patient.xyz')).toBe(false);
    expect(scopeSatisfies('', '')).toBe(false);
  });
});

describe('hasScope and hasAnyScope', () => {
  const granted = ['openid', 'tefca.xcpd.*', 'patient/Patient.read'];

  it('is satisfied when any granted scope covers the requirement', () => {
    expect(hasScope(granted, 'tefca.xcpd.search')).toBe(true);
    expect(hasScope(granted, 'patient/Patient.rs')).toBe(true);
    expect(hasScope(granted, 'openid')).toBe(true);
    expect(hasScope(granted, 'tefca.xca.query')).toBe(false);
    expect(hasScope([], 'openid')).toBe(false);
    expect(hasScope(['*'], 'cms.fhir.r4.read')).toBe(true);
  });

  it('ignores malformed granted scopes', () => {
    expect(hasScope(['TEFCA.*', 'tefca.*'], 'tefca.xcpd.search')).toBe(true);
    expect(hasScope(['TEFCA.*'], 'tefca.xcpd.search')).toBe(false);
  });

  it('accepts any one of the listed alternatives', () => {
    const fhirRead = ['cms.fhir.r4.read', 'patient/Patient.read'];
    expect(hasAnyScope(['cms.fhir.r4.read'], fhirRead)).toBe(true);
    expect(hasAnyScope(['cms.fhir.*'], fhirRead)).toBe(true);
    expect(hasAnyScope(['patient/Patient.rs'], fhirRead)).toBe(true);
    expect(hasAnyScope(['system/*.read'], fhirRead)).toBe(true);
    expect(hasAnyScope(['patient/Observation.read', 'cms.fhir.r4.write'], fhirRead)).toBe(false);
  });

  it('is never satisfied by an empty list of alternatives', () => {
    expect(hasAnyScope(['*'], [])).toBe(false);
  });
});

describe('scopesWithin', () => {
  const held = ['tefca.*', 'user/*.read', 'openid'];

  it('returns an empty array when every requested scope is held', () => {
    expect(scopesWithin([], held)).toEqual([]);
    expect(scopesWithin(['tefca.xcpd.*', 'tefca.xca.query', 'patient/Observation.rs', 'openid'], held)).toEqual([]);
  });

  it('returns the requested scopes that exceed the held set, in request order', () => {
    expect(
      scopesWithin(['system/Patient.read', 'tefca.xcpd.search', 'tefca', 'user/Patient.write', '*', 'offline_access'], held),
    ).toEqual(['system/Patient.read', 'tefca', 'user/Patient.write', '*', 'offline_access']);
  });

  it('reports malformed requested scopes', () => {
    expect(scopesWithin(['TEFCA.*', 'tefca.x'], ['*'])).toEqual(['TEFCA.*']);
  });

  it('allows anything valid under the operator credential', () => {
    expect(scopesWithin(['*', 'system/*.*', 'launch/patient'], ['*'])).toEqual([]);
  });
});

describe('parseScopeString', () => {
  it('splits on spaces, drops empties and duplicates, and keeps order', () => {
    expect(parseScopeString('openid  tefca.* openid patient/Patient.read tefca.*')).toEqual([
      'openid',
      'tefca.*',
      'patient/Patient.read',
    ]);
  });

  it('returns an empty array for blank input', () => {
    expect(parseScopeString('')).toEqual([]);
    expect(parseScopeString('   ')).toEqual([]);
  });

  it('keeps malformed scopes so the caller can report them', () => {
    expect(parseScopeString(' TEFCA.* openid ')).toEqual(['TEFCA.*', 'openid']);
  });
});

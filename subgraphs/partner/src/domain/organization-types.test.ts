import { describe, expect, it } from 'vitest';
import { ORGANIZATION_TYPES, isOrganizationTypeCode, organizationTypeLabel, parseOrganizationType } from './organization-types.js';

describe('organization types', () => {
  it('lists the eight types of the spec', () => {
    expect(ORGANIZATION_TYPES.map((type) => type.label)).toEqual([
      'Health System / Hospital',
      'Payer / Health Plan',
      'EHR / Health IT Vendor',
      'Laboratory',
      'Pharmacy',
      'Research / Academic',
      'Public Health Agency',
      'Other Healthcare Organization',
    ]);
    expect(new Set(ORGANIZATION_TYPES.map((type) => type.code)).size).toBe(8);
    for (const type of ORGANIZATION_TYPES) expect(type.code).toMatch(/^[A-Z][A-Z_]*$/);
  });

  it('parses a code or a label, ignoring case and spacing', () => {
    expect(parseOrganizationType('HEALTH_SYSTEM')?.code).toBe('HEALTH_SYSTEM');
    expect(parseOrganizationType('health_system')?.code).toBe('HEALTH_SYSTEM');
    expect(parseOrganizationType('Health System / Hospital')?.code).toBe('HEALTH_SYSTEM');
    expect(parseOrganizationType('  health system/hospital ')?.code).toBe('HEALTH_SYSTEM');
    expect(parseOrganizationType('EHR / Health IT Vendor')?.code).toBe('HEALTH_IT_VENDOR');
    expect(parseOrganizationType('Other Healthcare Organization')?.code).toBe('OTHER');
  });

  it('rejects anything else', () => {
    expect(parseOrganizationType('Hospital')).toBeUndefined();
    expect(parseOrganizationType('')).toBeUndefined();
    expect(parseOrganizationType(3)).toBeUndefined();
    expect(isOrganizationTypeCode('PAYER')).toBe(true);
    expect(isOrganizationTypeCode('payer')).toBe(false);
  });

  it('labels a code', () => {
    expect(organizationTypeLabel('PUBLIC_HEALTH')).toBe('Public Health Agency');
  });
});

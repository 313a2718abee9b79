import { describe, expect, it } from 'vitest';
import { ENTITY_TYPES, entityTypeByCode, formatSystemGpid, isEntityTypeId, parseSystemGpid } from './entity-types.js';

describe('entity types', () => {
  it('has 22 types, from patient to service', () => {
    expect(ENTITY_TYPES).toHaveLength(22);
    expect(ENTITY_TYPES[0].id).toBe('patient');
    expect(ENTITY_TYPES[21].id).toBe('service');
  });

  it('has unique ids and unique three-letter codes', () => {
    expect(new Set(ENTITY_TYPES.map((t) => t.id)).size).toBe(22);
    expect(new Set(ENTITY_TYPES.map((t) => t.code)).size).toBe(22);
    for (const t of ENTITY_TYPES) expect(t.code).toMatch(/^[A-Z]{3}$/);
  });

  it('formats and parses system GPIDs {PRD}-{TYPE}-{N}', () => {
    expect(formatSystemGpid('LAKE', 'organization', 42)).toBe('LAKE-ORG-42');
    expect(formatSystemGpid('CMS', 'service', 1n)).toBe('CMS-SRV-1');
    expect(parseSystemGpid('LAKE-ORG-42')).toEqual({ product: 'LAKE', entityType: 'organization', sequence: 42n });
    expect(parseSystemGpid('LAKE-XYZ-42')).toBeUndefined();
    expect(parseSystemGpid('LAKE-ORG-042')).toBeUndefined();
    expect(parseSystemGpid('SVC-0A1B2C3D')).toBeUndefined();
    expect(() => formatSystemGpid('lake', 'organization', 1)).toThrow(RangeError);
    expect(() => formatSystemGpid('LAKE', 'organization', 0)).toThrow(RangeError);
  });

  it('looks types up', () => {
    expect(isEntityTypeId('practitioner_role')).toBe(true);
    expect(isEntityTypeId('Patient')).toBe(false);
    expect(entityTypeByCode('PAT')?.id).toBe('patient');
  });
});

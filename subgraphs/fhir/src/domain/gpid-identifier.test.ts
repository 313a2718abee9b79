import { describe, expect, it } from 'vitest';
import { GPID_SYSTEM, gpidIdentifier, projectGpidOnText, withoutClientGpid } from './gpid-identifier.js';

describe('the projected GPID identifier', () => {
  const mrn = { system: 'urn:oid:1.2.3', value: 'MRN-1' };
  const stored = JSON.stringify({ resourceType: 'Patient', id: 'p1', meta: { versionId: '1' }, identifier: [mrn], birthDate: '1980-01-01', extension: [{ url: 'http://example.org/w', valueDecimal: 1.50 }] }).replace('1.5', '1.50');

  it('adds the link after the other identifiers, keeping element order and exact numbers', () => {
    const projected = projectGpidOnText(stored, 'SVC-0000ABCD');
    expect(JSON.parse(projected).identifier).toEqual([mrn, gpidIdentifier('SVC-0000ABCD')]);
    expect(Object.keys(JSON.parse(projected))).toEqual(['resourceType', 'id', 'meta', 'identifier', 'birthDate', 'extension']);
    expect(projected).toContain('"valueDecimal":1.50');
  });

  it('serves an unlinked Patient without a GPID as stored, and replaces or drops a GPID left in old content', () => {
    expect(projectGpidOnText(stored, null)).toBe(stored);
    const old = JSON.stringify({ resourceType: 'Patient', identifier: [gpidIdentifier('SVC-00000001')] });
    expect(JSON.parse(projectGpidOnText(old, 'SVC-00000002')).identifier).toEqual([gpidIdentifier('SVC-00000002')]);
    expect(JSON.parse(projectGpidOnText(old, null))).toEqual({ resourceType: 'Patient' });
    expect(projectGpidOnText(projectGpidOnText(old, 'SVC-00000001'), 'SVC-00000001')).toBe(old);
  });

  it('drops every GPID identifier a client sends, on Patients only', () => {
    const body = { resourceType: 'Patient', identifier: [mrn, { system: GPID_SYSTEM, value: 'SVC-FFFFFFFF' }] };
    expect(withoutClientGpid('Patient', body)).toEqual({ resourceType: 'Patient', identifier: [mrn] });
    expect(withoutClientGpid('Patient', { resourceType: 'Patient', identifier: [{ system: GPID_SYSTEM, value: 'x' }] })).toEqual({ resourceType: 'Patient' });
    const other = { resourceType: 'Observation', identifier: [{ system: GPID_SYSTEM, value: 'x' }] };
    expect(withoutClientGpid('Observation', other)).toBe(other);
  });
});

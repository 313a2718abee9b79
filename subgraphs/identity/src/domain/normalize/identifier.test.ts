import { describe, expect, it } from 'vitest';
import { parseIdentifier } from './identifier.js';

describe('identifiers with their system', () => {
  it('normalizes values and assigners', () => {
    expect(parseIdentifier({ system: 'ssn', value: '123-45-6789' }, 'identifiers.0')).toEqual({ ok: true, identifier: { system: 'ssn', assigner: '', value: '123456789', verified: false, checkDigitFailed: false } });
    expect(parseIdentifier({ system: 'drivers_license', value: 'f123 456', assigner: 'Oregon' }, 'i')).toMatchObject({ identifier: { assigner: 'or', value: 'F123456' } });
    expect(parseIdentifier({ system: 'mrn', value: 'a-1', assigner: 'St. Luke’s' }, 'i')).toMatchObject({ identifier: { assigner: 'st lukes', value: 'A1' } });
    expect(parseIdentifier({ system: 'passport', value: 'X1234 5678', assigner: 'usa' }, 'i')).toMatchObject({ identifier: { assigner: 'USA' } });
    expect(parseIdentifier({ system: 'national_id', value: '046 454 286', assigner: 'can' }, 'i')).toEqual({ ok: true, identifier: { system: 'national_id', assigner: 'CAN', value: '046454286', verified: false, checkDigitFailed: false } });
  });

  it('refuses what no system issues, naming the sub-field', () => {
    for (const [raw, field] of [
      [{ system: 'ssn', value: '000-12-3456' }, 'i.value'],
      [{ system: 'ssn', value: '666-12-3456' }, 'i.value'],
      [{ system: 'ssn', value: '123-00-4567' }, 'i.value'],
      [{ system: 'ssn', value: '123-45-6789', assigner: 'US' }, 'i.assigner'],
      [{ system: 'mrn', value: '42' }, 'i.assigner'],
      [{ system: 'drivers_license', value: 'A1', assigner: 'Ontario' }, 'i.assigner'],
      [{ system: 'passport', value: 'X1234567', assigner: 'US' }, 'i.assigner'],
      [{ system: 'nhs', value: '1' }, 'i.system'],
      [{ system: 'national_id', value: '1804974' }, 'i.assigner'],
      [{ system: 'national_id', value: '1804974', assigner: 'Australia' }, 'i.assigner'],
      [{ system: 'national_id', value: '123-45-6789', assigner: 'USA' }, 'i.system'],
      [{ system: 'national_id', value: '12', assigner: 'AUS' }, 'i.value'],
      [{ system: 'mrn', value: '4 2 ✓', assigner: 'Mercy' }, 'i.value'],
    ] as const) {
      expect(parseIdentifier(raw, 'i'), JSON.stringify(raw)).toMatchObject({ ok: false, problems: [{ field }] });
    }
  });
});

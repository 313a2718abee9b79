import { describe, expect, it } from 'vitest';
import { addressKeys, normalizeStreet, parseAddress } from './address.js';

describe('postal addresses (USPS Publication 28)', () => {
  it('abbreviates suffixes and directionals, and keeps the unit by its identifier', () => {
    expect(normalizeStreet(['123 North Main Street', 'Apartment 4B'])).toEqual({ street: '123 n main st', unit: '4b' });
    expect(normalizeStreet(['123 N. Main St. #4B'])).toEqual({ street: '123 n main st', unit: '4b' });
    expect(normalizeStreet(['500 Parkway Boulevard Suite 210'])).toEqual({ street: '500 parkway blvd', unit: '210' });
    expect(normalizeStreet(['9 Avenue Road Rear'])).toEqual({ street: '9 avenue rd', unit: '' });
  });

  it('validates ZIP codes, states and countries, naming the sub-field', () => {
    const ok = parseAddress({ lines: ['1 Elm St'], city: 'Boston', state: 'Massachusetts', postal_code: '02134-1234' }, 'address');
    expect(ok).toEqual({ ok: true, address: { street: '1 elm st', unit: '', city: 'boston', state: 'ma', postalCode: '02134', country: 'US' } });
    expect(parseAddress({ lines: ['1 Elm St'], postal_code: '2134' }, 'addresses.1')).toMatchObject({ ok: false, problems: [{ field: 'addresses.1.postal_code' }] });
    expect(parseAddress({ lines: ['1 Elm St'], city: 'Boston', state: 'Atlantis' }, 'address')).toMatchObject({ ok: false, problems: [{ field: 'address.state' }] });
    expect(parseAddress({ lines: ['1 Elm St'] }, 'address')).toMatchObject({ ok: false, problems: [{ field: 'address.postal_code' }] });
    expect(parseAddress({ lines: [] }, 'address')).toMatchObject({ ok: false, problems: [{ field: 'address.lines' }] });
    expect(parseAddress({ lines: ['10 Downing St'], postal_code: 'sw1a 2aa', country: 'GB' }, 'address')).toMatchObject({ ok: true, address: { postalCode: 'SW1A2AA', country: 'GB' } });
  });

  it('writes the place by ZIP and by city, so either side meets', () => {
    const a = parseAddress({ lines: ['1 Elm Street'], postal_code: '02134' }, 'a');
    const b = parseAddress({ lines: ['1 elm st'], city: 'Boston', state: 'MA', postal_code: '02134' }, 'b');
    if (!a.ok || !b.ok) throw new Error('invalid');
    expect(addressKeys(b.address).exact).toContain(addressKeys(a.address).exact[0]);
  });
});

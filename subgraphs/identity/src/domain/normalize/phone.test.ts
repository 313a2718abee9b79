import { describe, expect, it } from 'vitest';
import { parsePhone, phoneTail } from './phone.js';

const e164 = (text: string, country?: Parameters<typeof parsePhone>[1]) => {
  const r = parsePhone(text, country);
  return r.ok ? r.e164 : `error: ${r.message}`;
};

describe('parsePhone', () => {
  it.each([
    '(212) 867-5309',
    '212-867-5309',
    '212.867.5309',
    '2128675309',
    '1-212-867-5309',
    '+1 212 867 5309',
    '+12128675309',
    '001 212 867 5309',
    'tel:+1-212-867-5309',
    '212-867-5309 ext. 42',
  ])('%s → +12128675309', (text) => {
    expect(e164(text)).toBe('+12128675309');
  });

  it('reads national numbers in the configured country and keeps explicit country codes', () => {
    expect(e164('020 7946 0958', 'GB')).toBe('+442079460958');
    expect(e164('+44 20 7946 0958')).toBe('+442079460958');
    expect(e164('030 1234567', 'DE')).toBe('+49301234567');
  });

  it.each(['12345', '(999) 867-5309', '+1 212 111 2222', 'call me', ''])('rejects %s', (text) => {
    expect(e164(text)).toMatch(/^error: /);
  });

  it('takes the last seven digits as the tail', () => {
    expect(phoneTail('2128675309')).toBe('8675309');
  });
});

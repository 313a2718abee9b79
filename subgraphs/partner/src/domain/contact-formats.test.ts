import { describe, expect, it } from 'vitest';
import { emailLocalPart, isValidEmail, normalizeEmail } from './email-address.js';
import { normalizePhone } from './phone-number.js';

describe('e-mail addresses', () => {
  it.each(['jane.doe@example.org', 'ops+portal@health.example.co.uk', "o'brien@example.com", 'a@b.io', 'x@xn--bcher-kva.example'])(
    'accepts %s',
    (address) => expect(isValidEmail(address)).toBe(true),
  );

  it.each(['', 'jane', 'jane@', '@example.org', 'jane@example', 'jane@@example.org', 'jane doe@example.org', 'jane..doe@example.org', '.jane@example.org', 'jane@-example.org', 'jane@example.c0m', 'jane@[192.0.2.1]', `${'a'.repeat(65)}@example.org`])(
    'rejects %j',
    (address) => expect(isValidEmail(address)).toBe(false),
  );

  it('canonicalizes to trimmed lower case', () => {
    expect(normalizeEmail('  Jane.Doe@Example.ORG ')).toBe('jane.doe@example.org');
  });

  it('extracts the local part without a sub-address', () => {
    expect(emailLocalPart('jane.doe+portal@example.org')).toBe('jane.doe');
  });
});

describe('phone numbers', () => {
  it.each([
    ['+12025550143', '+12025550143'],
    ['+44 20 7946 0958', '+442079460958'],
    ['(202) 555-0143', '+12025550143'],
    ['202.555.0143', '+12025550143'],
    ['1-202-555-0143', '+12025550143'],
  ])('accepts %s as %s', (input, e164) => expect(normalizePhone(input)).toBe(e164));

  it.each(['', '555-0143', '+0123456789', '+1234', '(102) 555-0143', '+1 202 555 0143 99999', 'call me'])('rejects %j', (input) =>
    expect(normalizePhone(input)).toBeUndefined(),
  );
});

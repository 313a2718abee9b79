import { describe, expect, it } from 'vitest';
import { PASSWORD_POLICY, characterClasses, checkPasswordStrength, isAcceptablePassword } from './password-policy.js';

const context = { email: 'jane.doe@northwind-clinic.example', organization_name: 'Northwind Community Hospital' };
const messages = (password: unknown, ctx = context): string[] => checkPasswordStrength(password, ctx).map((error) => error.message);

describe('password policy', () => {
  it.each(['Tr4il-Maple-Quartz', 'vQ7#mZp2!kLw', 'quiet otter paints the harbour', 'Zephyr.Lantern.2291', 'grüne Wälder 9 über'])(
    'accepts %j',
    (password) => expect(messages(password)).toEqual([]),
  );

  it('requires a password', () => {
    expect(checkPasswordStrength(undefined)).toEqual([{ field: 'portal_password', message: 'Password is required.' }]);
    expect(checkPasswordStrength('')).toHaveLength(1);
  });

  it('enforces the length bounds', () => {
    expect(messages('Ab1!xyZ')).toContain('Password must be at least 12 characters long.');
    const long = 'Ab1!'.repeat(40);
    expect(messages(long)).toContain('Password must be at most 128 characters long.');
    expect(PASSWORD_POLICY.maxLength).toBe(128);
  });

  it('needs three character classes below passphrase length', () => {
    expect(messages('kettlebridgewx').some((message) => message.includes('at least 3 of'))).toBe(true);
    expect(messages('kettlebridgewx42')).toHaveLength(1);
    expect(messages('Kettlebridgewx42')).toEqual([]);
  });

  it('accepts a single-class passphrase of 20 characters or more', () => {
    expect(messages('kettlebridgewxyvolts')).toEqual([]);
  });

  it('refuses passwords made of few characters', () => {
    expect(messages('aA1!aA1!aA1!aA1!').some((message) => message.includes('different characters'))).toBe(true);
    expect(messages('z'.repeat(24)).some((message) => message.includes('different characters'))).toBe(true);
  });

  it.each(['Password2026!', 'P@ssw0rd!!2026', 'Welcome123456', 'Qwerty!2345678', 'correct horse battery staple', '123456789012'])(
    'refuses the common password %j',
    (password) => expect(messages(password)).toContain('Password is too common; choose something that is not built on a well-known password.'),
  );

  it('refuses the e-mail local part', () => {
    expect(messages('Jane.Doe#Rocks77')).toContain('Password must not contain your e-mail address.');
    expect(messages('xx-janedoe-42!Q')).toContain('Password must not contain your e-mail address.');
  });

  it('refuses the organization name and its distinctive words', () => {
    expect(messages('Northwind!Secure9')).toContain('Password must not contain your organization name.');
    expect(messages('NorthwindCommunityHospital1!')).toContain('Password must not contain your organization name.');
    // Generic words of the name are not held against the applicant.
    expect(messages('Hospital-Cobalt-Tiger7')).not.toContain('Password must not contain your organization name.');
  });

  it('reports each broken rule on the given field', () => {
    const errors = checkPasswordStrength('password', context, 'account.portal_password');
    expect(errors.length).toBeGreaterThanOrEqual(3);
    expect(new Set(errors.map((error) => error.field))).toEqual(new Set(['account.portal_password']));
  });

  it('counts character classes', () => {
    expect([...characterClasses('aB3 $')].sort()).toEqual(['digit', 'lowercase', 'symbol', 'uppercase']);
    expect(isAcceptablePassword('vQ7#mZp2!kLw')).toBe(true);
  });
});

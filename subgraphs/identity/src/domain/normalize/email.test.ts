import { describe, expect, it } from 'vitest';
import { canonicalEmail, parseEmail } from './email.js';

const canon = (text: string) => {
  const parsed = parseEmail(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return canonicalEmail(parsed.address).address;
};

describe('email canonicalization', () => {
  it.each([
    ['John.Smith@Gmail.com', 'johnsmith@gmail.com'],
    ['j.o.h.n.smith+clinic@gmail.com', 'johnsmith@gmail.com'],
    ['johnsmith@googlemail.com', 'johnsmith@gmail.com'],
    ['  JOHN.SMITH+X@GOOGLEMAIL.COM ', 'johnsmith@gmail.com'],
    ['mailto:john@gmail.com', 'john@gmail.com'],
    ['jane.doe+news@outlook.com', 'jane.doe@outlook.com'],
    ['jane+a@hotmail.com', 'jane@hotmail.com'],
    ['jane+a@icloud.com', 'jane@icloud.com'],
    ['jane+a@pm.me', 'jane@protonmail.com'],
    ['jane+a@fastmail.fm', 'jane@fastmail.com'],
  ])('%s → %s', (input, expected) => {
    expect(canon(input)).toBe(expected);
  });

  it('keeps dots and plus signs at providers that treat them as significant', () => {
    expect(canon('jane.doe+x@example.org')).toBe('jane.doe+x@example.org');
    expect(canon('jane.doe@yahoo.com')).toBe('jane.doe@yahoo.com');
  });

  it('exposes the local part', () => {
    expect(canonicalEmail('j.smith+tag@gmail.com')).toEqual({ address: 'jsmith@gmail.com', local: 'jsmith', domain: 'gmail.com' });
  });

  it.each(['not-an-email', 'a@b', '@gmail.com', 'john@', 'jo hn@gmail.com', 'a@@b.com', 'john..smith@gmail.com', `${'x'.repeat(65)}@gmail.com`])(
    'rejects %s',
    (input) => {
      expect(parseEmail(input).ok).toBe(false);
    },
  );
});

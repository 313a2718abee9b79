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

  it.each([
    // RFC 6531: UTF-8 local parts; IDN domains as U-labels or A-labels (Punycode) are one address.
    ['søren.40@exämple.dk', 'søren.40@xn--exmple-cua.dk'],
    ['SØREN.40@EXÄMPLE.DK', 'søren.40@xn--exmple-cua.dk'],
    ['søren.40@xn--exmple-cua.dk', 'søren.40@xn--exmple-cua.dk'],
    ['用户@例子.广告', '用户@xn--fsqu00a.xn--4rr70v'],
    ['用户@例子。广告', '用户@xn--fsqu00a.xn--4rr70v'],
    ['用户@XN--FSQU00A.XN--4RR70V', '用户@xn--fsqu00a.xn--4rr70v'],
    ['üñîçøðé@münchen.de', 'üñîçøðé@xn--mnchen-3ya.de'],
    ['üñîçøðé@xn--mnchen-3ya.de', 'üñîçøðé@xn--mnchen-3ya.de'],
    // NFD input (u + combining diaeresis) is the same address as NFC.
    ['u\u0308ber@example.org', 'über@example.org'],
    ['Jürgen+clinic@gmail.com', 'jürgen@gmail.com'],
  ])('internationalized %s → %s', (input, expected) => {
    expect(canon(input)).toBe(expected);
  });

  it.each([
    'not-an-email',
    'a@b',
    '@gmail.com',
    'john@',
    'jo hn@gmail.com',
    'a@@b.com',
    'john..smith@gmail.com',
    `${'x'.repeat(65)}@gmail.com`,
    `${'é'.repeat(33)}@example.org`, // 66 octets in UTF-8
    'jo\u200bhn@example.org', // a zero-width space (format character)
    'jo\u0000hn@example.org',
    'john@1.2.3.4',
    'john@[1.2.3.4]',
    'john@ex%41mple.com',
    'john@under_score.com',
    'john@xn--zz.com', // an invalid A-label
    '"quoted"@example.org',
  ])(
    'rejects %s',
    (input) => {
      expect(parseEmail(input).ok).toBe(false);
    },
  );
});

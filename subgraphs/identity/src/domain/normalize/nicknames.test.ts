import { describe, expect, it } from 'vitest';
import { NICKNAME_GROUPS, canonicalGivenNames, sameGivenName } from './nicknames.js';

describe('nicknames', () => {
  it('has at least 150 groups', () => {
    expect(NICKNAME_GROUPS.size).toBeGreaterThanOrEqual(150);
  });

  it.each([
    ['Bob', 'Robert'],
    ['Bill', 'William'],
    ['Liz', 'Elizabeth'],
    ['Peggy', 'Margaret'],
    ['Dick', 'Richard'],
    ['Jack', 'John'],
    ['Ted', 'Edward'],
    ['Ted', 'Theodore'],
    ['Chuck', 'Charles'],
    ['Sally', 'Sarah'],
    ['Patsy', 'Patricia'],
    ['Dave', 'David'],
    ['Kathy', 'Catherine'],
    ['Stephen', 'Steven'],
    ['Geoffrey', 'Jeffrey'],
    ['Al', 'Alan'],
    ['Al', 'Albert'],
  ])('%s ~ %s', (a, b) => {
    expect(sameGivenName(a, b)).toBe(true);
    expect(sameGivenName(b, a)).toBe(true);
  });

  it('does not join different full names through a shared nickname', () => {
    expect(sameGivenName('Albert', 'Alan')).toBe(false);
    expect(sameGivenName('Robert', 'William')).toBe(false);
  });

  it('returns every canonical of an ambiguous nickname, and the name itself when unknown', () => {
    expect(canonicalGivenNames('Chris')).toEqual(expect.arrayContaining(['christopher', 'christina', 'christine', 'christian']));
    expect(canonicalGivenNames('Nathan')).toEqual(['nathan', 'nathaniel']);
    expect(canonicalGivenNames('Zebulon')).toEqual(['zebulon']);
    expect(canonicalGivenNames('BÖB')).toEqual(['robert']);
    expect(canonicalGivenNames('')).toEqual([]);
  });

  it('stores only folded lowercase ASCII', () => {
    for (const [canonical, variants] of NICKNAME_GROUPS) {
      for (const name of [canonical, ...variants]) expect(name).toMatch(/^[a-z]+$/);
    }
  });
});

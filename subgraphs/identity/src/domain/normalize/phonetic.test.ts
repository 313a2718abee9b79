import { describe, expect, it } from 'vitest';
import { nysiis, soundex } from './phonetic.js';

describe('nysiis', () => {
  it.each([
    ['Johnson', 'JANSAN'],
    ['Jonson', 'JANSAN'],
    ['Smith', 'SNAT'],
    ['Schmidt', 'SNAD'],
    ['Knight', 'NAGT'],
    ['Phillips', 'FALAP'],
    ['Macdonald', 'MCDANA'],
    ['Brown', 'BRAN'],
    ['Braun', 'BRAN'],
    ['Müller', 'MALAR'],
    ['Mueller', 'MALAR'],
  ])('%s → %s', (name, code) => {
    expect(nysiis(name)).toBe(code);
  });

  it('returns empty for no letters', () => {
    expect(nysiis('123')).toBe('');
  });
});

describe('soundex', () => {
  it.each([
    ['Robert', 'R163'],
    ['Rupert', 'R163'],
    ['Ashcraft', 'A261'],
    ['Tymczak', 'T522'],
    ['Pfister', 'P236'],
    ['Lee', 'L000'],
  ])('%s → %s', (name, code) => {
    expect(soundex(name)).toBe(code);
  });
});

import { describe, expect, it } from 'vitest';
import { deletionNeighbourhood, foldLetters, foldText } from './text.js';

describe('foldText', () => {
  it.each([
    ['García', 'garcia'],
    ['GARCÍA', 'garcia'],
    ['Müller', 'muller'],
    ['Nguyễn', 'nguyen'],
    ['Straße', 'strasse'],
    ['STRASSE', 'strasse'],
    ['Ødegaard', 'odegaard'],
    ['Łukasiewicz', 'lukasiewicz'],
    ['Œuvre', 'oeuvre'],
    ['Ærø', 'aero'],
    ['Þór', 'thor'],
    ['Dvořák', 'dvorak'],
    ["O'Brien", 'obrien'],
    ['D’Angelo', 'dangelo'],
    ['Smith-Jones', 'smith jones'],
    ['  Mary   Ann ', 'mary ann'],
    ['ﬁnn', 'finn'], // compatibility ligature
  ])('%s → %s', (input, expected) => {
    expect(foldText(input)).toBe(expected);
  });

  it('keeps only letters in foldLetters', () => {
    expect(foldLetters("Mary-Kate O'Neil 3rd")).toBe('marykateoneilrd');
  });
});

describe('deletionNeighbourhood', () => {
  it('contains the word and every one-deletion', () => {
    expect(deletionNeighbourhood('john').sort()).toEqual(['jhn', 'joh', 'john', 'jon', 'ohn']);
  });

  it('lets one edit of any kind share a member', () => {
    const share = (a: string, b: string) => deletionNeighbourhood(a).some((x) => deletionNeighbourhood(b).includes(x));
    expect(share('smith', 'smyth')).toBe(true); // substitution
    expect(share('smith', 'smiith')).toBe(true); // insertion
    expect(share('smith', 'smth')).toBe(true); // deletion
    expect(share('smith', 'smtih')).toBe(true); // transposition
    expect(share('smith', 'jones')).toBe(false);
  });

  it('does not expand short words', () => {
    expect(deletionNeighbourhood('li')).toEqual(['li']);
    expect(deletionNeighbourhood('lee')).toEqual(['lee']);
  });
});

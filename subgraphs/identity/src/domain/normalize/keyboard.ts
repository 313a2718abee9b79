/**
 * One-key slips on a QWERTY keyboard. A short name (three letters or fewer) has no typo
 * neighbourhood (a one-letter deletion of "amy" is any two-letter word), so its tolerated typos are
 * the substitutions of one letter by a key next to it ("amy" → "amu", "amt", "any" …): few enough
 * to fingerprint, and the slip a keyboard actually makes.
 *
 * Written by hand: the npm keyboard-distance packages (`keyboard-distance`, `typo-js`-style
 * generators) are unmaintained or bring whole layouts and dictionaries for what is one table of
 * 26 rows.
 */

const ROWS = ['qwertyuiop', 'asdfghjkl', 'zxcvbnm'];

/** Letters adjacent to each letter: same row left and right, and the touching keys above and below. */
const ADJACENT: ReadonlyMap<string, string> = (() => {
  const position = new Map<string, [number, number]>();
  ROWS.forEach((row, r) => [...row].forEach((ch, c) => position.set(ch, [r, c])));
  const out = new Map<string, string>();
  for (const [ch, [r, c]] of position) {
    const near: string[] = [];
    for (const [other, [r2, c2]] of position) {
      if (other === ch) continue;
      // Rows are staggered by about half a key: row r+1, column c touches row r at columns c and c+1.
      const touching = (r2 === r && Math.abs(c2 - c) === 1) || (r2 === r + 1 && (c2 === c || c2 === c - 1)) || (r2 === r - 1 && (c2 === c || c2 === c + 1));
      if (touching) near.push(other);
    }
    out.set(ch, near.sort().join(''));
  }
  return out;
})();

/** Longest name given keyboard-slip variants. */
export const SHORT_NAME_MAX_LETTERS = 3;

/** Keys next to `letter` (lowercase a–z), empty for anything else. */
export function adjacentKeys(letter: string): string {
  return ADJACENT.get(letter) ?? '';
}

/** Every spelling of `name` (folded a–z) with one letter replaced by an adjacent key; empty above three letters. */
export function keyboardSlips(name: string): string[] {
  if (name.length < 2 || name.length > SHORT_NAME_MAX_LETTERS || !/^[a-z]+$/.test(name)) return [];
  const out = new Set<string>();
  for (let i = 0; i < name.length; i++) {
    for (const key of adjacentKeys(name[i]!)) out.add(name.slice(0, i) + key + name.slice(i + 1));
  }
  return [...out];
}

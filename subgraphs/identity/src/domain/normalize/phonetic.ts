/**
 * NYSIIS (New York State Identification and Intelligence System) phonetic code, original 1970
 * rules, truncated to 6 characters as specified. It is more accurate than Soundex on surnames and
 * simple enough to audit. Input is folded to ASCII letters first.
 */
import { foldLetters } from './text.js';

const VOWELS = new Set(['A', 'E', 'I', 'O', 'U']);

function isVowel(ch: string | undefined): boolean {
  return ch !== undefined && VOWELS.has(ch);
}

/** NYSIIS code of a name; empty string for input without letters. */
export function nysiis(input: string, maxLength = 6): string {
  let name = foldLetters(input).toUpperCase();
  if (name.length === 0) return '';

  // Step 1: first letters.
  if (name.startsWith('MAC')) name = 'MCC' + name.slice(3);
  else if (name.startsWith('KN')) name = 'NN' + name.slice(2);
  else if (name.startsWith('K')) name = 'C' + name.slice(1);
  else if (name.startsWith('PH') || name.startsWith('PF')) name = 'FF' + name.slice(2);
  else if (name.startsWith('SCH')) name = 'SSS' + name.slice(3);

  // Step 2: last letters.
  if (name.endsWith('EE') || name.endsWith('IE')) name = name.slice(0, -2) + 'Y';
  else if (/(DT|RT|RD|NT|ND)$/.test(name)) name = name.slice(0, -2) + 'D';

  // Step 3: the first character of the key is the first character of the name.
  const chars = name.split('');
  let key = chars[0]!;

  // Step 4: translate the rest, one position at a time.
  let i = 1;
  while (i < chars.length) {
    const ch = chars[i]!;
    let replacement: string[];
    if (ch === 'E' && chars[i + 1] === 'V') {
      replacement = ['A', 'F'];
    } else if (isVowel(ch)) {
      replacement = ['A'];
    } else if (ch === 'Q') {
      replacement = ['G'];
    } else if (ch === 'Z') {
      replacement = ['S'];
    } else if (ch === 'M') {
      replacement = ['N'];
    } else if (ch === 'K') {
      replacement = chars[i + 1] === 'N' ? ['N'] : ['C'];
    } else if (ch === 'S' && chars[i + 1] === 'C' && chars[i + 2] === 'H') {
      replacement = ['S', 'S', 'S'];
    } else if (ch === 'P' && chars[i + 1] === 'H') {
      replacement = ['F', 'F'];
    } else if (ch === 'H' && (!isVowel(chars[i - 1]) || !isVowel(chars[i + 1]))) {
      replacement = [chars[i - 1]!];
    } else if (ch === 'W' && isVowel(chars[i - 1])) {
      replacement = [chars[i - 1]!];
    } else {
      replacement = [ch];
    }
    for (let j = 0; j < replacement.length; j++) chars[i + j] = replacement[j]!;
    for (let j = 0; j < replacement.length && i < chars.length; j++, i++) {
      const c = chars[i]!;
      if (key[key.length - 1] !== c) key += c;
    }
  }

  // Step 5: trailing S, AY → Y, trailing A.
  if (key.length > 1 && key.endsWith('S')) key = key.slice(0, -1);
  if (key.length > 2 && key.endsWith('AY')) key = key.slice(0, -2) + 'Y';
  if (key.length > 1 && key.endsWith('A')) key = key.slice(0, -1);

  return key.slice(0, maxLength);
}

/** American Soundex (letter + 3 digits), offered for callers that need the classic code. */
export function soundex(input: string): string {
  const name = foldLetters(input).toUpperCase();
  if (name.length === 0) return '';
  const codes: Record<string, string> = {
    B: '1', F: '1', P: '1', V: '1',
    C: '2', G: '2', J: '2', K: '2', Q: '2', S: '2', X: '2', Z: '2',
    D: '3', T: '3',
    L: '4',
    M: '5', N: '5',
    R: '6',
  };
  let out = name[0]!;
  let last = codes[name[0]!] ?? '';
  for (let i = 1; i < name.length && out.length < 4; i++) {
    const ch = name[i]!;
    const code = codes[ch] ?? '';
    if (code !== '' && code !== last) out += code;
    // H and W do not separate equal codes; vowels do.
    if (ch !== 'H' && ch !== 'W') last = code;
  }
  return out.padEnd(4, '0');
}

/**
 * Text folding shared by every name comparison: Unicode compatibility decomposition, combining
 * marks removed, case folded, and the Latin letters that do not decompose spelled out, so that
 * "GARCÍA", "García" and "garcia" compare equal and "Straße" equals "Strasse".
 */

/** Letters NFKD leaves alone, mapped to their usual ASCII transliteration (after lowercasing). */
const SPECIAL_LETTERS: Readonly<Record<string, string>> = {
  ß: 'ss',
  ẞ: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ł: 'l',
  ı: 'i',
  ħ: 'h',
  ŋ: 'ng',
  ĸ: 'k',
  ſ: 's',
  ŀ: 'l',
  ŧ: 't',
  ƒ: 'f',
  ə: 'e',
};

const SPECIAL_RE = new RegExp(`[${Object.keys(SPECIAL_LETTERS).join('')}]`, 'gu');

/** Apostrophes of every kind: removed inside words (O'Brien → obrien, D’Angelo → dangelo). */
const APOSTROPHES_RE = /['’‘`´ʼʹ]/gu;

/**
 * Folds text for comparison: NFKD, strip combining marks, lowercase, transliterate special
 * letters, drop apostrophes, turn any other non-letter/non-digit run into one space, trim.
 */
export function foldText(input: string): string {
  return input
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(SPECIAL_RE, (ch) => SPECIAL_LETTERS[ch] ?? ch)
    .replace(APOSTROPHES_RE, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** Folds and keeps only ASCII letters: the alphabet the phonetic and typo encodings work on. */
export function foldLetters(input: string): string {
  return foldText(input).replace(/[^a-z]/g, '');
}

/**
 * Every string obtained by deleting one character, plus the string itself. Two strings within one
 * edit (substitution, insertion, deletion, adjacent transposition) share at least one member, which
 * lets typo tolerance work on keyed fingerprints without ever comparing clear text. Short strings
 * (under `minLength`) only yield themselves, to keep "li" and "le" apart.
 */
export function deletionNeighbourhood(value: string, minLength = 4): string[] {
  const out = new Set<string>([value]);
  if (value.length >= minLength) {
    for (let i = 0; i < value.length; i++) out.add(value.slice(0, i) + value.slice(i + 1));
  }
  return [...out];
}

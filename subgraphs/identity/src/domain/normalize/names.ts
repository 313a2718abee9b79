/**
 * Personal-name parsing. Accepts either one free-text string or structured parts and returns the
 * given, middle and family parts, folded (see `foldText`). Name order: a comma means
 * "Family, Given Middle" (the registry and HL7 convention); without a comma the text is read as
 * "Given Middle Family". A swapped order without a comma ("Smith John") cannot be told apart from
 * text alone; the matcher handles it by also comparing the parts crosswise.
 */
import { foldText } from './text.js';

export interface NameParts {
  given?: string | null;
  middle?: string | null;
  family?: string | null;
}

/** One folded name part: `text` keeps word boundaries, `tokens` are its words. */
export interface FoldedNamePart {
  text: string;
  tokens: string[];
}

export interface ParsedName {
  given: FoldedNamePart | null;
  middle: FoldedNamePart | null;
  family: FoldedNamePart | null;
}

/** Leading titles dropped from free text. */
const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'rev', 'sir', 'dame', 'fr']);
/** Trailing generational and professional suffixes dropped from free text. */
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'md', 'phd', 'dds', 'do', 'rn', 'np', 'pa', 'esq', 'dmd', 'dvm', 'jnr', 'snr']);
/** Family-name particles: "Ludwig van Beethoven" has the family name "van Beethoven". */
export const FAMILY_PARTICLES = new Set([
  'van', 'von', 'de', 'del', 'della', 'der', 'den', 'da', 'di', 'du', 'la', 'le', 'st', 'ste', 'saint',
  'dos', 'das', 'do', 'ter', 'ten', 'bin', 'ibn', 'al', 'el', 'y', 'mac', 'ap',
]);

function part(raw: string | null | undefined): FoldedNamePart | null {
  if (raw === null || raw === undefined) return null;
  const text = foldText(raw);
  if (text === '') return null;
  return { text, tokens: text.split(' ') };
}

/** The raw words of free text; a word keeps its hyphens and apostrophes (folded later). */
function words(text: string): string[] {
  return text.split(/[\s,]+/u).filter((w) => foldText(w) !== '');
}

function stripTitlesAndSuffixes(list: string[], stripTitles: boolean): string[] {
  const out = [...list];
  while (stripTitles && out.length > 1 && TITLES.has(foldText(out[0]!))) out.shift();
  while (out.length > 1 && SUFFIXES.has(foldText(out[out.length - 1]!))) out.pop();
  return out;
}

/** Splits "Given Middle… Family" words, keeping family particles with the family name. */
function splitGivenFirst(list: string[]): ParsedName {
  if (list.length === 0) return { given: null, middle: null, family: null };
  if (list.length === 1) return { given: null, middle: null, family: part(list[0]) };
  let familyStart = list.length - 1;
  while (familyStart > 1 && FAMILY_PARTICLES.has(foldText(list[familyStart - 1]!))) familyStart--;
  return {
    given: part(list[0]),
    middle: familyStart > 1 ? part(list.slice(1, familyStart).join(' ')) : null,
    family: part(list.slice(familyStart).join(' ')),
  };
}

/**
 * Parses a personal name. Free text: "Family, Given Middle [, Suffix]" or "Given Middle Family";
 * titles (Dr, Mrs…) and suffixes (Jr, III, MD…) are dropped. Structured parts: the first word of
 * `given` is the given name and its other words join the middle name ("Mary Ann" → Mary + Ann).
 */
export function parseName(input: string | NameParts): ParsedName {
  if (typeof input === 'string') {
    const commaAt = input.indexOf(',');
    if (commaAt >= 0) {
      const family = words(input.slice(0, commaAt));
      const rest = stripTitlesAndSuffixes(words(input.slice(commaAt + 1)), true);
      const familyClean = stripTitlesAndSuffixes(family, false);
      if (rest.length === 0) return splitGivenFirst(familyClean);
      return {
        given: part(rest[0]),
        middle: rest.length > 1 ? part(rest.slice(1).join(' ')) : null,
        family: part(familyClean.join(' ')),
      };
    }
    return splitGivenFirst(stripTitlesAndSuffixes(words(input), true));
  }
  const givenWords = words(input.given ?? '');
  const middleText = [...givenWords.slice(1), input.middle ?? ''].join(' ');
  return {
    given: part(givenWords[0]),
    middle: part(middleText),
    family: part(input.family),
  };
}

/** The comparison form of a part: its letters with word boundaries, hyphens and spaces removed. */
export function compactPart(p: FoldedNamePart | null): string {
  return p ? p.tokens.join('').replace(/[^a-z]/g, '') : '';
}

/** Words of a family part that carry identity (particles and one-letter words dropped). */
export function significantTokens(p: FoldedNamePart | null): string[] {
  if (!p) return [];
  return p.tokens.filter((t) => t.length >= 2 && !FAMILY_PARTICLES.has(t) && /^[a-z]+$/.test(t));
}

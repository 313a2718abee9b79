import { describe, expect, it } from 'vitest';
import { compactPart, parseName } from './names.js';

function simple(input: Parameters<typeof parseName>[0]) {
  const p = parseName(input);
  return { given: p.given?.text ?? null, middle: p.middle?.text ?? null, family: p.family?.text ?? null };
}

describe('parseName', () => {
  it('reads "Given Middle Family"', () => {
    expect(simple('John Paul Smith')).toEqual({ given: 'john', middle: 'paul', family: 'smith' });
  });

  it('reads "Family, Given Middle"', () => {
    expect(simple('Smith, John Paul')).toEqual({ given: 'john', middle: 'paul', family: 'smith' });
    expect(simple('SMITH,JOHN')).toEqual({ given: 'john', middle: null, family: 'smith' });
  });

  it('gives the same parts for both orders', () => {
    expect(simple('García, José')).toEqual(simple('José Garcia'));
  });

  it('drops titles and suffixes', () => {
    expect(simple('Dr. Robert Smith Jr.')).toEqual({ given: 'robert', middle: null, family: 'smith' });
    expect(simple('Smith, Robert, III')).toEqual({ given: 'robert', middle: null, family: 'smith' });
    expect(simple('Mrs Mary Jones MD')).toEqual({ given: 'mary', middle: null, family: 'jones' });
  });

  it('keeps family particles with the family name', () => {
    expect(simple('Ludwig van Beethoven')).toEqual({ given: 'ludwig', middle: null, family: 'van beethoven' });
    expect(simple('Juan de la Cruz')).toEqual({ given: 'juan', middle: null, family: 'de la cruz' });
  });

  it('handles hyphens and apostrophes', () => {
    const p = parseName("Mary-Kate O'Brien-Smith");
    expect(compactPart(p.given)).toBe('marykate');
    expect(compactPart(p.family)).toBe('obriensmith');
  });

  it('reads a single word as a family name', () => {
    expect(simple('Madonna')).toEqual({ given: null, middle: null, family: 'madonna' });
  });

  it('accepts structured parts; extra given words join the middle name', () => {
    expect(simple({ given: 'Mary Ann', family: 'Smith' })).toEqual({ given: 'mary', middle: 'ann', family: 'smith' });
    expect(simple({ given: 'Zoë', middle: 'Q', family: 'Łódź' })).toEqual({ given: 'zoe', middle: 'q', family: 'lodz' });
  });
});

import { describe, expect, it } from 'vitest';
import { agePoints, charlsonIndex, CHARLSON_CATEGORIES } from './charlson.js';
import { ICD10, ICD10CM, SNOMED } from './vocabulary.js';

const c = (id: string, code: string, system = ICD10CM) => ({ id, system, code, display: null });

describe('charlsonIndex', () => {
  it('expands the Quan 2005 code ranges', () => {
    const chf = CHARLSON_CATEGORIES.find((x) => x.id === 'congestive_heart_failure')!;
    expect(chf.codes).toEqual(['I099', 'I110', 'I130', 'I132', 'I255', 'I420', 'I425', 'I426', 'I427', 'I428', 'I429', 'I43', 'I50', 'P290']);
    expect(CHARLSON_CATEGORIES.find((x) => x.id === 'cerebrovascular_disease')!.codes).toContain('I69');
    expect(CHARLSON_CATEGORIES.find((x) => x.id === 'any_malignancy')!.codes).not.toContain('C44');
  });

  it('scores with Quan 2011 weights (maximum 24) and Charlson 1987 weights', () => {
    const all = CHARLSON_CATEGORIES.map((cat, i) => c(`c${i}`, cat.codes[0]!, ICD10));
    expect(charlsonIndex(all, 'quan-2011', null).score).toBe(24);
    const some = [c('a', 'I21.4'), c('b', 'C78.0'), c('c', 'B20')];
    expect(charlsonIndex(some, 'quan-2011', null).score).toBe(0 + 6 + 4);
    expect(charlsonIndex(some, 'charlson-1987', null).score).toBe(1 + 6 + 6);
  });

  it('counts a category once and applies the hierarchy', () => {
    const r = charlsonIndex([c('a', 'K70.30'), c('b', 'K72.10'), c('c', 'C50.9'), c('d', 'C79.51'), c('e', 'C50.1')], 'quan-2011', null);
    expect(r.components.map((x) => [x.category, x.weight, x.replaced_by])).toEqual([
      ['mild_liver_disease', 0, 'moderate_severe_liver_disease'],
      ['any_malignancy', 0, 'metastatic_solid_tumor'],
      ['moderate_severe_liver_disease', 4, null],
      ['metastatic_solid_tumor', 6, null],
    ]);
    expect(r.components.find((x) => x.category === 'any_malignancy')!.evidence.map((e) => e.code)).toEqual(['C50.9', 'C50.1']);
    expect(r.score).toBe(10);
  });

  it('reports conditions it could not score', () => {
    const r = charlsonIndex([c('a', 'I10'), c('b', '44054006', SNOMED), c('c', 'E11.9')], 'quan-2011', null);
    expect(r).toMatchObject({ score: 0, conditions_without_category: 1, conditions_not_icd10: 1 });
  });

  it('adds one age point per decade from 50, at most 4', () => {
    expect([40, 49, 50, 59, 60, 75, 80, 101].map(agePoints)).toEqual([0, 0, 1, 1, 2, 3, 4, 4]);
    expect(charlsonIndex([c('a', 'J44.9')], 'quan-2011', 67)).toMatchObject({ score: 3, comorbidity_score: 1, age_points: 2 });
  });
});

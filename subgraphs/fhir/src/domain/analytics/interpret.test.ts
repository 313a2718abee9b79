import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { interpretQuestion } from './interpret.js';

/** A fixed reading day: the relative periods below are resolved against it. */
const TODAY = new Date('2026-11-23T15:00:00Z');
const read = (q: string) => interpretQuestion(q, TODAY);

function refusal(q: string): { problems: string[]; understood: string[] } {
  try {
    read(q);
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    const d = (e as DomainError).details as { not_understood: string[]; understood: { text: string }[] };
    return { problems: d.not_understood, understood: d.understood.map((r) => r.text) };
  }
  throw new Error(`"${q}" was read`);
}

describe('interpretQuestion', () => {
  it.each([
    ['in the last 30 days', { start: '2026-10-25', end: '2026-11-23' }],
    ['in the past 6 months', { start: '2026-05-24', end: '2026-11-23' }],
    ['last year', { start: '2025-01-01', end: '2025-12-31' }],
    ['in the last year', { start: '2025-11-24', end: '2026-11-23' }],
    ['in the previous year', { start: '2025-01-01', end: '2025-12-31' }],
    ['past year', { start: '2025-11-24', end: '2026-11-23' }],
    ['this year', { start: '2026-01-01', end: '2026-11-23' }],
    ['in 2025', { start: '2025-01-01', end: '2025-12-31' }],
    ['in March 2025', { start: '2025-03-01', end: '2025-03-31' }],
    ['since March 2024', { start: '2024-03-01', end: '2026-11-23' }],
    ['since 2024', { start: '2024-01-01', end: '2026-11-23' }],
    ['between January 2025 and June 2025', { start: '2025-01-01', end: '2025-06-30' }],
    ['from 2024-01-01 to 2024-06-30', { start: '2024-01-01', end: '2024-06-30' }],
    ['between 2020 and 2022', { start: '2020-01-01', end: '2022-12-31' }],
    ['before 2020', { start: null, end: '2019-12-31' }],
  ])('reads the period "%s"', (phrase, period) => {
    expect(read(`number of asthma diagnoses ${phrase}`).query.period).toEqual(period);
  });

  it.each([
    ['over 65', { min: 66, max: null }],
    ['65 or older', { min: 65, max: null }],
    ['65+', { min: 65, max: null }],
    ['aged 40 to 60', { min: 40, max: 60 }],
    ['between 18 and 30 years old', { min: 18, max: 30 }],
    ['under 18', { min: null, max: 17 }],
    ['younger than 5', { min: null, max: 4 }],
    ['at least 50', { min: 50, max: null }],
  ])('reads the age "%s"', (phrase, age) => {
    expect(read(`how many patients ${phrase} with asthma`).query.cohort.age).toEqual(age);
  });

  it('reads conditions with all / any / without, and their code sets', () => {
    const all = read('how many women with diabetes and hypertension').query;
    expect(all.cohort).toMatchObject({ gender: 'female', conditions: { match: 'all' } });
    expect(all.cohort.conditions!.concepts.map((c) => c.concept)).toEqual(['diabetes', 'hypertension']);
    expect(all.cohort.conditions!.concepts[0]!.codes).toContainEqual({ system: 'http://hl7.org/fhir/sid/icd-10-cm', code: 'E11', match: 'prefix' });
    expect(read('how many patients with copd or asthma').query.cohort.conditions!.match).toBe('any');
    expect(read('patients with heart failure without ckd').query.cohort.excluded_conditions.map((c) => c.concept)).toEqual(['chronic-kidney-disease']);
    // The longest phrase wins: "type 2 diabetes" is not "diabetes".
    expect(read('how many patients with type 2 diabetes').query.cohort.conditions!.concepts.map((c) => c.concept)).toEqual(['type-2-diabetes']);
    expect(read('how many patients with diabetes type 2').query.cohort.conditions!.concepts.map((c) => c.concept)).toEqual(['type-2-diabetes']);
  });

  it('is deterministic', () => {
    const q = 'Average BMI of men with COPD since March 2025, by month';
    expect(read(q)).toEqual(read(q));
    expect(read(q).query).toMatchObject({ measure: 'observation_average', group_by: 'month', observation: { loinc: ['39156-5'], unit: 'kg/m2' } });
  });

  it('refuses what it cannot read, saying what it read and what it did not', () => {
    expect(refusal('how many patients who like pizza')).toEqual({ problems: ['"like" is not a word this query language knows', '"pizza" is not a word this query language knows'], understood: ['how many'] });
    expect(refusal('average diabetes').problems.join()).toContain('"average" needs a measurement');
    expect(refusal('how many patients in 2025').problems.join()).toContain('needs something dated');
    expect(refusal('how many men and women with asthma').problems.join()).toContain('both female and male');
    expect(refusal('asthma diagnoses in 2024 and in 2025').problems.join()).toContain('more than one period');
    expect(refusal('how many patients over 65 and under 40 with asthma').problems.join()).toContain('exclude everyone');
    expect(refusal('list patients with asthma').problems.join()).toContain('not lists of patients');
    expect(refusal('what percentage of patients have diabetes').problems.join()).toContain('ask for the two counts');
    expect(refusal('median heart rate of women').problems.join()).toContain('counts and averages');
  });
});

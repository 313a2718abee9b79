import { describe, expect, it } from 'vitest';
import { fhirMatchCandidates, matchGrade } from './match-grade.js';

describe('FHIR match grade', () => {
  it('grades by the registry thresholds', () => {
    expect(matchGrade({ matchType: 'DETERMINISTIC', confidence: 0.4 })).toBe('certain');
    expect(matchGrade({ matchType: 'PARTIAL', confidence: 0.9 })).toBe('certain');
    expect(matchGrade({ matchType: 'PARTIAL', confidence: 0.5 })).toBe('probable');
    expect(matchGrade({ matchType: 'NONE', confidence: 0.2 })).toBe('possible');
  });

  it('keeps the single certain candidate, none when several are certain, and bounds by count', () => {
    const certain = { matchType: 'PARTIAL' as const, confidence: 0.95 };
    const probable = { matchType: 'PARTIAL' as const, confidence: 0.6 };
    expect(fhirMatchCandidates([certain, probable], { onlyCertainMatches: true, count: 10 })).toEqual([certain]);
    expect(fhirMatchCandidates([certain, { ...certain }], { onlyCertainMatches: true, count: 10 })).toEqual([]);
    expect(fhirMatchCandidates([certain, probable], { onlyCertainMatches: false, count: 1 })).toEqual([certain]);
  });
});

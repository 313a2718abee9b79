import { describe, expect, it } from 'vitest';
import type { ScoredCandidate } from './stage4-score.js';
import { decideResolution } from './stage5-assign.js';

function candidate(gpid: string, confidence: number, extra: Partial<ScoredCandidate> = {}): ScoredCandidate {
  return {
    gpid,
    status: 'ACTIVE',
    sources: ['pulse'],
    weight: Math.log2(confidence / (1 - confidence)) + 20,
    confidence,
    pairConfidence: confidence,
    deterministic: false,
    matchType: confidence >= 0.5 ? 'PARTIAL' : 'NONE',
    keyHits: 1,
    agreement: {
      given: 'exact', family: 'exact', nameOrder: 'straight', dob: 'exact', email: 'missing', phone: 'missing',
      sex: 'missing', address: 'missing', identifier: 'missing', memberId: 'missing',
      contactDiscounted: false, addressDiscounted: false, blockedBy: null,
      weights: { given: 0, family: 0, nameOrder: 0, dob: 0, email: 0, phone: 0, sex: 0, address: 0, identifier: 0, memberId: 0 },
      termFrequency: {},
      modelVersion: 1,
      priorLog2Odds: -20,
      log2Odds: 0,
      pairConfidence: 0,
    },
    ...extra,
  };
}

const newGpid = () => 'SVC-0000NEW0';

describe('stage 5: resolve decision', () => {
  it('a candidate under a hard rule (conflicting identifiers, twins) is never linked automatically', () => {
    const blocked = candidate('SVC-1', 0.999, { deterministic: true, matchType: 'DETERMINISTIC' });
    const decision = decideResolution([{ ...blocked, agreement: { ...blocked.agreement, blockedBy: 'identifier_conflict' } }], { newGpid });
    expect(decision).toEqual({ kind: 'NEW_PROVISIONAL', gpid: 'SVC-0000NEW0', status: 'PROVISIONAL', links: ['SVC-1'] });
  });

  it('never links on names alone, however confident: it links for review', () => {
    const namesOnly = candidate('SVC-1', 0.99);
    const noDob = { ...namesOnly, agreement: { ...namesOnly.agreement, dob: 'missing' as const } };
    expect(decideResolution([noDob], { newGpid })).toEqual({ kind: 'NEW_PROVISIONAL', gpid: 'SVC-0000NEW0', status: 'PROVISIONAL', links: ['SVC-1'] });
    const otherYear = { ...namesOnly, agreement: { ...namesOnly.agreement, dob: 'month_day' as const } };
    expect(decideResolution([otherYear], { newGpid }).kind).toBe('NEW_PROVISIONAL');
    for (const beyond of [{ dob: 'typo' }, { dob: 'typo', phone: 'exact' }, { dob: 'missing', identifier: 'exact' }, { dob: 'missing', identifier: 'typo', address: 'exact' }, { dob: 'missing', email: 'exact' }] as const) {
      const linked = decideResolution([{ ...namesOnly, agreement: { ...namesOnly.agreement, ...beyond } }], { newGpid });
      expect(linked, JSON.stringify(beyond)).toMatchObject({ kind: 'EXISTING', gpid: 'SVC-1' });
    }
  });

  it('without a DOB, never links on names and what a household shares (address, phone, member id): it links for review', () => {
    const namesOnly = candidate('SVC-1', 0.999);
    for (const household of [{ phone: 'exact' }, { address: 'street' }, { address: 'exact', phone: 'exact' }, { memberId: 'exact', phone: 'partial' }] as const) {
      const decided = decideResolution([{ ...namesOnly, agreement: { ...namesOnly.agreement, dob: 'missing', ...household } }], { newGpid });
      expect(decided, JSON.stringify(household)).toEqual({ kind: 'NEW_PROVISIONAL', gpid: 'SVC-0000NEW0', status: 'PROVISIONAL', links: ['SVC-1'] });
    }
    // Entities without households (an organization has no DOB): the name and phone link.
    const organization = { ...namesOnly, agreement: { ...namesOnly.agreement, dob: 'missing' as const, phone: 'exact' as const } };
    expect(decideResolution([organization], { newGpid, households: false })).toMatchObject({ kind: 'EXISTING', gpid: 'SVC-1' });
  });

  it('links for review a candidate of the same full name whose DOB is missing on one side, however low it scores', () => {
    const low = candidate('SVC-1', 0.04);
    const noDob = { ...low, agreement: { ...low.agreement, dob: 'missing' as const } };
    expect(decideResolution([noDob], { newGpid })).toEqual({ kind: 'NEW_PROVISIONAL', gpid: 'SVC-0000NEW0', status: 'PROVISIONAL', links: ['SVC-1'] });
    // Another DOB, a misspelt name or the names crosswise: the score alone decides.
    for (const other of [{ dob: 'disagree' }, { dob: 'missing', given: 'typo' }, { dob: 'missing', nameOrder: 'swapped' }] as const) {
      expect(decideResolution([{ ...low, agreement: { ...low.agreement, ...other } }], { newGpid }).kind, JSON.stringify(other)).toBe('NEW_SHADOW');
    }
  });

  it('NEW_SHADOW without candidates', () => {
    expect(decideResolution([], { newGpid })).toEqual({ kind: 'NEW_SHADOW', gpid: 'SVC-0000NEW0', status: 'SHADOW' });
  });

  it('NEW_SHADOW when every candidate is below the review threshold', () => {
    expect(decideResolution([candidate('SVC-1', 0.19)], { newGpid }).kind).toBe('NEW_SHADOW');
  });

  it('NEW_PROVISIONAL (the review queue) from the review threshold up, below PARTIAL too', () => {
    expect(decideResolution([candidate('SVC-1', 0.2)], { newGpid })).toMatchObject({ kind: 'NEW_PROVISIONAL', links: ['SVC-1'] });
    expect(decideResolution([candidate('SVC-1', 0.3)], { newGpid, thresholds: { review: 0.5 } }).kind).toBe('NEW_SHADOW');
    // Never above PARTIAL: a partial match is always reviewed.
    expect(decideResolution([candidate('SVC-1', 0.6)], { newGpid, thresholds: { review: 0.9 } }).kind).toBe('NEW_PROVISIONAL');
  });

  it('EXISTING for one DETERMINISTIC candidate', () => {
    const d = decideResolution([candidate('SVC-1', 0.999, { deterministic: true, matchType: 'DETERMINISTIC' }), candidate('SVC-2', 0.3)], { newGpid });
    expect(d).toMatchObject({ kind: 'EXISTING', gpid: 'SVC-1', matchType: 'DETERMINISTIC' });
  });

  it('EXISTING for one high partial candidate, and no GPID is generated', () => {
    let calls = 0;
    const d = decideResolution([candidate('SVC-1', 0.97)], { newGpid: () => `SVC-${++calls}` });
    expect(d).toMatchObject({ kind: 'EXISTING', gpid: 'SVC-1', matchType: 'PARTIAL' });
    expect(calls).toBe(0);
  });

  it('NEW_PROVISIONAL linked to partial candidates below auto-link', () => {
    const d = decideResolution([candidate('SVC-1', 0.7), candidate('SVC-2', 0.55), candidate('SVC-3', 0.1)], { newGpid });
    expect(d).toEqual({ kind: 'NEW_PROVISIONAL', gpid: 'SVC-0000NEW0', status: 'PROVISIONAL', links: ['SVC-1', 'SVC-2'] });
  });

  it('NEW_PROVISIONAL when a strong candidate has a close competitor', () => {
    const d = decideResolution([candidate('SVC-1', 0.8, { pairConfidence: 0.97 }), candidate('SVC-2', 0.15, { pairConfidence: 0.6 })], { newGpid });
    expect(d).toMatchObject({ kind: 'NEW_PROVISIONAL', links: ['SVC-1', 'SVC-2'] });
  });

  it('NEW_CONFLICT for two or more strong candidates', () => {
    const d = decideResolution(
      [
        candidate('SVC-1', 0.5, { pairConfidence: 0.999, deterministic: true, matchType: 'DETERMINISTIC' }),
        candidate('SVC-2', 0.49, { pairConfidence: 0.99 }),
      ],
      { newGpid },
    );
    expect(d).toEqual({ kind: 'NEW_CONFLICT', gpid: 'SVC-0000NEW0', status: 'CONFLICT', links: ['SVC-1', 'SVC-2'] });
  });

  it('EXISTING for the best of several strong candidates when it stays above the automatic link competing with them; the others for review', () => {
    const far = decideResolution([candidate('SVC-1', 0.95, { pairConfidence: 0.99999 }), candidate('SVC-2', 0.04, { pairConfidence: 0.95 })], { newGpid });
    expect(far).toMatchObject({ kind: 'EXISTING', gpid: 'SVC-1', review: ['SVC-2'] });
    // A near tie, or another DETERMINISTIC candidate, stays a conflict.
    const near = decideResolution([candidate('SVC-1', 0.6, { pairConfidence: 0.999 }), candidate('SVC-2', 0.39, { pairConfidence: 0.998 })], { newGpid });
    expect(near.kind).toBe('NEW_CONFLICT');
    const deterministic = candidate('SVC-2', 0.04, { pairConfidence: 0.95, deterministic: true, matchType: 'DETERMINISTIC' });
    expect(decideResolution([candidate('SVC-1', 0.95, { pairConfidence: 0.99999 }), deterministic], { newGpid }).kind).toBe('NEW_CONFLICT');
  });

  it('honours custom thresholds', () => {
    const d = decideResolution([candidate('SVC-1', 0.97)], { newGpid, thresholds: { partial: 0.5, autoLink: 0.99, candidateFloor: 0 } });
    expect(d.kind).toBe('NEW_PROVISIONAL');
  });
});

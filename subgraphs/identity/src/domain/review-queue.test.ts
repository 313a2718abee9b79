import { describe, expect, it } from 'vitest';
import { readReviewDecision } from './review-queue.js';
import { testPipeline } from './test-support.js';

const PERSON = { name: 'Odalys Brenneman', dob: '1964-09-30', email: 'odalys.b@example.org', phone: '617-555-0142' };

describe('review queue rules', () => {
  it('hands storage the candidates of a record linked for review, with scores and agreement', async () => {
    const { pipeline, registry } = testPipeline();
    const first = await pipeline.resolve({ ...PERSON, identifiers: [{ system: 'ssn', value: '123-45-6789' }] }, { source: 'pulse' });
    expect(registry.resolutions.at(-1)?.review).toBeUndefined();
    const second = await pipeline.resolve({ ...PERSON, identifiers: [{ system: 'ssn', value: '456-78-1234' }] }, { source: 'lake' });
    expect(second).toMatchObject({ decision: 'NEW_PROVISIONAL', links: [first.gpid] });
    const review = registry.resolutions.at(-1)?.review;
    expect(review).toHaveLength(1);
    expect(review![0]).toMatchObject({ gpid: first.gpid, agreement: { identifier: 'conflict', blockedBy: 'identifier_conflict' } });
    expect(review![0]!.pairConfidence).toBeGreaterThanOrEqual(0.2);
    // A record linked automatically proposes nothing.
    await pipeline.resolve({ ...PERSON, identifiers: [{ system: 'ssn', value: '123-45-6789' }] }, { source: 'cms' });
    expect(registry.resolutions.at(-1)?.review).toBeUndefined();
  });

  it('reads a decision and names every bad field', () => {
    expect(readReviewDecision({ candidateGpid: 'SVC-00000001', same: false, note: '  checked  ' })).toEqual({ candidateGpid: 'SVC-00000001', same: false, note: 'checked' });
    expect(readReviewDecision({ candidateGpid: 'SVC-00000001', same: true, note: ' ' }).note).toBeNull();
    try {
      readReviewDecision({ same: 'yes', note: 'x'.repeat(1001) });
      expect.unreachable();
    } catch (error) {
      expect((error as { fieldErrors: Array<{ field: string }> }).fieldErrors.map((e) => e.field)).toEqual(['candidate_gpid', 'same', 'note']);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { DomainError, X12_LIMITS } from '@svc/platform';
import { read270 } from './eligibility.js';
import { read837p } from './claims.js';
import { DEFAULT_DELIMITERS, scanLimits } from './x12.js';
import { claims837p, filler, fillers, paddedTo, segmentsOf, withSegments, x12Fixture } from '../../../../../test/support/x12.js';

/**
 * The limits an interchange is scanned for before node-x12 builds a segment (x12.ts, scanLimits),
 * on the pure reader functions: what each refusal names, and the edges of what counts. The HTTP
 * and GraphQL doors are tested end to end in test/payload-limits.test.ts.
 */

function refusal(work: () => unknown): DomainError {
  try {
    work();
  } catch (e) {
    if (e instanceof DomainError) return e;
    throw e;
  }
  throw new Error('expected a refusal');
}

const eligibility = x12Fixture('270-eligibility.x12');

describe('X12 limits, checked in one pass before the interchange is parsed', () => {
  it('names the limit, its value, the segment and its position (ST = 1) in a 413 code of its kind', () => {
    const err = refusal(() => read270(withSegments(eligibility, 'EQ', Array(100).fill('EQ*30'), { replace: true })));
    expect(err.code).toBe('TOO_MANY_LOOPS');
    expect(err.status).toBe(413);
    expect(err.details['limit']).toEqual({ name: 'x12.eq_per_level', max: 99, field: 'EQ' });
    // The 100th EQ is segment 111 of the transaction set (ST = 1): BHT … DTP are 2 to 11.
    expect(err.details['x12_errors']).toEqual([{ segment: 'EQ', position: 111, message: 'one hierarchical level (HL) may have at most 99 eligibility or benefit inquiries (EQ) (loop 2110C)' }]);
    expect(err.message).toContain('x12.eq_per_level (99)');
    expect(err.fieldErrors).toEqual([{ field: 'EQ', message: expect.stringContaining('at most 99') }]);
  });

  it('counts an EQ loop per hierarchical level: 99 under the subscriber and 99 under its dependent pass', () => {
    const segments = segmentsOf(withSegments(eligibility, 'EQ', Array(99).fill('EQ*30'), { replace: true }));
    const text = withSegments(segments.join('~\n') + '~\n', 'SE', ['HL*4*3*23*0', 'NM1*03*1*DOE*JOHN', ...Array(99).fill('EQ*1')]);
    expect(read270(text).inquiry.service_type_codes).toHaveLength(198);
  });

  it('measures a segment without its terminator and the line breaks around it, and an element with its repetitions', () => {
    const limits = X12_LIMITS['270'];
    expect(read270(withSegments(eligibility, 'EQ', [filler(limits.maxSegmentLength)])).inquiry.service_type_codes).toEqual(['30']);
    expect(refusal(() => read270(withSegments(eligibility, 'EQ', [filler(limits.maxSegmentLength + 1)])))).toMatchObject({ code: 'SEGMENT_TOO_LONG', details: { limit: { name: 'x12.segment_length', max: 2048, field: 'NTE' } } });
    // CR LF between segments is not part of either.
    const crlf = withSegments(eligibility, 'EQ', [filler(limits.maxSegmentLength)]).replaceAll('\n', '\r\n');
    expect(read270(crlf).inquiry.reference).toBe('10001234');
    const element = `NTE*ADD*${'X'.repeat(limits.maxElementLength)}`;
    expect(read270(withSegments(eligibility, 'EQ', [element])).inquiry.reference).toBe('10001234');
    expect(refusal(() => read270(withSegments(eligibility, 'EQ', [`${element}X`])))).toMatchObject({ code: 'ELEMENT_TOO_LONG', details: { limit: { name: 'x12.element_length', max: 512, field: 'NTE02' } } });
    const codes = (n: number) => `EQ*${Array(n).fill('30').join('^')}`;
    expect(read270(withSegments(eligibility, 'EQ', [codes(99)], { replace: true })).inquiry.service_type_codes).toHaveLength(99);
    expect(refusal(() => read270(withSegments(eligibility, 'EQ', [codes(100)], { replace: true })))).toMatchObject({ code: 'TOO_MANY_REPETITIONS', details: { limit: { name: 'x12.repetitions', max: 99, field: 'EQ01' } } });
  });

  it('nests HL levels as deep as the guide does and no deeper; a parent that names no earlier level counts as a top level', () => {
    const dependent = withSegments(eligibility, 'SE', ['HL*4*3*23*0', 'NM1*03*1*DOE*JOHN']);
    expect(read270(dependent).inquiry.reference).toBe('10001234');
    const deeper = withSegments(dependent, 'SE', ['HL*5*4*23*0']);
    expect(refusal(() => read270(deeper))).toMatchObject({ code: 'NESTING_TOO_DEEP', details: { limit: { name: 'x12.hl_depth', max: 4, field: 'HL02' }, x12_errors: [{ segment: 'HL', element: 'HL02', position: 15 }] } });
    // HL02 naming a later (or no) level: not deep, and the hierarchy check still refuses it by name.
    const dangling = withSegments(eligibility, 'SE', ['HL*4*9*23*0']);
    expect(refusal(() => read270(dangling))).toMatchObject({ code: 'X12_INVALID', details: { x12_errors: [{ segment: 'HL', element: 'HL02' }] } });
  });

  it('refuses the probe inputs at once: 100,000 EQ segments and 20,000 nested HL levels', () => {
    const manyEq = withSegments(eligibility, 'EQ', Array(100_000).fill('EQ*30'), { replace: true });
    expect(refusal(() => read270(manyEq))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: { name: 'x12.bytes', max: 100_000, field: 'x12' } } });
    const nested = Array.from({ length: 20_000 }, (_, i) => `HL*${i + 4}*${i + 3}*22*1`);
    expect(refusal(() => read270(withSegments(eligibility, 'SE', nested)))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // Within an 837P's size, the same hierarchy is refused at its fourth level (HL 5).
    const claims = x12Fixture('837p-claims.x12');
    expect(refusal(() => read837p(withSegments(claims, 'SE', nested)))).toMatchObject({ code: 'NESTING_TOO_DEEP', details: { limit: { name: 'x12.hl_depth', max: 3, field: 'HL02' } } });
  });

  it('reads 5,000 claims (the 837P guide’s recommended most) and refuses the 5,001st; 100 a subscriber level; 50 lines a claim', () => {
    expect(read837p(claims837p({ subscribers: 50, claimsEach: 100, id: 1 })).submission.claims).toHaveLength(5000);
    expect(refusal(() => read837p(claims837p({ subscribers: 51, claimsEach: 100, id: 1 })))).toMatchObject({ code: 'TOO_MANY_LOOPS', details: { limit: { name: 'x12.claims', max: 5000, field: 'CLM' } } });
    expect(refusal(() => read837p(claims837p({ subscribers: 1, claimsEach: 101, id: 1 })))).toMatchObject({ code: 'TOO_MANY_LOOPS', details: { limit: { name: 'x12.claims_per_level', max: 100, field: 'CLM' } } });
    expect(read837p(claims837p({ subscribers: 1, claimsEach: 1, lines: 50, id: 2 })).submission.claims[0]!.service_lines).toHaveLength(50);
    expect(refusal(() => read837p(claims837p({ subscribers: 1, claimsEach: 1, lines: 51, id: 2 })))).toMatchObject({ code: 'TOO_MANY_LOOPS', details: { limit: { name: 'x12.lines_per_claim', max: 50, field: 'LX' } } });
  });

  it('stops at the first limit: segments counted from ISA to IEA', () => {
    const limits = X12_LIMITS['270'];
    const count = segmentsOf(eligibility).length;
    expect(read270(withSegments(eligibility, 'EQ', fillers(limits.maxSegments - count))).inquiry.reference).toBe('10001234');
    expect(refusal(() => read270(withSegments(eligibility, 'EQ', fillers(limits.maxSegments - count + 1))))).toMatchObject({ code: 'TOO_MANY_SEGMENTS', details: { limit: { name: 'x12.segments', max: 2000, field: 'IEA' } } });
    expect(read270(paddedTo(eligibility, 'EQ', limits.maxBytes)).inquiry.reference).toBe('10001234');
    expect(refusal(() => read270(paddedTo(eligibility, 'EQ', limits.maxBytes + 1)))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('scans any text in one forward pass, whatever its shape: no delimiters, only delimiters, only repetition separators', () => {
    const roomy = { ...X12_LIMITS['837'], maxSegments: 10_000_000, maxSegmentLength: 10_000_000, maxElementLength: 10_000_000, maxRepetitions: 10_000_000, maxLevels: 10_000_000 };
    // Each of these read the next delimiter from the start again before (quadratic); they end now.
    for (const text of ['ISA' + 'A~'.repeat(500_000), 'ISA*' + 'A'.repeat(1_000_000), 'ISA' + '*'.repeat(1_000_000), 'ISA*' + 'A*'.repeat(500_000), 'ISA*' + '^'.repeat(1_000_000)]) {
      expect(() => scanLimits(text, DEFAULT_DELIMITERS, roomy)).not.toThrow();
    }
    // 20,000 HL levels in one chain are 20,000 map entries, not a walk up the chain for each.
    const chain = Array.from({ length: 20_000 }, (_, i) => `HL*${i + 1}*${i === 0 ? '' : i}*22*1~`).join('');
    expect(() => scanLimits(chain, DEFAULT_DELIMITERS, { ...roomy, maxDepth: 20_000 })).not.toThrow();
    expect(() => scanLimits(chain, DEFAULT_DELIMITERS, { ...roomy, maxDepth: 19_999 })).toThrow(/x12.hl_depth/);
  });
});

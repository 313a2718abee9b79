import { describe, expect, it } from 'vitest';
import { assertIndependentApprover, planMerge, planSplit, readMergeRequest, readSplitRequest, type ChangeActor } from './merge-split.js';
import type { IdentityRecord } from './registry.js';

const AT = '2026-06-12T12:00:00.000Z';

function rec(gpid: string, overrides: Partial<IdentityRecord> = {}): IdentityRecord {
  return {
    gpid,
    entityType: 'patient',
    status: 'SHADOW',
    fields: { full_name: [`fp-${gpid}`], dob: ['fp-dob'] },
    blockingKeys: [`key-${gpid}`, 'key-shared'],
    sources: ['pulse'],
    links: [],
    mergedInto: null,
    createdAt: AT,
    updatedAt: AT,
    version: 1,
    ...overrides,
  };
}

const actor = (overrides: Partial<ChangeActor>): ChangeActor => ({ kind: 'partner', partnerGpid: 'CMS-00000001', credentialId: 'tok_a', operator: false, ...overrides });

describe('merge and split requests', () => {
  it('validates a merge request field by field', () => {
    expect(readMergeRequest({ survivorGpid: 'SVC-0000000A', mergedGpids: ['SVC-0000000B'], reason: 'manual_review', note: ' why ' })).toEqual({
      survivorGpid: 'SVC-0000000A',
      mergedGpids: ['SVC-0000000B'],
      reason: 'manual_review',
      note: 'why',
    });
    expect(() => readMergeRequest({ survivorGpid: 'SVC-0000000A', mergedGpids: ['SVC-0000000A', 'SVC-0000000B', 'SVC-0000000B', 'x'], reason: 'hunch' })).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_ERROR',
        fieldErrors: [
          { field: 'merged_gpids.0', message: expect.stringContaining('itself') },
          { field: 'merged_gpids.2', message: 'is listed twice' },
          { field: 'merged_gpids.3', message: expect.stringContaining('GPID') },
          { field: 'reason', message: expect.stringContaining('deterministic_exact') },
        ],
      }),
    );
    expect(() => readSplitRequest({ gpid: 'SVC-0000000A', reason: 'manual_review' })).toThrow(expect.objectContaining({ fieldErrors: [{ field: 'reason', message: expect.stringContaining('legal_request') }] }));
    expect(readSplitRequest({ gpid: 'PLS-ORG-4', reason: 'legal_request' })).toEqual({ gpid: 'PLS-ORG-4', reason: 'legal_request', note: null });
  });
});

describe('the two-person rule', () => {
  it('needs another credential, and another partner unless the approver is an operator', () => {
    expect(() => assertIndependentApprover(actor({}), actor({}))).toThrow(expect.objectContaining({ code: 'FORBIDDEN', details: { reason: 'same_credential' } }));
    expect(() => assertIndependentApprover(actor({}), actor({ credentialId: 'tok_b' }))).toThrow(expect.objectContaining({ details: { reason: 'same_partner' } }));
    expect(() => assertIndependentApprover(actor({}), actor({ credentialId: 'tok_b', operator: true }))).not.toThrow();
    expect(() => assertIndependentApprover(actor({}), actor({ credentialId: 'cli_x', partnerGpid: 'CMS-00000002' }))).not.toThrow();
    expect(() => assertIndependentApprover(actor({ credentialId: null }), actor({ credentialId: 'tok_b', operator: true }))).toThrow(expect.objectContaining({ details: { reason: 'unidentified_credential' } }));
  });
});

describe('planning a merge and its split', () => {
  it('folds duplicates into the survivor and takes exactly their contribution out again', () => {
    const survivor = rec('SVC-0000000A', { sources: ['pulse'], links: ['SVC-0000000B'] });
    const duplicate = rec('SVC-0000000B', { status: 'PROVISIONAL', sources: ['lake'], links: ['SVC-0000000A', 'SVC-0000000C'], fields: { full_name: ['fp-b'], dob: ['fp-dob'], email: ['fp-mail'] } });
    const plan = planMerge(survivor, [duplicate], { at: AT, sources: ['cms'] });
    expect(plan.survivor).toMatchObject({ status: 'ACTIVE', version: 2, sources: ['pulse', 'lake', 'cms'], links: ['SVC-0000000C'] });
    expect(plan.survivor.fields).toEqual({ full_name: ['fp-SVC-0000000A', 'fp-b'], dob: ['fp-dob'], email: ['fp-mail'] });
    expect(plan.survivor.blockingKeys).toEqual(['key-SVC-0000000A', 'key-shared', 'key-SVC-0000000B']);
    expect(plan.merged[0]).toMatchObject({ status: 'MERGED', mergedInto: 'SVC-0000000A', version: 2 });
    expect(plan.contributions.get('SVC-0000000B')).toEqual({ fields: { full_name: ['fp-b'], email: ['fp-mail'] }, blockingKeys: ['key-SVC-0000000B'], sources: ['lake'] });
    expect(plan.change.transitions.map((t) => `${t.gpid}:${t.from}->${t.to}`)).toEqual(['SVC-0000000A:SHADOW->ACTIVE', 'SVC-0000000B:PROVISIONAL->MERGED']);
    expect(plan.change.updates.map((u) => u.expectedVersion)).toEqual([1, 1]);

    const split = planSplit(plan.merged[0]!, plan.survivor, plan.contributions.get('SVC-0000000B')!, { at: AT, sources: ['tefca'] });
    expect(split.restored).toMatchObject({ status: 'SPLIT', mergedInto: null, fields: duplicate.fields, blockingKeys: duplicate.blockingKeys });
    expect(split.survivor.fields).toEqual(survivor.fields);
    expect(split.survivor.blockingKeys).toEqual(survivor.blockingKeys);
    expect(split.survivor.sources).toEqual(['pulse', 'cms', 'tefca']);
  });

  it('refuses merges and splits the state machine or the types do not allow', () => {
    const a = rec('SVC-0000000A');
    expect(() => planMerge(a, [rec('SVC-0000000B', { status: 'MERGED', mergedInto: 'SVC-0000000C' })], { at: AT, sources: [] })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => planMerge(rec('SVC-0000000A', { status: 'MERGED', mergedInto: 'X' }), [rec('SVC-0000000B')], { at: AT, sources: [] })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => planMerge(a, [rec('PLS-ORG-1', { entityType: 'organization' })], { at: AT, sources: [] })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    expect(() => planMerge(a, [a], { at: AT, sources: [] })).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
    expect(() => planSplit(a, undefined, null, { at: AT, sources: [] })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
    const merged = rec('SVC-0000000B', { status: 'MERGED', mergedInto: 'SVC-0000000A' });
    expect(() => planSplit(merged, rec('SVC-0000000A', { status: 'MERGED', mergedInto: 'SVC-0000000D' }), null, { at: AT, sources: [] })).toThrow(expect.objectContaining({ code: 'CONFLICT' }));
  });
});

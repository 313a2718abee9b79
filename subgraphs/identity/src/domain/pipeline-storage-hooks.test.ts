import { describe, expect, it } from 'vitest';
import { InMemoryIdentityRegistry } from './registry.js';
import { ROBERT, testPipeline } from './test-support.js';

describe('identity pipeline: storage hooks', () => {
  it('serializes concurrent resolves of one person through the registry (one record)', async () => {
    const { pipeline, registry } = testPipeline();
    const results = await Promise.all(Array.from({ length: 6 }, (_, i) => pipeline.resolve(ROBERT, { source: i % 2 ? 'pulse' : 'lake' })));
    expect(new Set(results.map((r) => r.gpid)).size).toBe(1);
    expect(registry.size).toBe(1);
  });

  it('hands storage its decision: subject GPID, actor and source', async () => {
    const { pipeline, registry } = testPipeline();
    const first = await pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-04' }, { source: 'pulse', actor: 'CMS-00000042' });
    const linked = await pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-14' }, { source: 'lake' });
    await pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-04' }, { source: 'lake' });
    expect(registry.resolutions.map((r) => [r.decision, r.subjectGpid, r.actor, r.source])).toEqual([
      ['NEW_SHADOW', null, 'CMS-00000042', 'pulse'],
      ['NEW_PROVISIONAL', first.gpid, null, 'lake'],
      ['EXISTING', first.gpid, null, 'lake'],
    ]);
    expect(linked.subjectGpid).toBe(first.gpid);
  });

  it('keeps entity types apart and numbers system GPIDs by the origin product', async () => {
    const registry = new InMemoryIdentityRegistry();
    const { pipeline } = testPipeline({ registry });
    const org = await pipeline.resolve({ name: 'Mercy General Hospital', phone: '212-555-0100' }, { source: 'pulse', entityType: 'organization' });
    expect(org).toMatchObject({ gpid: 'PLS-ORG-1', entityType: 'organization', status: 'SHADOW' });
    expect((await pipeline.resolve({ name: 'Mercy General Hospital', phone: '212-555-0100' }, { source: 'lake', entityType: 'organization' })).gpid).toBe('PLS-ORG-1');
    expect((await pipeline.resolve({ name: 'Mercy General Hospital', phone: '212-555-0100' }, { source: 'lake' })).gpid).toMatch(/^SVC-/);
    expect((await pipeline.resolve({ name: 'Harbor Lab', phone: '212-555-0133' }, { source: 'lake', entityType: 'lab' })).gpid).toBe('LAKE-LAB-1');
    expect((await pipeline.match({ name: 'Mercy General Hospital', phone: '212-555-0100' }, { entityType: 'organization' })).candidates.map((c) => c.gpid)).toEqual(['PLS-ORG-1']);
    await expect(pipeline.match({ name: 'X' }, { entityType: 'starship' })).rejects.toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'entity_type' }] });
  });
});

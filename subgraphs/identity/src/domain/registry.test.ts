import { describe, expect, it } from 'vitest';
import { InMemoryIdentityRegistry, isRetryableRegistryConflict, type IdentityRecord } from './registry.js';

function record(gpid: string, keys: string[], extra: Partial<IdentityRecord> = {}): IdentityRecord {
  return {
    gpid,
    entityType: 'patient',
    status: 'SHADOW',
    fields: {},
    blockingKeys: keys,
    sources: ['pulse'],
    links: [],
    mergedInto: null,
    createdAt: '2026-06-12T00:00:00.000Z',
    updatedAt: '2026-06-12T00:00:00.000Z',
    version: 1,
    ...extra,
  };
}

describe('InMemoryIdentityRegistry', () => {
  it('finds records by blocking key, most shared keys first, within the limit', async () => {
    const r = new InMemoryIdentityRegistry();
    await r.commit({ inserts: [record('SVC-1', ['a', 'b']), record('SVC-2', ['a', 'b', 'c']), record('SVC-3', ['z'])], updates: [], transitions: [] });
    expect((await r.findByBlockingKeys(['a', 'b', 'c'], 10)).map((c) => [c.record.gpid, c.keyHits])).toEqual([
      ['SVC-2', 3],
      ['SVC-1', 2],
    ]);
    expect(await r.findByBlockingKeys(['a'], 1)).toHaveLength(1);
    expect(await r.findByBlockingKeys(['nope'], 10)).toEqual([]);
  });

  it('re-indexes on update and refuses stale versions atomically', async () => {
    const r = new InMemoryIdentityRegistry();
    await r.commit({ inserts: [record('SVC-1', ['a'])], updates: [], transitions: [] });
    await r.commit({ inserts: [], updates: [{ record: record('SVC-1', ['b'], { version: 2 }), expectedVersion: 1 }], transitions: [] });
    expect(await r.findByBlockingKeys(['a'], 10)).toEqual([]);
    expect((await r.findByBlockingKeys(['b'], 10))[0]?.record.version).toBe(2);

    const stale = r.commit({
      inserts: [record('SVC-9', ['x'])],
      updates: [{ record: record('SVC-1', ['c'], { version: 3 }), expectedVersion: 1 }],
      transitions: [],
    });
    await expect(stale).rejects.toMatchObject({ code: 'CONFLICT', details: { reason: 'stale_version' } });
    await stale.catch((e: unknown) => expect(isRetryableRegistryConflict(e)).toBe(true));
    expect(await r.get('SVC-9')).toBeUndefined();
  });

  it('refuses a GPID twice', async () => {
    const r = new InMemoryIdentityRegistry();
    await r.commit({ inserts: [record('SVC-1', [])], updates: [], transitions: [] });
    await expect(r.commit({ inserts: [record('SVC-1', [])], updates: [], transitions: [] })).rejects.toMatchObject({ details: { reason: 'gpid_taken' } });
  });

  it('stores frozen copies', async () => {
    const r = new InMemoryIdentityRegistry();
    const keys = ['a'];
    await r.commit({ inserts: [record('SVC-1', keys)], updates: [], transitions: [] });
    keys.push('b');
    const stored = (await r.get('SVC-1'))!;
    expect(stored.blockingKeys).toEqual(['a']);
    expect(Object.isFrozen(stored)).toBe(true);
  });
});

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, openDatabase, type Orm } from '@svc/platform';
import { migrations } from '../subgraphs/identity/src/migrations/index.js';
import { SqlIdentityRegistry } from '../subgraphs/identity/src/entities/sql-registry.js';
import { Sql } from '../subgraphs/identity/src/entities/sql.js';
import { createIdentityPipeline, KeyedMutex, type IdentityRecord } from '../subgraphs/identity/src/domain/index.js';
import { assertFingerprintKey } from '../subgraphs/identity/src/entities/key-checks.js';
import { FINGERPRINT_KEY_FILE, loadFingerprintKeyRing } from '../subgraphs/identity/src/fingerprint-key.js';
import { freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';

/**
 * The IdentityRegistry port on the real database (SQLite, or PostgreSQL in the PostgreSQL pass):
 * its contract, and on PostgreSQL the cross-replica serialization of resolves.
 */
describe('identity registry storage (SqlIdentityRegistry)', () => {
  let storage: TestStorage;
  let orm: Orm;
  let second: Orm | undefined;
  const keyRing = { current: 'k1', keys: [{ version: 'k1', secret: 'storage-test-key-0123456789abcdef0123456789' }] };

  beforeAll(async () => {
    storage = await freshStorage();
    const config = loadConfig({ ...storage.env, SVC_LOG_LEVEL: 'silent' });
    orm = await openDatabase({ config, owner: 'identity', entities: [], migrations });
    if (USE_POSTGRES) second = await openDatabase({ config, owner: 'identity', entities: [], migrations });
  });
  afterAll(async () => {
    await second?.close();
    await orm?.close();
    await storage?.dispose();
  });

  const record = (gpid: string, keys: string[], overrides: Partial<IdentityRecord> = {}): IdentityRecord => ({
    gpid,
    entityType: 'patient',
    status: 'SHADOW',
    fields: { full_name: [`k1:${gpid}`] },
    blockingKeys: keys,
    sources: ['pulse'],
    links: [],
    mergedInto: null,
    createdAt: '2026-06-12T12:00:00.000Z',
    updatedAt: '2026-06-12T12:00:00.000Z',
    version: 1,
    ...overrides,
  });

  it('finds records by blocking key, most shared keys first, and round-trips them', async () => {
    const registry = new SqlIdentityRegistry(Sql.of(orm));
    await registry.commit({ inserts: [record('SVC-000000A1', ['a', 'b', 'c']), record('SVC-000000A2', ['b', 'x'])], updates: [], transitions: [] });
    const found = await registry.findByBlockingKeys(['a', 'b', 'c', 'zzz'], 10);
    expect(found.map((c) => [c.record.gpid, c.keyHits])).toEqual([
      ['SVC-000000A1', 3],
      ['SVC-000000A2', 1],
    ]);
    expect(found[0]!.record).toEqual(record('SVC-000000A1', ['a', 'b', 'c']));
    expect(await registry.findByBlockingKeys(['b'], 1)).toHaveLength(1);
    expect(await registry.get('SVC-000000A2')).toEqual(record('SVC-000000A2', ['b', 'x']));
    expect(await registry.get('SVC-0000FFFF')).toBeUndefined();
  });

  it('answers several probes at once exactly as one lookup per probe (order, hits, limit, ties)', async () => {
    const registry = new SqlIdentityRegistry(Sql.of(orm));
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `m-${i}`);
    // Ten records sharing more or fewer keys, ties broken by GPID; a key with a quote and a backslash.
    const inserts = Array.from({ length: 10 }, (_, i) => record(`SVC-00000C${i.toString(16).toUpperCase().padStart(2, '0')}`, [...keys(1 + (i % 4)), ...(i === 3 ? ['q"\\k'] : [])]));
    await registry.commit({ inserts, updates: [], transitions: [] });
    const probes = [keys(4), ['m-2', 'm-3'], ['q"\\k', 'm-0'], [], ['nothing-here'], keys(2)];
    const many = await registry.findByBlockingKeysMany(probes, 3);
    const one = [];
    for (const probe of probes) one.push(await registry.findByBlockingKeys(probe, 3));
    expect(many).toEqual(one);
    expect(many[0]!.map((c) => c.keyHits)).toEqual([4, 4, 3]);
    expect(many[2]![0]!.record.gpid).toBe('SVC-00000C03');
  });

  it('refuses stale versions and reused GPIDs, writing nothing', async () => {
    const registry = new SqlIdentityRegistry(Sql.of(orm));
    await registry.commit({ inserts: [record('SVC-000000B1', ['k-b1'])], updates: [], transitions: [] });
    const stale = registry.commit({ inserts: [record('SVC-000000B2', ['k-b2'])], updates: [{ record: record('SVC-000000B1', ['k-b1'], { version: 2 }), expectedVersion: 7 }], transitions: [] });
    await expect(stale).rejects.toMatchObject({ code: 'CONFLICT', details: { reason: 'stale_version' } });
    expect(await registry.get('SVC-000000B2')).toBeUndefined();
    await expect(registry.commit({ inserts: [record('SVC-000000B1', ['k'])], updates: [], transitions: [] })).rejects.toMatchObject({ details: { reason: 'gpid_taken' } });
  });

  it('rewrites the key index as a diff, and stops indexing MERGED records', async () => {
    const registry = new SqlIdentityRegistry(Sql.of(orm));
    await registry.commit({ inserts: [record('SVC-000000C1', ['c-old', 'c-kept'])], updates: [], transitions: [] });
    await registry.commit({ inserts: [], updates: [{ record: record('SVC-000000C1', ['c-kept', 'c-new'], { version: 2 }), expectedVersion: 1 }], transitions: [] });
    expect(await registry.findByBlockingKeys(['c-old'], 10)).toEqual([]);
    expect((await registry.findByBlockingKeys(['c-new', 'c-kept'], 10))[0]).toMatchObject({ keyHits: 2 });
    await registry.commit({ inserts: [], updates: [{ record: record('SVC-000000C1', ['c-kept', 'c-new'], { version: 3, status: 'MERGED', mergedInto: 'SVC-000000A1' }), expectedVersion: 2 }], transitions: [] });
    expect(await registry.findByBlockingKeys(['c-new', 'c-kept'], 10)).toEqual([]);
    expect((await registry.get('SVC-000000C1'))?.blockingKeys).toEqual(['c-kept', 'c-new']);
  });

  it('numbers system GPIDs per product and type', async () => {
    const registry = new SqlIdentityRegistry(Sql.of(orm));
    expect([await registry.nextSequence('PLS', 'organization'), await registry.nextSequence('PLS', 'organization'), await registry.nextSequence('LAKE', 'organization')]).toEqual([1, 2, 1]);
  });

  it('keeps a generated fingerprint key in the data directory (0600), reused on the next start', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-key-'));
    try {
      const first = loadFingerprintKeyRing({ dataDir, fingerprintKey: { version: 'k1', secret: undefined } });
      const again = loadFingerprintKeyRing({ dataDir, fingerprintKey: { version: 'k1', secret: undefined } });
      expect(again).toEqual(first);
      expect(String(first.keys[0]!.secret).length).toBeGreaterThanOrEqual(32);
      expect(statSync(join(dataDir, FINGERPRINT_KEY_FILE)).mode & 0o777).toBe(0o600);
      // A configured key wins over the file.
      expect(loadFingerprintKeyRing({ dataDir, fingerprintKey: { version: 'k2', secret: 'x'.repeat(40) } })).toEqual({ current: 'k2', keys: [{ version: 'k2', secret: 'x'.repeat(40) }] });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('refuses to run with another key than the one the registry was written with', async () => {
    const sql = Sql.of(orm);
    await assertFingerprintKey(sql, 'k9', 'the-original-key-0123456789abcdef0123');
    await assertFingerprintKey(sql, 'k9', 'the-original-key-0123456789abcdef0123');
    await expect(assertFingerprintKey(sql, 'k9', 'a-different-key-0123456789abcdef01234')).rejects.toThrow(/SVC_FINGERPRINT_KEY/);
  });

  it.runIf(USE_POSTGRES)('serializes resolves of one person across replicas (advisory locks, no shared process memory)', async () => {
    // Two "replicas": separate connection pools and separate in-process mutexes, one database.
    const pipelines = [orm, second!].map((o) =>
      createIdentityPipeline({ registry: new SqlIdentityRegistry(Sql.of(o), { locks: new KeyedMutex() }), keyRing, newGpid: () => `SVC-${Math.floor(Math.random() * 0xffffffff).toString(16).toUpperCase().padStart(8, '0')}` }),
    );
    const person = { name: 'Perpetua Oyelowo-Grant', dob: '1988-08-08', email: 'perpetua@example.com' };
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => pipelines[i % 2]!.resolve(person, { source: i % 2 === 0 ? 'pulse' : 'lake' })));
    expect(new Set(results.map((r) => r.gpid)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
  });
});

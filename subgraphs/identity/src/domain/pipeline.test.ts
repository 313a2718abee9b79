import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { InMemoryIdentityRegistry, registryConflict, type RegistryChange } from './registry.js';
import { KEY_1, KEY_2, ROBERT, sequentialGpids, testPipeline } from './test-support.js';

describe('identity pipeline: match finds the candidate through the registry', () => {
  async function seeded() {
    const t = testPipeline();
    const created = await t.pipeline.resolve(ROBERT, { source: 'pulse' });
    // A look-alike in the same registry, to show that the right record wins.
    await t.pipeline.resolve({ name: 'Roberta Smithson', dob: '1979-11-23', phone: '(646) 372-9911' }, { source: 'pulse' });
    return { ...t, gpid: created.gpid };
  }

  it.each([
    ['an exact repeat', ROBERT, 'DETERMINISTIC'],
    ['a typo in the family name', { name: 'Robert Smiht', dob: '1980-03-04' }, 'PARTIAL'],
    ['a typo in the given name', { name: 'Rboert Smith', dob: '1980-03-04' }, 'PARTIAL'],
    ['a nickname', { name: 'Bob Smith', dob: '1980-03-04' }, 'PARTIAL'],
    ['a nickname and a typo in the family name', { name: 'Bob Smiht', dob: '1980-03-04' }, 'PARTIAL'],
    ['a changed email', { name: 'Robert Smith', dob: '1980-03-04', email: 'robert.smith@work.example' }, 'PARTIAL'],
    ['an equivalent email and a phone in another format', { name: 'Smith, Robert', dob: 'March 4, 1980', email: 'ROBSMITH+clinic@googlemail.com' }, 'DETERMINISTIC'],
    ['a swapped day and month', { name: 'Robert Smith', dob: '1980-04-03' }, 'PARTIAL'],
    ['a swapped day and month written European style', { name: 'Robert Smith', dob: '03.04.1980', phone: '212 867 5309' }, 'PARTIAL'],
    ['a swapped name order', { name: 'SMITH ROBERT', dob: '19800304' }, 'PARTIAL'],
    ['"Last, First" order with diacritics', { name: 'Smíth, Róbert', dob: '4 Mar 1980', phone: '+1 212-867-5309' }, 'DETERMINISTIC'],
    ['a new family name but the same email', { name: 'Robert Jones', dob: '1980-03-04', email: 'rob.smith@gmail.com' }, 'PARTIAL'],
    ['the email and phone alone', { email: 'robsmith@gmail.com', phone: '2128675309' }, 'PARTIAL'],
  ])('%s', async (_label, query, matchType) => {
    const { pipeline, gpid } = await seeded();
    const result = await pipeline.match(query);
    expect(result.matchType).toBe(matchType);
    expect(result.candidates[0]?.gpid).toBe(gpid);
    expect(result.candidates[0]?.confidence).toBeGreaterThanOrEqual(0.5);
  });

  it('drops an invalid email or phone with a warning and resolves on the rest; strict refuses it', async () => {
    const { pipeline, gpid } = await seeded();
    const lenient = await pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-04', email: 'rob@@nowhere', phone: '12' }, { source: 'lake' });
    expect(lenient).toMatchObject({ gpid, decision: 'EXISTING' });
    expect(lenient.warnings.map((w) => [w.field, w.code])).toEqual([['email', 'INVALID_FIELD_DROPPED'], ['phone', 'INVALID_FIELD_DROPPED']]);
    const strict = pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-04', email: 'rob@@nowhere' }, { source: 'lake', strict: true });
    await expect(strict).rejects.toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'email', message: 'is not an email address' }] });
    const matched = await pipeline.match({ name: 'Robert Smith', dob: '1980-03-04', phone: 'n/a' });
    expect(matched.candidates[0]?.gpid).toBe(gpid);
    expect(matched.warnings).toEqual([{ field: 'phone', code: 'INVALID_FIELD_DROPPED', message: 'is not a valid phone number; the field was ignored' }]);
  });

  it('matches an internationalized address in its U-label and A-label forms alike', async () => {
    const t = testPipeline();
    const created = await t.pipeline.resolve({ name: 'Søren Lund', email: 'søren.40@exämple.dk' }, { source: 'pulse' });
    const again = await t.pipeline.resolve({ name: 'Soren Lund', email: 'SØREN.40@xn--exmple-cua.dk' }, { source: 'lake' });
    expect(again).toMatchObject({ gpid: created.gpid, decision: 'EXISTING', warnings: [] });
  });

  it('lists a weak candidate as NONE: an email alone may be a shared family inbox', async () => {
    const { pipeline, gpid } = await seeded();
    const result = await pipeline.match({ email: 'robsmith@gmail.com' });
    expect(result.matchType).toBe('NONE');
    expect(result.candidates[0]?.gpid).toBe(gpid);
    expect(result.candidates[0]?.confidence).toBeGreaterThan(0.05);
    expect(result.candidates[0]?.confidence).toBeLessThan(0.5);
  });

  it('answers NONE for somebody else', async () => {
    const { pipeline } = await seeded();
    const result = await pipeline.match({ name: 'Alice Jones', dob: '1991-07-22', email: 'alice@example.com' });
    expect(result).toEqual({ matchType: 'NONE', candidates: [], warnings: [] });
  });

  it('is query only', async () => {
    const { pipeline, registry } = await seeded();
    const before = JSON.stringify([...registry.all()]);
    await pipeline.match(ROBERT);
    await pipeline.match({ name: 'Nobody Known', dob: '2001-01-01' });
    expect(JSON.stringify([...registry.all()])).toBe(before);
  });

  it('validates input with field errors', async () => {
    const { pipeline } = await seeded();
    await expect(pipeline.match({ dob: '1980-02-30' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      fieldErrors: [{ field: 'dob', message: 'is not a real calendar date' }],
    });
    await expect(pipeline.match({})).rejects.toBeInstanceOf(DomainError);
  });
});

describe('identity pipeline: resolve', () => {
  it('creates a SHADOW record, then returns it, then ACTIVE on a second source', async () => {
    const { pipeline, registry } = testPipeline();
    const first = await pipeline.resolve(ROBERT, { source: 'pulse' });
    expect(first).toMatchObject({ gpid: 'SVC-00000001', status: 'SHADOW', created: true, decision: 'NEW_SHADOW', matchType: 'NONE' });
    expect(first.transitions).toEqual([{ gpid: 'SVC-00000001', from: null, to: 'SHADOW', trigger: 'created', source: 'pulse' }]);

    const again = await pipeline.resolve({ ...ROBERT, name: 'Smith, Robert' }, { source: 'pulse' });
    expect(again).toMatchObject({ gpid: 'SVC-00000001', status: 'SHADOW', created: false, decision: 'EXISTING', matchType: 'DETERMINISTIC' });
    expect(again.transitions).toEqual([]);

    const second = await pipeline.resolve({ name: 'Bob Smith', dob: '03/04/1980', phone: '212.867.5309' }, { source: 'provider' });
    expect(second).toMatchObject({ gpid: 'SVC-00000001', status: 'ACTIVE', created: false, decision: 'EXISTING', matchType: 'PARTIAL' });
    expect(second.sources).toEqual(['pulse', 'provider']);
    expect(second.transitions).toEqual([{ gpid: 'SVC-00000001', from: 'SHADOW', to: 'ACTIVE', trigger: 'dual_verification', source: 'provider' }]);
    expect(registry.size).toBe(1);
    expect((await registry.get('SVC-00000001'))?.version).toBe(3);
  });

  it('learns new identifiers on a strong link', async () => {
    const { pipeline } = testPipeline();
    await pipeline.resolve(ROBERT, { source: 'pulse' });
    await pipeline.resolve({ ...ROBERT, phone: '415-863-2101' }, { source: 'lake' });
    const byNewPhone = await pipeline.match({ name: 'Robert Smith', dob: '1980-03-04', phone: '(415) 863-2101' });
    expect(byNewPhone.matchType).toBe('DETERMINISTIC');
  });

  it('creates a PROVISIONAL record linked to a partial candidate', async () => {
    const { pipeline, registry } = testPipeline();
    const first = await pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-04' }, { source: 'pulse' });
    const r = await pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-14' }, { source: 'lake' });
    expect(r).toMatchObject({ status: 'PROVISIONAL', created: true, decision: 'NEW_PROVISIONAL', links: [first.gpid] });
    expect(r.candidates.map((c) => c.gpid)).toEqual([first.gpid]);
    expect((await registry.get(first.gpid))?.links).toEqual([r.gpid]);
  });

  it('flags CONFLICT when two records match strongly', async () => {
    const registry = new InMemoryIdentityRegistry();
    // Two records of one person: the second was written by a writer that never links.
    const a = testPipeline({ registry, newGpid: () => 'SVC-0000000A' });
    const neverLinks = testPipeline({ registry, newGpid: () => 'SVC-0000000B', thresholds: { partial: 1.1, autoLink: 1.1, review: 1.1 } });
    await a.pipeline.resolve({ name: 'Robert Smith', dob: '1980-03-04', phone: '212-867-5309' }, { source: 'pulse' });
    await neverLinks.pipeline.resolve({ name: 'Smith, Robert', dob: '03/04/1980', email: 'bob@example.com' }, { source: 'lake' });
    expect((await registry.get('SVC-0000000B'))?.status).toBe('SHADOW');

    const c = testPipeline({ registry, newGpid: () => 'SVC-0000000C' });
    const r = await c.pipeline.resolve({ name: 'Bob Smith', dob: '1980-03-04', phone: '212-867-5309', email: 'bob@example.com' }, { source: 'cms' });
    expect(r).toMatchObject({ gpid: 'SVC-0000000C', status: 'CONFLICT', created: true, decision: 'NEW_CONFLICT' });
    expect([...r.links].sort()).toEqual(['SVC-0000000A', 'SVC-0000000B']);
    expect(r.candidates).toHaveLength(2);
    for (const gpid of ['SVC-0000000A', 'SVC-0000000B']) {
      const flagged = await registry.get(gpid);
      expect(flagged?.status).toBe('CONFLICT');
      expect(flagged?.links).toContain('SVC-0000000C');
    }
    expect(r.transitions.map((t) => `${t.gpid}:${t.from}->${t.to}:${t.trigger}`).sort()).toEqual([
      'SVC-0000000A:SHADOW->CONFLICT:duplicate_detected',
      'SVC-0000000B:SHADOW->CONFLICT:duplicate_detected',
      'SVC-0000000C:null->CONFLICT:created',
    ]);
    expect(registry.transitions.slice(-3)).toEqual(r.transitions);

    // Match shows the tie instead of a confident answer.
    const m = await c.pipeline.match({ name: 'Robert Smith', dob: '1980-03-04', email: 'bob@example.com', phone: '2128675309' });
    expect(m.candidates.length).toBeGreaterThanOrEqual(2);
    expect(m.candidates[0]!.confidence).toBeLessThan(0.9);
  });

  it('needs a valid source origin and a name', async () => {
    const { pipeline } = testPipeline();
    await expect(pipeline.resolve(ROBERT, { source: undefined })).rejects.toMatchObject({ code: 'MISSING_SOURCE_HEADER' });
    await expect(pipeline.resolve(ROBERT, { source: 'hospital' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
      fieldErrors: [{ field: 'source', message: expect.stringContaining('pulse') }],
    });
    await expect(pipeline.resolve({ email: 'a@example.com' }, { source: 'pulse' })).rejects.toMatchObject({
      fieldErrors: [{ field: 'name', message: 'is required to resolve an identity unless an identifier, or the date of birth with an email, phone or address, is given' }],
    });
  });

  it('keeps only fingerprints in the registry', async () => {
    const { pipeline, registry } = testPipeline();
    await pipeline.resolve(ROBERT, { source: 'pulse' });
    const stored = JSON.stringify([...registry.all()]);
    for (const clear of ['robert', 'smith', '1980', '8675309', 'gmail']) expect(stored.toLowerCase()).not.toContain(`"${clear}`);
    const record = [...registry.all()][0]!;
    for (const v of [...Object.values(record.fields).flat(), ...record.blockingKeys]) expect(v).toMatch(/^k1:[A-Za-z0-9_-]{22}$/);
  });

  it('retries when the registry reports a concurrent write', async () => {
    const inner = new InMemoryIdentityRegistry();
    let failures = 1;
    const flaky = {
      findByBlockingKeys: inner.findByBlockingKeys.bind(inner),
      get: inner.get.bind(inner),
      async commit(change: RegistryChange) {
        if (failures-- > 0) throw registryConflict('gpid_taken', change.inserts[0]?.gpid ?? '?');
        return inner.commit(change);
      },
    };
    const { pipeline } = testPipeline({ registry: flaky as unknown as InMemoryIdentityRegistry, newGpid: sequentialGpids() });
    const r = await pipeline.resolve(ROBERT, { source: 'pulse' });
    expect(r.gpid).toBe('SVC-00000002');
    expect(inner.size).toBe(1);
  });
});

describe('identity pipeline: key rotation', () => {
  it('finds records written under the previous key and re-keys them when resolved', async () => {
    const registry = new InMemoryIdentityRegistry();
    const old = testPipeline({ registry, keyRing: { current: 'k1', keys: [KEY_1] } });
    const { gpid } = await old.pipeline.resolve(ROBERT, { source: 'pulse' });

    const rotated = testPipeline({ registry, keyRing: { current: 'k2', keys: [KEY_1, KEY_2] } });
    expect((await rotated.pipeline.match({ name: 'Bob Smith', dob: '1980-03-04' })).candidates[0]?.gpid).toBe(gpid);
    const r = await rotated.pipeline.resolve(ROBERT, { source: 'provider' });
    expect(r).toMatchObject({ gpid, decision: 'EXISTING', matchType: 'DETERMINISTIC', status: 'ACTIVE' });

    // Once re-keyed, the record is found with the new key alone.
    const newOnly = testPipeline({ registry, keyRing: { current: 'k2', keys: [KEY_2] } });
    expect((await newOnly.pipeline.match(ROBERT)).candidates[0]).toMatchObject({ gpid, matchType: 'DETERMINISTIC' });
    // A ring without the old key no longer sees records that were never re-keyed.
    const other = await old.pipeline.resolve({ name: 'Alice Jones', dob: '1991-07-22' }, { source: 'pulse' });
    expect((await newOnly.pipeline.match({ name: 'Alice Jones', dob: '1991-07-22' })).candidates.map((c) => c.gpid)).not.toContain(other.gpid);
  });
});

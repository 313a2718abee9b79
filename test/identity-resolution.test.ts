import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { eventsOf, eventually, identityClient, mintToken, openIdentityDb, registerPartner, type IdentityDb } from './support/identity.js';

/** Identity match and resolve end to end: REST facade → gateway → identity subgraph → its database. */
describe('identity resolution through the REST facade and GraphQL', () => {
  let t: TestSystem;
  let db: IdentityDb;
  let id: ReturnType<typeof identityClient>;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    db = await openIdentityDb(t);
    id = identityClient(t);
  });
  afterAll(async () => {
    await db?.close();
    await t?.close();
  });

  const count = async (table: string) => Number((await db.all(`select count(*) as n from ${table}`))[0]!['n']);
  /** One count after another: the PostgreSQL helper is one client, which runs one query at a time. */
  const countAll = async (tables: readonly string[]) => {
    const counts: number[] = [];
    for (const table of tables) counts.push(await count(table));
    return counts;
  };

  describe('POST /api/identity/resolve', () => {
    it('creates a SHADOW record, keeps it SHADOW for the same origin, and makes it ACTIVE on a second origin', async () => {
      const person = { name: 'Hildegard Oyelaran', dob: '1961-05-17', email: 'h.oyelaran@example.net', phone: '(312) 555-0148' };
      const first = await id.resolve(person, 'pulse');
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ identity_status: 'SHADOW', created: true, decision: 'NEW_SHADOW', match_type: 'NONE', entity_type: 'patient', subject_gpid: null, sources: ['pulse'] });
      const gpid = first.json().gpid as string;
      expect(gpid).toMatch(/^SVC-[0-9A-F]{8}$/);

      const repeat = await id.resolve({ ...person, name: 'Oyelaran, Hildegard' }, 'pulse');
      expect(repeat.json()).toMatchObject({ gpid, identity_status: 'SHADOW', created: false, decision: 'EXISTING', match_type: 'DETERMINISTIC', subject_gpid: gpid });

      const second = await id.resolve({ name: 'Hildegard Oyelaran', dob: '05/17/1961', phone: '312.555.0148' }, 'provider');
      expect(second.json()).toMatchObject({ gpid, identity_status: 'ACTIVE', created: false, decision: 'EXISTING', sources: ['pulse', 'provider'] });

      const record = (await id.get(gpid)).json();
      expect(record).toMatchObject({ gpid, identity_status: 'ACTIVE', entity_type: 'patient', merged_into: null, survivor_gpid: null, version: 3 });
      expect(record.sources.map((s: { source: string }) => s.source)).toEqual(['pulse', 'provider']);
      expect(record.sources[0]).toMatchObject({ confirmations: 2, first_confirmed_at: expect.stringMatching(/Z$/), last_confirmed_at: expect.stringMatching(/Z$/) });
      expect(record.match_history).toMatchObject({ total: 3 });
      expect(record.match_history.recent.map((h: { decision: string }) => h.decision)).toEqual(['EXISTING', 'EXISTING', 'NEW_SHADOW']);
    });

    it('creates PROVISIONAL for a partial candidate, links the far better of two strong ones, and CONFLICT when two match alike', async () => {
      const a = (await id.resolve({ name: 'Casimir Vandersloot', dob: '1975-09-08', phone: '646-555-0199' }, 'pulse')).json();
      expect(a.identity_status).toBe('SHADOW');
      // Same name, another birth day, another contact: partially like A, so linked for review.
      const b = (await id.resolve({ name: 'Casimir Vandersloot', dob: '1975-09-18', email: 'casimir.v@example.com' }, 'lake')).json();
      expect(b).toMatchObject({ identity_status: 'PROVISIONAL', decision: 'NEW_PROVISIONAL', links: [a.gpid], subject_gpid: a.gpid });
      // Strongly like both, and DETERMINISTIC with A only (far ahead): A, with B proposed as its duplicate.
      const c = (await id.resolve({ name: 'Casimir Vandersloot', dob: '1975-09-08', phone: '646-555-0199', email: 'casimir.v@example.com' }, 'cms')).json();
      expect(c).toMatchObject({ gpid: a.gpid, decision: 'EXISTING', created: false });

      // Two records kept apart by conflicting SSNs, and a resolve DETERMINISTIC with each: duplicate detection flags all three.
      const d = (await id.resolve({ name: 'Wilhelmina Osterhagen', dob: '1962-04-21', phone: '646-555-0142', identifiers: [{ system: 'ssn', value: '219-44-1001' }] }, 'pulse')).json();
      const e = (await id.resolve({ name: 'Wilhelmina Osterhagen', dob: '1962-04-21', email: 'w.osterhagen@example.com', identifiers: [{ system: 'ssn', value: '219-44-7310' }] }, 'lake')).json();
      expect(e).toMatchObject({ decision: 'NEW_PROVISIONAL', links: [d.gpid] });
      const f = (await id.resolve({ name: 'Wilhelmina Osterhagen', dob: '1962-04-21', phone: '646-555-0142', email: 'w.osterhagen@example.com' }, 'cms')).json();
      expect(f).toMatchObject({ identity_status: 'CONFLICT', decision: 'NEW_CONFLICT', created: true });
      expect([...f.links].sort()).toEqual([d.gpid, e.gpid].sort());
      for (const gpid of [d.gpid, e.gpid]) {
        const record = (await id.get(gpid)).json();
        expect(record.identity_status).toBe('CONFLICT');
        expect(record.related_gpids).toContain(f.gpid);
      }
    });

    it.each([
      ['a typo in the family name', { name: 'Theodore Pellegrinx', dob: '1983-11-05', phone: '(415) 555-0123' }],
      ['a nickname', { name: 'Ted Pellegrini', dob: '1983-11-05', email: 'theodore.p@example.org' }],
      ['a changed email', { name: 'Theodore Pellegrini', dob: '1983-11-05', email: 'gus@work.example', phone: '415-555-0123' }],
      ['a day/month swap in the DOB', { name: 'Theodore Pellegrini', dob: '1983-05-11', email: 'theodore.p@example.org' }],
      ['"Last, First" order and another DOB format', { name: 'PELLEGRINI, THEODORE', dob: 'Nov 5, 1983' }],
    ])('resolves %s to the same GPID', async (_label, variant) => {
      const base = await id.resolve({ name: 'Theodore Pellegrini', dob: '1983-11-05', email: 'theodore.p@example.org', phone: '415-555-0123' }, 'pulse');
      const gpid = base.json().gpid;
      const res = await id.resolve(variant, 'beacon');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ gpid, decision: 'EXISTING', created: false });
    });

    it('gives two concurrent resolves of one person one GPID', async () => {
      const person = { name: 'Philippa Raskolnikova', dob: '1992-02-29', email: 'p.raskolnikova@example.com' };
      const before = await count('identity_records');
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => id.resolve(person, i % 2 === 0 ? 'pulse' : 'tefca')));
      expect(answers.map((a) => a.statusCode)).toEqual(Array(8).fill(200));
      const gpids = new Set(answers.map((a) => a.json().gpid));
      expect(gpids.size).toBe(1);
      expect(answers.filter((a) => a.json().created)).toHaveLength(1);
      expect(await count('identity_records')).toBe(before + 1);
      const record = (await id.get([...gpids][0]!)).json();
      expect(record).toMatchObject({ identity_status: 'ACTIVE', match_history: { total: 8 } });
    });

    it('refuses bad input with problem+json', async () => {
      const cases: Array<[Promise<{ statusCode: number; headers: Record<string, unknown>; json(): Record<string, unknown> }>, number, string, string?]> = [
        [id.resolve({ email: 'x@example.com' }), 422, 'VALIDATION_ERROR', 'name'],
        [id.resolve({ name: 'Valid Name', dob: '1980-02-30' }), 422, 'VALIDATION_ERROR', 'dob'],
        [id.resolve({ name: 'Valid Name', dob: 'yesterday-ish' }), 422, 'VALIDATION_ERROR', 'dob'],
        // An invalid phone is dropped with a warning unless strict (test/hardening/09-international-demographics.test.ts).
        [id.resolve({ name: 'Valid Name', phone: '12', strict: true }), 422, 'VALIDATION_ERROR', 'phone'],
        [id.resolve({ name: 'Valid Name', birth_date: '1980-01-01' }), 422, 'VALIDATION_ERROR', 'birth_date'],
        [id.resolve({ name: { first: 'A' } }), 422, 'VALIDATION_ERROR', 'name.first'],
        [id.resolve({ name: 'Valid Name', entity_type: 'spaceship' }), 422, 'VALIDATION_ERROR', 'entity_type'],
        [id.resolve('not json at all'), 415, 'UNSUPPORTED_MEDIA_TYPE'],
        [id.resolve([1, 2]), 422, 'VALIDATION_ERROR', 'body'],
        [id.resolve({ name: 'Valid Name' }, null), 400, 'MISSING_SOURCE_HEADER'],
        [id.resolve({ name: 'Valid Name' }, 'hospital'), 400, 'INVALID_SOURCE_HEADER'],
        [id.resolve({ name: 'Valid Name' }, 'PULSE'), 400, 'INVALID_SOURCE_HEADER'],
      ];
      for (const [pending, status, code, field] of cases) {
        const res = await pending;
        expect(res.statusCode, `${code} ${field ?? ''}`).toBe(status);
        expect(String(res.headers['content-type'])).toMatch(/^application\/problem\+json/);
        const problem = res.json();
        expect(problem).toMatchObject({ status, code, instance: '/api/identity/resolve' });
        if (field) expect((problem['errors'] as { field: string }[]).map((e) => e.field)).toContain(field);
        if (code.endsWith('SOURCE_HEADER')) {
          expect(problem['detail']).toContain('X-Svc-Source');
          expect(problem['header']).toBe('X-Svc-Source');
        }
      }
    });
  });

  describe('POST /api/identity/match', () => {
    it('returns candidates with confidence and never creates or changes a record', async () => {
      const created = (await id.resolve({ name: 'Ottoline Braithwaite', dob: '1955-12-01', email: 'ottoline@example.com' }, 'pulse')).json();
      const tables = ['identity_records', 'identity_blocking_keys', 'identity_sources', 'identity_match_history', 'identity_outbox', 'identity_boundary_observations', 'identity_sequences'];
      const before = await countAll(tables);
      const recordBefore = (await id.get(created.gpid)).json();

      const hit = await id.match({ name: { given: 'Ottoline', family: 'Braithwaite' }, dob: '1955-12-01', email: 'ottoline@example.com' });
      expect(hit.statusCode).toBe(200);
      expect(hit.json()).toEqual({
        match_type: 'DETERMINISTIC',
        candidates: [{ gpid: created.gpid, confidence: expect.any(Number), match_type: 'DETERMINISTIC', identity_status: 'SHADOW', sources: ['pulse'], agreement: expect.objectContaining({ given: 'exact', family: 'exact', dob: 'exact', email: 'exact', model_version: 1 }) }],
        warnings: [],
      });
      expect(hit.json().candidates[0].confidence).toBeGreaterThan(0.99);
      const partial = (await id.match({ name: 'Otto Braithwaite', dob: '1955-12-01' })).json();
      expect(partial.candidates[0]).toMatchObject({ gpid: created.gpid });
      const nobody = await id.match({ name: 'Nobody Inparticular', dob: '2001-01-01' });
      expect(nobody.json()).toEqual({ match_type: 'NONE', candidates: [], warnings: [] });

      expect(await countAll(tables)).toEqual(before);
      expect((await id.get(created.gpid)).json()).toEqual(recordBefore);
    });

    it('refuses bad input and non-service credentials', async () => {
      expect((await id.match({})).json()).toMatchObject({ status: 422, code: 'VALIDATION_ERROR' });
      expect((await id.match({ dob: '13/45/1990' })).json()).toMatchObject({ status: 422, errors: [{ field: 'dob' }] });
      // The Service class: a partner API token is refused even with the scope.
      const partner = await registerPartner(t, 'Identity Probe Clinic');
      const partnerToken = await mintToken(t, ['identity.match', 'identity.resolve', 'identity.read'], partner);
      const refused = await id.match({ name: 'Any One', dob: '1990-01-01' }, partnerToken);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN' });
      expect((await id.resolve({ name: 'Any One' }, 'pulse', partnerToken)).statusCode).toBe(403);
      // The same token may read records (Bearer class), but only those its partner has a link to:
      // one the operator resolved looks missing (test/hardening/05-tenant-isolation.test.ts).
      const someone = (await id.resolve({ name: 'Readable Person', dob: '1970-07-07' }, 'pulse')).json();
      expect((await id.get(someone.gpid, partnerToken)).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect((await id.get('SVC-00000000', partnerToken)).json()).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      expect((await id.get('not-a-gpid', partnerToken)).json()).toMatchObject({ status: 422, errors: [{ field: 'gpid' }] });
      // And a token without identity.read may not.
      const noRead = await mintToken(t, ['cms.partner.read'], partner);
      expect((await id.get(someone.gpid, noRead)).json()).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    });
  });

  it('stores no raw demographics anywhere in the identity database', async () => {
    const person = { name: 'Zebediah Quattlebaum', dob: '1957-08-19', email: 'zebediah.quattlebaum@example.org', phone: '917-362-4471' };
    const r = (await id.resolve(person, 'pulse')).json();
    await id.resolve({ ...person, name: 'Quattlebaum, Zeb' }, 'lake');
    await id.match(person);
    const tables = (await db.all(db.postgres ? "select tablename as name from pg_tables where schemaname = 'public' and tablename like 'identity%'" : "select name from sqlite_master where type = 'table' and name like 'identity%'")).map((row) => String(row['name']));
    expect(tables).toEqual(expect.arrayContaining(['identity_records', 'identity_blocking_keys', 'identity_match_history', 'identity_outbox', 'identity_sources']));
    let dump = '';
    for (const table of tables) dump += JSON.stringify(await db.all(`select * from ${table}`));
    expect(dump).toContain(r.gpid);
    for (const clear of ['zebediah', 'quattlebaum', '19570819', '1957-08-19', 'example.org', '3624471', '9173624471']) {
      expect(dump.toLowerCase()).not.toContain(clear);
    }
  });

  describe('entity types and system GPIDs', () => {
    it('gives non-patient entities {PRD}-{TYPE}-{N} GPIDs, per product and type, kept apart from patients', async () => {
      const mercy = { name: 'Mercy General Hospital', phone: '(212) 555-0100', entity_type: 'organization' };
      const first = (await id.resolve(mercy, 'pulse')).json();
      expect(first).toMatchObject({ gpid: 'PLS-ORG-1', entity_type: 'organization', identity_status: 'SHADOW', created: true });
      expect((await id.resolve({ name: 'Lakeside Clinic', phone: '212-555-0177', entity_type: 'organization' }, 'pulse')).json().gpid).toBe('PLS-ORG-2');
      expect((await id.resolve({ name: 'Harbor Labs', phone: '212-555-0133', entity_type: 'lab' }, 'lake')).json().gpid).toBe('LAKE-LAB-1');
      expect((await id.resolve({ name: 'Dr Nadia Petrov', dob: '1971-03-03', entity_type: 'practitioner' }, 'tefca')).json().gpid).toBe('TEFCA-PRA-1');
      // The same organization from another origin: the existing system GPID, now ACTIVE.
      expect((await id.resolve(mercy, 'lake')).json()).toMatchObject({ gpid: 'PLS-ORG-1', decision: 'EXISTING', identity_status: 'ACTIVE' });
      // A patient search never meets an organization.
      expect((await id.match({ name: 'Mercy General Hospital', phone: '(212) 555-0100' })).json().candidates).toEqual([]);
      expect((await id.match(mercy)).json().candidates[0]).toMatchObject({ gpid: 'PLS-ORG-1' });
      expect((await id.get('PLS-ORG-1')).json()).toMatchObject({ gpid: 'PLS-ORG-1', entity_type: 'organization', identity_status: 'ACTIVE' });

      const types = await t.graphql<{ identityEntityTypes: { id: string; code: string }[] }>('{ identityEntityTypes { id code } }');
      expect(types.data!.identityEntityTypes).toHaveLength(22);
      expect(types.data!.identityEntityTypes[0]).toEqual({ id: 'patient', code: 'PAT' });
      expect(types.data!.identityEntityTypes[21]).toEqual({ id: 'service', code: 'SRV' });
    });
  });

  describe('GraphQL', () => {
    it('matches as a query, resolves as a mutation and reads the Identity entity', async () => {
      const resolved = await t.graphql<{ resolveIdentity: { gpid: string; status: string; identity: { entityType: string; sources: { source: string }[] } } }>(
        'mutation($input: IdentityDemographicsInput!) { resolveIdentity(input: $input, source: "prime") { gpid status identity { entityType sources { source } } } }',
        { input: { nameParts: { given: 'Wilhelmina', family: 'Oduya' }, dob: '1999-09-09' } },
      );
      expect(resolved.errors).toBeUndefined();
      const gpid = resolved.data!.resolveIdentity.gpid;
      expect(resolved.data!.resolveIdentity).toMatchObject({ status: 'SHADOW', identity: { entityType: 'patient', sources: [{ source: 'prime' }] } });

      const matched = await t.graphql<{ identityMatch: { matchType: string; candidates: { gpid: string; identity: { gpid: string; status: string } }[] } }>(
        'query($input: IdentityDemographicsInput!) { identityMatch(input: $input) { matchType candidates { gpid identity { gpid status } } } }',
        { input: { name: 'Wilhelmina Oduya', dob: '1999-09-09' } },
      );
      expect(matched.data!.identityMatch.candidates[0]).toEqual({ gpid, identity: { gpid, status: 'SHADOW' } });

      // Scopes per field: a reader cannot match, resolve or read match history partner GPIDs.
      const reader = await mintToken(t, ['identity.read']);
      const denied = await t.graphql('query($input: IdentityDemographicsInput!) { identityMatch(input: $input) { matchType } }', { input: { name: 'X Y' } }, reader);
      expect(denied.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
      const read = await t.graphql<{ identity: { gpid: string; matchHistory: { total: number } } }>('query($g: ID!) { identity(gpid: $g) { gpid matchHistory { total } } }', { g: gpid }, reader);
      expect(read.data!.identity).toEqual({ gpid, matchHistory: { total: 1 } });
      const bad = await t.graphql('mutation { resolveIdentity(input: { name: "A B" }, source: "nowhere") { gpid } }');
      expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'source' }] });
    });
  });

  describe('events', () => {
    it('emits identity.match for every resolve and boundary-header evidence once per partner, path and day', async () => {
      const r = (await id.resolve({ name: 'Evangelos Papadakis', dob: '1966-06-06' }, 'catalyst')).json();
      const events = await eventually(async () => {
        const found = (await eventsOf(t, ['identity.match'])).filter((e) => e.data['gpid'] === r.gpid);
        expect(found).toHaveLength(1);
        return found;
      });
      expect(events[0]).toMatchObject({
        type: 'identity.match',
        partnerGpid: 'CMS-00000000',
        data: { event: 'identity.match', gpid: r.gpid, match_type: 'NONE', identity_status: 'SHADOW', subject_gpid: null },
      });
      const observed = await eventually(async () => {
        const found = await eventsOf(t, ['identity.boundary_headers.observed']);
        expect(found.length).toBeGreaterThanOrEqual(1);
        return found;
      });
      const resolvePath = observed.filter((e) => e.data['path'] === '/api/identity/resolve');
      expect(resolvePath).toHaveLength(1);
      expect(resolvePath[0]!.data).toEqual({ event: 'identity.boundary_headers.observed', partner_gpid: 'CMS-00000000', source: expect.any(String), path: '/api/identity/resolve' });
      expect(await count('identity_boundary_observations')).toBeGreaterThanOrEqual(1);
    });
  });
});

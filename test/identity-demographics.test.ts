import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { identityClient, openIdentityDb, type IdentityDb } from './support/identity.js';

/**
 * Optional demographics of match and resolve (addresses, identifiers, sex, previous names, several
 * emails and phones) end to end: REST facade and GraphQL → identity subgraph → its database.
 */
describe('identity demographics: addresses, identifiers, sex, previous names, several contacts', () => {
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

  const MATCH = 'query($input: IdentityDemographicsInput!, $strict: Boolean) { identityMatch(input: $input, strict: $strict) { matchType candidates { gpid matchType confidence agreement } warnings { field code message } } }';
  const RESOLVE =
    'mutation($input: IdentityDemographicsInput!, $strict: Boolean) { resolveIdentity(input: $input, source: "lake", strict: $strict) { gpid decision links warnings { field code message } } }';
  type GqlCandidate = { gpid: string; matchType: string; confidence: number; agreement: Record<string, unknown> };

  describe('addresses', () => {
    it('normalizes USPS suffixes and units, and finds a record by its address when the family name changed', async () => {
      const first = await id.resolve(
        { name: 'Rosalind Achterberg', dob: '1970-04-12', address: { lines: ['123 North Main Street', 'Apartment 4B'], city: 'Springfield', state: 'Illinois', postal_code: '62704-1234' } },
        'pulse',
      );
      expect(first.statusCode).toBe(200);
      const gpid = first.json().gpid as string;
      // New family name, no date of birth: only the address key meets the record.
      const found = await id.match({ name: 'Rosalind Whitfield', address: { lines: ['123 N Main St # 4b'], postal_code: '62704', country: 'USA' } });
      expect(found.statusCode).toBe(200);
      expect(found.json()).toMatchObject({ match_type: 'PARTIAL', candidates: [{ gpid, match_type: 'PARTIAL' }], warnings: [] });
      // City and state instead of the ZIP meet the same address.
      const byCity = await id.match({ name: 'Rosalind Whitfield', address: { lines: ['123 N. MAIN ST.', 'Apt 4-B'.replace('-', '')], city: 'springfield', state: 'IL' } });
      expect(byCity.json().candidates[0]).toMatchObject({ gpid });

      const gql = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, {
        input: { name: 'Rosalind Whitfield', address: { lines: ['123 North Main Street Apt 4B'], postalCode: '62704' } },
      });
      expect(gql.errors).toBeUndefined();
      expect(gql.data!.identityMatch.candidates[0]).toMatchObject({ gpid, agreement: { given: 'exact', family: 'disagree', address: 'exact', blockedBy: null } });
    });

    it('never links twins automatically: same family name, date of birth, address and phone, different given names', async () => {
      const home = { lines: ['4410 Cedar Hollow Road'], city: 'Asheville', state: 'NC', postal_code: '28801' };
      const a = (await id.resolve({ name: 'Jonah Trevisani', dob: '2001-08-14', sex: 'male', phone: '828-555-0161', address: home }, 'pulse')).json();
      expect(a.decision).toBe('NEW_SHADOW');
      const b = (await id.resolve({ name: 'Micah Trevisani', dob: '2001-08-14', sex: 'male', phone: '828-555-0161', address: { ...home, lines: ['4410 Cedar Holw Rd'] } }, 'provider')).json();
      expect(b.gpid).not.toBe(a.gpid);
      expect(b.decision).not.toBe('EXISTING');
      // Asked again through GraphQL, the twin is at most a candidate for review, and says why.
      const again = await t.graphql<{ resolveIdentity: { gpid: string; decision: string } }>(RESOLVE, {
        input: { nameParts: { given: 'Micah', family: 'Trevisani' }, dob: '2001-08-14', phones: ['+1 828 555 0161'], address: { lines: ['4410 Cedar Hollow Rd'], postalCode: '28801' } },
      });
      expect(again.errors).toBeUndefined();
      expect(again.data!.resolveIdentity.gpid).not.toBe(a.gpid);
      // A third sibling of the same birth: both twins are candidates, neither strong, and say why.
      const matched = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, {
        input: { name: 'Elias Trevisani', dob: '2001-08-14', phone: '828-555-0161', address: { lines: ['4410 Cedar Hollow Road'], postalCode: '28801' } },
      });
      expect(matched.errors).toBeUndefined();
      const twin = matched.data!.identityMatch.candidates.find((c) => c.gpid === a.gpid);
      expect(twin?.agreement).toMatchObject({ given: 'disagree', family: 'exact', dob: 'exact', address: 'exact', addressDiscounted: true, blockedBy: 'twins' });
      expect(twin?.matchType).not.toBe('DETERMINISTIC');
      expect(twin!.confidence).toBeLessThan(0.9);
      const weights = twin!.agreement['weights'] as Record<string, number>;
      expect(weights['address']).toBeLessThanOrEqual(2);
      const resolvedThird = (await id.resolve({ name: 'Elias Trevisani', dob: '2001-08-14', phone: '828-555-0161', address: home }, 'lake')).json();
      expect([a.gpid, b.gpid]).not.toContain(resolvedThird.gpid);
    });

    it('never links namesakes automatically: one given name and birth date, another family name, nothing else shared', async () => {
      const first = (await id.resolve({ name: 'Aidan Quennell', dob: '1941-07-18', address: { lines: ['41 Edwards Street'], postal_code: '97201' } }, 'pulse')).json();
      const namesake = await id.match({ name: 'Aidan Brightwater', dob: '1941-07-18' });
      const candidate = namesake.json().candidates.find((c: { gpid: string }) => c.gpid === first.gpid);
      expect(candidate).toMatchObject({ agreement: { given: 'exact', family: 'disagree', dob: 'exact', blocked_by: 'different_family_name' } });
      expect(candidate.match_type).not.toBe('DETERMINISTIC');
      // The same address says one person whose family name changed: no hard rule, weighed.
      const moved = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, {
        input: { name: 'Aidan Brightwater', dob: '1941-07-18', address: { lines: ['41 Edwards St'], postalCode: '97201' } },
      });
      expect(moved.data!.identityMatch.candidates.find((c) => c.gpid === first.gpid)?.agreement).toMatchObject({ family: 'disagree', address: 'exact', blockedBy: null });
    });

    it('without a date of birth, a relative of a related given name at the same address and phone is queued, not linked', async () => {
      const home = { lines: ['1309 Jefferson Lane'], postal_code: '80238' };
      const daughter = (await id.resolve({ name: 'Lisa Wenczak', dob: '2023-02-17', phone: '704-555-0146', address: home }, 'pulse')).json();
      // The mother: Lisa is a nickname of Elizabeth, the family name, phone and address are the household's.
      const mother = await id.resolve(
        { name: 'Elizabeth Wenczak', email: 'elizabeth.wenczak@example.com', phone: '704-555-0146', address: home, identifiers: [{ system: 'ssn', value: '498-84-8767' }] },
        'provider',
      );
      expect(mother.json()).toMatchObject({ decision: 'NEW_PROVISIONAL', links: [daughter.gpid] });
      expect(mother.json().gpid).not.toBe(daughter.gpid);
      const candidate = mother.json().candidates.find((c: { gpid: string }) => c.gpid === daughter.gpid);
      expect(candidate).toMatchObject({ agreement: { given: 'nickname', family: 'exact', dob: 'missing', phone: 'exact', address: 'exact', blocked_by: null } });
      // Something of the person's own (the date of birth, an identifier, an e-mail) links as before.
      const withDob = await id.resolve({ name: 'Lisa Wenczak', dob: '2023-02-17', phone: '704-555-0146', address: home }, 'lake');
      expect(withDob.json()).toMatchObject({ gpid: daughter.gpid, decision: 'EXISTING' });
      const withSsn = await id.resolve({ name: 'Liz Wenczak', phone: '704-555-0146', identifiers: [{ system: 'ssn', value: '498-84-8767' }] }, 'lake');
      expect(withSsn.json()).toMatchObject({ gpid: mother.json().gpid, decision: 'EXISTING' });
    });
  });

  describe('blocking', () => {
    const candidateOf = async (body: object, gpid: string) => {
      const res = await id.match(body);
      expect(res.statusCode).toBe(200);
      return (res.json().candidates as Array<{ gpid: string; agreement: Record<string, unknown> }>).find((c) => c.gpid === gpid);
    };

    it('finds a record by the DOB and one initial when one name part is missing and the other misspelt', async () => {
      const first = (await id.resolve({ name: { given: 'Thaddeus', family: 'Cochraneby' }, dob: '1936-10-16' }, 'pulse')).json();
      expect(await candidateOf({ name: { family: 'Cocharneby' }, dob: '1936-10-16' }, first.gpid)).toMatchObject({ agreement: { given: 'missing', family: 'typo', dob: 'exact' } });
      expect(await candidateOf({ name: { given: 'Tkaddeus' }, dob: '1936-10-16' }, first.gpid)).toMatchObject({ agreement: { given: 'typo', family: 'missing', dob: 'exact' } });
    });

    it('finds a record by the given name, the family initial and part of the DOB when the family name and the DOB both carry a typo', async () => {
      const first = (await id.resolve({ name: 'Annabelle Couzenswick', dob: '1926-05-08' }, 'pulse')).json();
      expect(await candidateOf({ name: 'Annabelle Conzenswick', dob: '1925-05-08' }, first.gpid)).toMatchObject({ agreement: { given: 'exact', family: 'typo', dob: 'typo' } });
      expect(await candidateOf({ name: 'Annabelle Couxenswick', dob: '1926-05-18' }, first.gpid)).toMatchObject({ agreement: { given: 'exact', family: 'typo', dob: 'typo' } });
    });
  });

  describe('identifiers', () => {
    it('keeps twins apart when their SSNs were issued one after the other (one digit apart: no agreement)', async () => {
      const home = { lines: ['88 Larkspur Way'], postal_code: '89101' };
      const a = (await id.resolve({ name: 'Cordelia Haverkamp', dob: '2010-01-20', identifiers: [{ system: 'ssn', value: '321-54-9876' }], phone: '702-555-0190', address: home }, 'pulse')).json();
      const b = (await id.resolve({ name: 'Imogen Haverkamp', dob: '2010-01-20', identifiers: [{ system: 'ssn', value: '321-54-9877' }], phone: '702-555-0190', address: home }, 'provider')).json();
      expect(b.gpid).not.toBe(a.gpid);
      expect(b).toMatchObject({ decision: 'NEW_PROVISIONAL', links: [a.gpid] });
    });

    const person = { name: 'Ottoline Farquharson', dob: '1958-02-03', email: 'ottoline.f@example.org', phone: '503-555-0177' };

    it('an equal SSN links a record whose date of birth is missing; an MRN of another authority is no conflict', async () => {
      const first = (await id.resolve({ name: 'Percival Ambrosetti', dob: '1948-10-30', identifiers: [{ system: 'ssn', value: '219-09-9999' }, { system: 'mrn', value: 'A-1001', assigner: 'Mercy General' }] }, 'pulse')).json();
      const noDob = await id.resolve({ name: 'Percival Ambrosetti', identifiers: [{ system: 'ssn', value: '219 09 9999' }] }, 'provider');
      expect(noDob.json()).toMatchObject({ gpid: first.gpid, decision: 'EXISTING' });
      const otherHospital = await id.resolve({ name: 'Percival Ambrosetti', dob: '1948-10-30', identifiers: [{ system: 'mrn', value: 'Z77', assigner: 'St. Luke' }] }, 'lake');
      expect(otherHospital.json()).toMatchObject({ gpid: first.gpid, decision: 'EXISTING' });
      // Names that differ still meet the record through the identifier.
      const renamed = await id.match({ name: 'P. Whitcombe', identifiers: [{ system: 'mrn', value: 'a1001', assigner: 'MERCY GENERAL' }] });
      expect(renamed.json().candidates[0]).toMatchObject({ gpid: first.gpid });
    });

    it('conflicting identifiers of one system block an automatic link, even with everything else equal; a keying error does not', async () => {
      const a = (await id.resolve({ ...person, identifiers: [{ system: 'ssn', value: '123-45-6789' }] }, 'pulse')).json();
      const again = (await id.resolve({ ...person, identifiers: [{ system: 'ssn', value: '123456789' }] }, 'pulse')).json();
      expect(again).toMatchObject({ gpid: a.gpid, decision: 'EXISTING' });
      // One digit mistyped, two digits swapped: probable keying errors, weighed and linked.
      const typo = (await id.resolve({ ...person, identifiers: [{ system: 'ssn', value: '123-45-6780' }] }, 'provider')).json();
      expect(typo).toMatchObject({ gpid: a.gpid, decision: 'EXISTING' });
      // The same keying error on an SSN its source verified is a conflict.
      const verified = (await id.resolve({ ...person, identifiers: [{ system: 'ssn', value: '123-45-6798', verified: true }] }, 'provider')).json();
      expect(verified).toMatchObject({ decision: 'NEW_PROVISIONAL', links: [a.gpid] });

      const other = (await id.resolve({ ...person, identifiers: [{ system: 'ssn', value: '456-78-1234' }] }, 'provider')).json();
      expect(other).toMatchObject({ decision: 'NEW_PROVISIONAL', links: expect.arrayContaining([a.gpid]) });
      expect(other.gpid).not.toBe(a.gpid);

      // The same through GraphQL, with a driver's licence of one state.
      await id.resolve({ ...person, name: 'Ottoline Farquharson-Reyes', identifiers: [{ system: 'drivers_license', value: 'F123-4567', assigner: 'OR' }] }, 'pulse');
      const licence = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, {
        input: { name: 'Ottoline Farquharson-Reyes', dob: '1958-02-03', email: 'ottoline.f@example.org', identifiers: [{ system: 'drivers_license', value: 'F7654321', assigner: 'Oregon' }] },
      });
      const blocked = licence.data!.identityMatch.candidates.filter((c) => c.agreement['identifier'] === 'conflict');
      expect(blocked.length).toBeGreaterThan(0);
      for (const c of blocked) {
        expect(c.matchType).not.toBe('DETERMINISTIC');
        expect(c.agreement['blockedBy']).toBe('identifier_conflict');
      }
    });

    it('weighs one inserted or dropped character as a keying error and two keying errors as a level of their own; an unrelated number still blocks', async () => {
      const base = { name: 'Wilhelmina Castellanos', dob: '1966-05-14', email: 'w.castellanos@example.org', phone: '503-555-0143' };
      const a = (await id.resolve({ ...base, identifiers: [{ system: 'ssn', value: '231-45-6789' }, { system: 'mrn', value: 'MR-4471902', assigner: 'Mercy General' }] }, 'pulse')).json();
      // A digit typed twice in the MRN: one insertion, a keying error.
      const inserted = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, {
        input: { ...base, identifiers: [{ system: 'mrn', value: 'MR-44719902', assigner: 'Mercy General' }] },
      });
      expect(inserted.data!.identityMatch.candidates[0]).toMatchObject({ gpid: a.gpid, agreement: { identifier: 'typo', blockedBy: null } });
      const dropped = (await id.resolve({ ...base, identifiers: [{ system: 'mrn', value: 'MR-447192', assigner: 'Mercy General' }] }, 'provider')).json();
      expect(dropped).toMatchObject({ gpid: a.gpid, decision: 'EXISTING' });
      // Two digits mistyped in the SSN: weighed with the two-error level's own m/u, not a conflict.
      const two = await id.match({ ...base, identifiers: [{ system: 'ssn', value: '231-45-6712' }] });
      const top = two.json().candidates[0];
      expect(top).toMatchObject({ gpid: a.gpid, agreement: { identifier: 'typo2', blocked_by: null } });
      expect(top.agreement.weights.identifier).toBeGreaterThan(0);
      const linked = (await id.resolve({ ...base, identifiers: [{ system: 'ssn', value: '231-45-6712' }] }, 'provider')).json();
      expect(linked).toMatchObject({ gpid: a.gpid, decision: 'EXISTING' });
      // Two errors on an SSN its source verified block; so does an unrelated number.
      const verified = (await id.resolve({ ...base, identifiers: [{ system: 'ssn', value: '231-45-6700', verified: true }] }, 'beacon')).json();
      expect(verified).toMatchObject({ decision: 'NEW_PROVISIONAL', links: [a.gpid] });
      const unrelated = await id.match({ ...base, identifiers: [{ system: 'ssn', value: '547-18-2093' }] });
      expect(unrelated.json().candidates.find((c: { gpid: string }) => c.gpid === a.gpid)).toMatchObject({ agreement: { identifier: 'conflict', blocked_by: 'identifier_conflict' } });
    });

    it('accepts a record without a name when an identifier or the date of birth with contact data identifies it (point 5)', async () => {
      const bySsn = await id.resolve({ identifiers: [{ system: 'passport', value: 'X1234 5678', assigner: 'usa' }], dob: '1990-01-01' }, 'pulse');
      expect(bySsn.statusCode).toBe(200);
      const again = await id.resolve({ name: 'Leopoldine Szabo', identifiers: [{ system: 'passport', value: 'X12345678', assigner: 'USA' }], dob: '1990-01-01' }, 'beacon');
      expect(again.json()).toMatchObject({ gpid: bySsn.json().gpid, decision: 'EXISTING' });

      expect((await id.resolve({ dob: '1991-03-03', phones: ['(971) 555-0101'] }, 'pulse')).statusCode).toBe(200);
      const refused = await id.resolve({ email: 'nobody@example.org' }, 'pulse');
      expect(refused.statusCode).toBe(422);
      expect(refused.json().errors).toEqual([{ field: 'name', message: expect.stringContaining('unless an identifier') }]);
      const gql = await t.graphql(RESOLVE, { input: { email: 'nobody@example.org' } });
      expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'name' }] });
    });

    it('compares a national number of another country (national_id with its alpha-3 issuer), and sends a US one to ssn', async () => {
      const person = { name: { given: 'Siobhán', family: "O'Connor-Ngata" }, dob: '1987-11-02', address: { lines: ['14 Wallaby Way'], city: 'Sydney', state: 'NSW', postal_code: '2000', country: 'AU' } };
      const first = await id.resolve({ ...person, identifiers: [{ system: 'national_id', value: '1804 974', assigner: 'aus' }] }, 'pulse');
      expect(first.statusCode, first.body).toBe(200);
      // The given name spelt otherwise and the birth date missing: the same national number of the same country links.
      const again = await id.resolve({ name: "Shivaun O'Connor-Ngata", identifiers: [{ system: 'national_id', value: '1804974', assigner: 'AUS' }] }, 'beacon');
      expect(again.json()).toMatchObject({ gpid: first.json().gpid, decision: 'EXISTING' });
      // The same digits issued by another country are another number space: no identifier agreement.
      const canada = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, {
        input: { name: "Siobhan O'Connor-Ngata", dob: '1987-11-02', identifiers: [{ system: 'national_id', value: '1804974', assigner: 'CAN' }] },
      });
      expect(canada.errors).toBeUndefined();
      expect(canada.data!.identityMatch.candidates[0]?.agreement['identifier']).toBe('missing');
      const us = await id.match({ name: 'A B', identifiers: [{ system: 'national_id', value: '123-45-6789', assigner: 'USA' }], strict: true });
      expect(us.json().errors).toEqual([{ field: 'identifiers.0.system', message: expect.stringContaining('ssn') }]);
      const gqlUs = await t.graphql(MATCH, { input: { name: 'A B', identifiers: [{ system: 'national_id', value: '123456789', assigner: 'USA' }] }, strict: true });
      expect(gqlUs.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'identifiers.0.system' }] });
    });

    it('stores no clear identifier or address', async () => {
      const r = (await id.resolve({ name: 'Clementine Vasquez-Orr', identifiers: [{ system: 'ssn', value: '078-05-1120' }], address: { lines: ['77 Sunnyvale Boulevard'], postal_code: '94086' } }, 'pulse')).json();
      const rows = await db.all(`select * from identity_records where gpid = '${r.gpid}'`);
      const text = JSON.stringify(rows);
      for (const clear of ['078051120', '078-05-1120', 'sunnyvale', 'Sunnyvale', '94086', 'clementine']) expect(text).not.toContain(clear);
    });
  });

  describe('identifier systems by URI and v2-0203 type, opaque systems (REST and GraphQL alike)', () => {
    it('maps us-ssn, the state licence OIDs and type codes to the registry systems, and keeps unknown systems opaque', async () => {
      const who = { name: 'Theodora Vasquez-Lindahl', dob: '1966-12-01' };
      const first = await id.resolve(
        {
          ...who,
          identifiers: [
            { system: 'http://hl7.org/fhir/sid/us-ssn', value: '234-56-7891' },
            { system: 'urn:oid:2.16.840.1.113883.4.3.41', value: 'K9876543' },
            { system: 'urn:oid:1.2.840.114350.1.13', type: 'MR', value: 'E-4412' },
            { system: 'https://clinic.example/patient-ids', value: 'px-17' },
          ],
        },
        'pulse',
      );
      expect(first.statusCode, first.body).toBe(200);
      expect(first.json().warnings).toEqual([]);
      const gpid = first.json().gpid as string;
      // Short systems meet the URIs: the SSN by its OID, the licence by its state, the MRN by its number space.
      const rest = await id.match({ name: 'T. Lindahl', identifiers: [{ system: 'ssn', value: '234567891' }, { system: 'drivers_license', assigner: 'Oregon', value: 'k9876543' }, { system: 'mrn', assigner: 'urn:oid:1.2.840.114350.1.13', value: 'E4412' }] });
      expect(rest.json().candidates[0]).toMatchObject({ gpid, agreement: { identifier: 'exact' } });
      const gql = await t.graphql<{ identityMatch: { candidates: GqlCandidate[]; warnings: unknown[] } }>(MATCH, {
        input: { name: 'Theo Lindahl', identifiers: [{ system: 'urn:oid:2.16.840.1.113883.4.1', value: '234-56-7891', verified: true }, { type: 'DL', assigner: 'OR', value: 'K9876543' }] },
      });
      expect(gql.data!.identityMatch.candidates[0]).toMatchObject({ gpid, agreement: { identifier: 'exact' } });
      // The opaque system finds the record and agrees only with an equal value of that very system.
      const opaque = await t.graphql<{ identityMatch: { candidates: GqlCandidate[] } }>(MATCH, { input: { ...who, identifiers: [{ system: 'https://clinic.example/patient-ids', value: 'px-17' }] } });
      expect(opaque.data!.identityMatch.candidates[0]).toMatchObject({ gpid, agreement: { memberId: 'exact', blockedBy: null } });
      // Bad type and verified values are named on both.
      const bad = await id.match({ ...who, strict: true, identifiers: [{ type: 'ZZ', value: '1' }] });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['identifiers.0.type']);
      const badFlag = await id.match({ ...who, identifiers: [{ system: 'ssn', value: '234-56-7891', verified: 'yes' }] });
      expect(badFlag.json().errors.map((e: { field: string }) => e.field)).toEqual(['identifiers.0.verified']);
      const badGql = await t.graphql(MATCH, { input: { ...who, identifiers: [{ type: 'ZZ', value: '1' }] }, strict: true });
      expect(JSON.stringify(badGql.errors)).toContain('identifiers.0.type');
    });
  });

  describe('previous names, several emails and phones, sex', () => {
    it('finds a record by a previous name and by any of its emails', async () => {
      const a = (await id.resolve({ name: 'Henrietta Blomqvist', dob: '1966-12-01', emails: ['h.blomqvist@example.com', 'henrietta@work.example'], phones: ['617-555-0110', '617-555-0111'] }, 'pulse')).json();
      const married = await id.resolve({ name: 'Henrietta Okonkwo', previous_names: ['Henrietta Blomqvist'], dob: '1966-12-01', sex: 'female' }, 'provider');
      expect(married.json()).toMatchObject({ gpid: a.gpid, decision: 'EXISTING' });
      const secondEmail = await id.match({ name: 'Henrietta Blomqvist', dob: '1966-12-01', email: 'henrietta@work.example' });
      expect(secondEmail.json()).toMatchObject({ match_type: 'DETERMINISTIC', candidates: [{ gpid: a.gpid }] });
      // The record learned the new family name: it answers to it now.
      const newName = await id.match({ name: 'Henrietta Okonkwo', dob: '1966-12-01', phone: '617-555-0111' });
      expect(newName.json().candidates[0]).toMatchObject({ gpid: a.gpid, match_type: 'DETERMINISTIC' });
    });
  });

  describe('validation, the same on REST and GraphQL', () => {
    it('drops an invalid optional field with a warning naming it, and refuses it when strict', async () => {
      const body = { name: 'Wendell Achebe', dob: '1977-07-07', sex: 'x', address: { lines: ['1 Elm St'], postal_code: '1234' }, identifiers: [{ system: 'ssn', value: '000-12-3456' }] };
      const lenient = await id.match(body);
      expect(lenient.statusCode).toBe(200);
      const fields = ['sex', 'address.postal_code', 'identifiers.0.value'];
      expect(lenient.json().warnings.map((w: { field: string }) => w.field)).toEqual(fields);
      for (const w of lenient.json().warnings) {
        expect(w.code).toBe('INVALID_FIELD_DROPPED');
        expect(w.message).not.toContain('000');
      }
      const gqlLenient = await t.graphql<{ identityMatch: { warnings: { field: string }[] } }>(MATCH, {
        input: { name: 'Wendell Achebe', dob: '1977-07-07', sex: 'x', address: { lines: ['1 Elm St'], postalCode: '1234' }, identifiers: [{ system: 'ssn', value: '000-12-3456' }] },
      });
      expect(gqlLenient.data!.identityMatch.warnings.map((w) => w.field)).toEqual(fields);

      const strict = await id.match({ ...body, strict: true });
      expect(strict.statusCode).toBe(422);
      expect(strict.json().errors.map((e: { field: string }) => e.field)).toEqual(fields);
      const gqlStrict = await t.graphql(MATCH, {
        strict: true,
        input: { name: 'Wendell Achebe', dob: '1977-07-07', sex: 'x', address: { lines: ['1 Elm St'], postalCode: '1234' }, identifiers: [{ system: 'ssn', value: '000-12-3456' }] },
      });
      expect((gqlStrict.errors?.[0]?.extensions?.['fieldErrors'] as { field: string }[]).map((e) => e.field)).toEqual(fields);
    });

    it('refuses malformed shapes and too many values, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ name: 'A B', identifiers: [{ system: 1, value: '1' }] }, 'identifiers.0.system'],
        [{ name: 'A B', address: { lines: ['1 Elm St'], street: 'x' } }, 'address.street'],
        [{ name: 'A B', emails: 'a@example.com' }, 'emails'],
        [{ name: 'A B', phones: [5] }, 'phones.0'],
        [{ name: 'A B', identifiers: Array.from({ length: 11 }, () => ({ system: 'ssn', value: '123-45-6789' })) }, 'identifiers'],
        [{ name: 'A B', email: 'a@example.com', emails: ['b@example.com', 'c@example.com', 'd@example.com', 'e@example.com', 'f@example.com'] }, 'emails'],
      ];
      for (const [body, field] of cases) {
        const res = await id.match(body);
        expect(res.statusCode, field).toBe(422);
        expect(res.json().errors.map((e: { field: string }) => e.field), field).toContain(field);
      }
      const tooMany = await t.graphql(MATCH, { input: { name: 'A B', identifiers: Array.from({ length: 11 }, () => ({ system: 'ssn', value: '123-45-6789' })) } });
      expect(tooMany.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'identifiers' }] });
      const unknownSystem = await id.match({ name: 'A B', identifiers: [{ system: 'nhs', value: '943 476 5919' }], strict: true });
      expect(unknownSystem.json().errors).toEqual([{ field: 'identifiers.0.system', message: expect.stringContaining('ssn, mrn, drivers_license, insurance_member_id, passport') }]);
      const noAssigner = await id.match({ name: 'A B', identifiers: [{ system: 'mrn', value: '42' }], strict: true });
      expect(noAssigner.json().errors).toEqual([{ field: 'identifiers.0.assigner', message: expect.stringContaining('assigning authority') }]);
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from '../support/system.js';
import { identityClient, openIdentityDb, type IdentityDb } from '../support/identity.js';

/**
 * Internationalized e-mail addresses (RFC 6531/6532, IDN domains) resolve like any other, and an
 * invalid optional field (email, phone) is dropped with a warning instead of refusing the record,
 * unless the caller asks for strict validation.
 */
describe('international demographics and dropped optional fields', () => {
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

  const RESOLVE = `mutation($input: IdentityDemographicsInput!, $source: String!, $strict: Boolean) {
    resolveIdentity(input: $input, source: $source, strict: $strict) { gpid decision warnings { field code message } }
  }`;

  /** Resolve by e-mail alone beside a name shared by nobody else: the e-mail decides the match. */
  async function resolveByEmail(name: string, email: string, source: string) {
    const res = await id.resolve({ name, email }, source);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as { gpid: string; decision: string; warnings: unknown[] };
  }

  it.each([
    ['a UTF-8 local part and an IDN domain', 'Søren Kierkegård-Lund', ['søren.40@exämple.dk', 'SØREN.40@EXÄMPLE.DK', 'søren.40@xn--exmple-cua.dk']],
    ['a CJK local part and a CJK domain and top-level domain', 'Wei Zhang-Holloway', ['用户@例子.广告', '用户@xn--fsqu00a.xn--4rr70v', '用户@例子。广告']],
    ['decomposed and composed characters, U-label and A-label', 'Úrsula Ñúñez-Ødegård', ['üñîçøðé@xn--mnchen-3ya.de', 'u\u0308n\u0303i\u0302c\u0327øðe\u0301@münchen.de', 'ÜÑÎÇØÐÉ@MÜNCHEN.DE']],
  ])('resolves %s to one GPID in every spelling of the same address', async (_label, name, spellings) => {
    const first = await resolveByEmail(name, spellings[0]!, 'pulse');
    expect(first.warnings).toEqual([]);
    for (const email of spellings.slice(1)) {
      const again = await resolveByEmail(name, email, 'lake');
      expect(again).toMatchObject({ gpid: first.gpid, decision: 'EXISTING', warnings: [] });
    }
    // The same over GraphQL.
    const gql = await t.graphql<{ resolveIdentity: { gpid: string; warnings: unknown[] } }>(RESOLVE, { input: { name, email: spellings.at(-1) }, source: 'cms' });
    expect(gql.errors).toBeUndefined();
    expect(gql.data!.resolveIdentity).toMatchObject({ gpid: first.gpid, warnings: [] });
  });

  it('still refuses what is truly invalid when strict, naming the field (REST and GraphQL)', async () => {
    for (const email of ['søren..40@exämple.dk', 'jo hn@example.org', 'john@ex_ample.com', 'john@[10.0.0.1]']) {
      const res = await id.resolve({ name: 'Strict Person', dob: '1970-01-01', email, strict: true }, 'pulse');
      expect(res.statusCode, email).toBe(422);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'email', message: 'is not an email address' }] });
    }
  });

  describe('an invalid optional field', () => {
    const person = { name: 'Philomena Abercrombie-Nakashima', dob: '1966-10-14' };

    it('is dropped with a warning and the record resolves to the GPID of the same person without it (REST)', async () => {
      const plain = await id.resolve(person, 'pulse');
      expect(plain.statusCode).toBe(200);
      const gpid = plain.json().gpid as string;
      const historyBefore = Number((await db.all('select count(*) as n from identity_match_history'))[0]!['n']);

      const badEmail = await id.resolve({ ...person, email: 'philomena@@nowhere-secret' }, 'lake');
      expect(badEmail.statusCode).toBe(200);
      expect(badEmail.json()).toMatchObject({ gpid, decision: 'EXISTING' });
      expect(badEmail.json().warnings).toEqual([{ field: 'email', code: 'INVALID_FIELD_DROPPED', message: 'is not an email address; the field was ignored' }]);

      const badPhone = await id.resolve({ ...person, phone: '12-34' }, 'beacon');
      expect(badPhone.json()).toMatchObject({ gpid, decision: 'EXISTING', warnings: [{ field: 'phone', code: 'INVALID_FIELD_DROPPED' }] });

      const both = await id.resolve({ ...person, email: 'not an address', phone: 'call me' }, 'cms');
      expect(both.json()).toMatchObject({ gpid, decision: 'EXISTING' });
      expect(both.json().warnings.map((w: { field: string }) => w.field)).toEqual(['email', 'phone']);
      // A clean record has no warnings (an empty list).
      expect(plain.json().warnings).toEqual([]);

      // Match answers the same way.
      const match = await id.match({ ...person, email: 'philomena@@nowhere-secret' });
      expect(match.statusCode).toBe(200);
      expect(match.json().candidates[0]).toMatchObject({ gpid });
      expect(match.json().warnings).toEqual([{ field: 'email', code: 'INVALID_FIELD_DROPPED', message: 'is not an email address; the field was ignored' }]);

      // Nothing of the dropped values reached the database (only fingerprints are stored anyway;
      // the dropped ones are not even fingerprinted, so the record learned no e-mail).
      expect(Number((await db.all('select count(*) as n from identity_match_history'))[0]!['n'])).toBe(historyBefore + 3);
      let dump = '';
      for (const table of ['identity_records', 'identity_match_history', 'identity_outbox', 'identity_sources']) dump += JSON.stringify(await db.all(`select * from ${table}`));
      expect(dump).not.toContain('nowhere-secret');
      expect(dump).not.toContain('call me');
      const record = (await db.all(`select fields from identity_records where gpid = '${gpid}'`))[0]!['fields'];
      const fields = (typeof record === 'string' ? JSON.parse(record) : record) as Record<string, string[]>;
      expect(Object.keys(fields)).toContain('dob');
      expect(fields['email'] ?? []).toEqual([]);
      expect(fields['phone'] ?? []).toEqual([]);
    });

    it('is dropped with a typed warning over GraphQL', async () => {
      const res = await t.graphql<{ resolveIdentity: { gpid: string; decision: string; warnings: { field: string; code: string; message: string }[] } }>(RESOLVE, {
        input: { ...person, phone: 'not-a-phone' },
        source: 'tefca',
      });
      expect(res.errors).toBeUndefined();
      expect(res.data!.resolveIdentity.decision).toBe('EXISTING');
      expect(res.data!.resolveIdentity.warnings).toEqual([{ field: 'phone', code: 'INVALID_FIELD_DROPPED', message: 'is not a valid phone number; the field was ignored' }]);
      const match = await t.graphql<{ identityMatch: { warnings: { field: string }[] } }>(
        'query($input: IdentityDemographicsInput!) { identityMatch(input: $input) { matchType warnings { field code message } } }',
        { input: { ...person, email: 'x@' } },
      );
      expect(match.errors).toBeUndefined();
      expect(match.data!.identityMatch.warnings.map((w) => w.field)).toEqual(['email']);
    });

    it('is refused with 422 naming the field when strict (REST and GraphQL)', async () => {
      const rest = await id.resolve({ ...person, email: 'philomena@@nowhere', strict: true }, 'pulse');
      expect(rest.statusCode).toBe(422);
      expect(rest.json()).toMatchObject({ status: 422, code: 'VALIDATION_ERROR', errors: [{ field: 'email', message: 'is not an email address' }] });
      const restPhone = await id.match({ ...person, phone: '12-34', strict: true });
      expect(restPhone.statusCode).toBe(422);
      expect(restPhone.json()).toMatchObject({ code: 'VALIDATION_ERROR', errors: [{ field: 'phone' }] });

      const gql = await t.graphql(RESOLVE, { input: { ...person, phone: 'not-a-phone' }, source: 'pulse', strict: true });
      expect(gql.data).toBeNull();
      expect(gql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(JSON.stringify(gql.errors?.[0]?.extensions)).toContain('phone');

      // strict must be a boolean.
      const wrong = await id.resolve({ ...person, strict: 'yes' }, 'pulse');
      expect(wrong.statusCode).toBe(422);
      expect(wrong.json().errors).toEqual([expect.objectContaining({ field: 'strict' })]);
    });

    it('still refuses an invalid name or date of birth, strict or not', async () => {
      const dob = await id.resolve({ name: 'Valid Name', dob: '1980-02-30', email: 'nope' }, 'pulse');
      expect(dob.statusCode).toBe(422);
      expect(dob.json().errors).toEqual([expect.objectContaining({ field: 'dob' })]);
      const name = await id.resolve({ name: '!!!', email: 'valid@example.org' }, 'pulse');
      expect(name.statusCode).toBe(422);
      expect(name.json().errors).toEqual([expect.objectContaining({ field: 'name' })]);
      // Match with nothing identifying left once the field is dropped: refused, naming it.
      const only = await id.match({ email: 'nope' });
      expect(only.statusCode).toBe(422);
      expect(only.json().errors).toEqual([expect.objectContaining({ field: 'email' })]);
    });
  });
});

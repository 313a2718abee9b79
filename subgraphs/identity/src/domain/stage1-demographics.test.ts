import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { acceptDemographics, validateDemographics } from './stage1-demographics.js';
import { NOW } from './test-support.js';

const opts = { purpose: 'match' as const, now: NOW };
const strict = { ...opts, strict: true };

describe('stage 1: demographics input', () => {
  it('parses every field', () => {
    const d = acceptDemographics({ name: 'Smith, Bob', dob: 'March 4, 1980', email: ' Bob@Gmail.com ', phone: '212.867.5309' }, opts);
    expect(d.name?.given?.text).toBe('bob');
    expect(d.name?.family?.text).toBe('smith');
    expect(d.dob).toEqual({ year: 1980, month: 3, day: 4 });
    expect(d.email).toBe('bob@gmail.com');
    expect(d.phone?.e164).toBe('+12128675309');
  });

  it('needs at least one identifying field', () => {
    const r = validateDemographics({ name: ' ', email: null }, opts);
    expect(r).toEqual({ ok: false, errors: [{ field: 'demographics', message: 'at least one of name, dob, email, phone, address or identifiers is required' }] });
  });

  it('lets Match run on a single field, but Resolve needs a name', () => {
    expect(validateDemographics({ email: 'a@example.com' }, opts).ok).toBe(true);
    const r = validateDemographics({ email: 'a@example.com' }, { ...opts, purpose: 'resolve' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors).toEqual([{ field: 'name', message: 'is required to resolve an identity unless an identifier, or the date of birth with an email, phone or address, is given' }]);
  });

  it('reports every bad field at once when strict', () => {
    const r = validateDemographics({ name: '!!!', dob: '1980-02-30', email: 'nope', phone: '12345' }, strict);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => e.field)).toEqual(['name', 'dob', 'email', 'phone']);
  });

  it('refuses a bad name or DOB even when not strict, without the optional fields it would drop', () => {
    const r = validateDemographics({ name: '!!!', dob: '1980-02-30', email: 'nope', phone: '12345' }, opts);
    expect(!r.ok && r.errors.map((e) => e.field)).toEqual(['name', 'dob']);
  });

  it('drops an invalid email or phone with a warning that does not repeat the value', () => {
    const r = validateDemographics({ name: 'Ann Lee', dob: '1980-03-04', email: 'ann@@secret-example', phone: '555-01' }, opts);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.email).toBeNull();
    expect(r.value.phone).toBeNull();
    expect(r.value.name?.family?.text).toBe('lee');
    expect(r.warnings).toEqual([
      { field: 'email', code: 'INVALID_FIELD_DROPPED', message: 'is not an email address; the field was ignored' },
      { field: 'phone', code: 'INVALID_FIELD_DROPPED', message: 'is not a valid phone number; the field was ignored' },
    ]);
    expect(JSON.stringify(r.warnings)).not.toContain('secret-example');
    expect(JSON.stringify(r.warnings)).not.toContain('555');
  });

  it('keeps valid fields without warnings', () => {
    const r = validateDemographics({ name: 'Ann Lee', email: 'søren.40@exämple.dk' }, opts);
    expect(r).toMatchObject({ ok: true, warnings: [] });
    expect(r.ok && r.value.email).toBe('søren.40@xn--exmple-cua.dk');
  });

  it('refuses the invalid fields when nothing identifying would be left', () => {
    const r = validateDemographics({ email: 'nope' }, opts);
    expect(!r.ok && r.errors).toEqual([{ field: 'email', message: 'is not an email address' }]);
  });

  it('checks types, lengths and name parts', () => {
    const r = validateDemographics(
      { name: { given: 42, family: 'x'.repeat(101), nick: 'Bob' }, dob: 19800304, email: ['a'], phone: {} },
      strict,
    );
    expect(!r.ok && r.errors).toEqual([
      { field: 'name.nick', message: 'is not a name part (use given, middle, family)' },
      { field: 'name.given', message: 'must be a string' },
      { field: 'name.family', message: 'must be at most 100 characters' },
      { field: 'dob', message: 'must be a string' },
      { field: 'email', message: 'must be a string' },
      { field: 'phone', message: 'must be a string' },
    ]);
    expect(validateDemographics('Bob', opts).ok).toBe(false);
    expect(validateDemographics({ name: 'a'.repeat(201) }, opts).ok).toBe(false);
  });

  it('rejects future birth dates against the injected clock', () => {
    const r = validateDemographics({ name: 'Ann Lee', dob: '2026-06-13' }, opts);
    expect(!r.ok && r.errors).toEqual([{ field: 'dob', message: 'must not be in the future' }]);
  });

  it('uses the configured country and date order', () => {
    const d = acceptDemographics({ dob: '03/04/1980', phone: '020 7946 0958' }, { ...opts, defaultCountry: 'GB', dobOrder: 'DMY' });
    expect(d.dob).toEqual({ year: 1980, month: 4, day: 3 });
    expect(d.phone?.e164).toBe('+442079460958');
  });

  it('throws a VALIDATION_ERROR DomainError with field errors', () => {
    try {
      acceptDemographics({ dob: 'soon' }, opts);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      const e = error as DomainError;
      expect(e.code).toBe('VALIDATION_ERROR');
      expect(e.status).toBe(422);
      expect(e.fieldErrors).toEqual([{ field: 'dob', message: 'is not a recognised date format (use YYYY-MM-DD)' }]);
    }
  });

  it('resolves without a name when an identifier, or the DOB with contact data, identifies the record', () => {
    const resolve = { ...opts, purpose: 'resolve' as const };
    expect(validateDemographics({ identifiers: [{ system: 'ssn', value: '123-45-6789' }] }, resolve).ok).toBe(true);
    expect(validateDemographics({ dob: '1980-01-01', address: { lines: ['1 Elm St'], postal_code: '02134' } }, resolve).ok).toBe(true);
    expect(validateDemographics({ dob: '1980-01-01', sex: 'female' }, resolve)).toMatchObject({ ok: false, errors: [{ field: 'name' }] });
    // The dropped identifier is named with the missing name.
    expect(validateDemographics({ dob: '1980-01-01', identifiers: [{ system: 'ssn', value: '000-00-0000' }] }, resolve)).toMatchObject({
      ok: false,
      errors: [{ field: 'identifiers.0.value' }, { field: 'name' }],
    });
  });

  it('reads several emails and phones without repeats, sex, previous names, and limits list sizes', () => {
    const r = validateDemographics({ email: 'A@example.com', emails: ['a@example.com', 'b@example.com'], phones: ['212-867-5309', '(212) 867 5309'], sex: ' Female ', previous_names: ['Ann Lee'] }, opts);
    expect(r.ok && r.value).toMatchObject({ emails: ['a@example.com', 'b@example.com'], phones: [{ e164: '+12128675309' }], sex: 'female', previousNames: [{ family: { text: 'lee' } }] });
    expect(validateDemographics({ name: 'A B', previous_names: ['x', 'y', 'z', 'u', 'v', 'w'] }, opts)).toMatchObject({ ok: false, errors: [{ field: 'previous_names' }] });
    expect(validateDemographics({ name: 'A B', previous_names: [42] }, opts)).toMatchObject({ ok: false, errors: [{ field: 'previous_names.0' }] });
  });
});

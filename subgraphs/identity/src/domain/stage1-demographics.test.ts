import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { acceptDemographics, validateDemographics } from './stage1-demographics.js';
import { NOW } from './test-support.js';

const opts = { purpose: 'match' as const, now: NOW };

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
    expect(r).toEqual({ ok: false, errors: [{ field: 'demographics', message: 'at least one of name, dob, email or phone is required' }] });
  });

  it('lets Match run on a single field, but Resolve needs a name', () => {
    expect(validateDemographics({ email: 'a@example.com' }, opts).ok).toBe(true);
    const r = validateDemographics({ email: 'a@example.com' }, { ...opts, purpose: 'resolve' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors).toEqual([{ field: 'name', message: 'is required to resolve an identity' }]);
  });

  it('reports every bad field at once', () => {
    const r = validateDemographics({ name: '!!!', dob: '1980-02-30', email: 'nope', phone: '12345' }, opts);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.map((e) => e.field)).toEqual(['name', 'dob', 'email', 'phone']);
  });

  it('checks types, lengths and name parts', () => {
    const r = validateDemographics(
      { name: { given: 42, family: 'x'.repeat(101), nick: 'Bob' }, dob: 19800304, email: ['a'], phone: {} },
      opts,
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
});

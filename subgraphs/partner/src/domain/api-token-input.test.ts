import { describe, expect, it } from 'vitest';
import { DomainError } from '@svc/platform';
import { API_TOKEN_POLICY, readCredentialName, resolveTokenExpiry } from './api-token-input.js';

const now = new Date('2026-03-01T12:00:00Z');
const DAY = 86_400_000;

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    if (err instanceof DomainError) return err.fieldErrors[0]?.field;
    throw err;
  }
  return undefined;
}

describe('token names', () => {
  it('are trimmed and collapsed', () => {
    expect(readCredentialName('  nightly   sync ')).toBe('nightly sync');
  });
  it('are 1 to 100 characters without control characters', () => {
    expect(fieldOf(() => readCredentialName('   '))).toBe('name');
    expect(fieldOf(() => readCredentialName('x'.repeat(101)))).toBe('name');
    expect(fieldOf(() => readCredentialName('bad\u0007name', 'client_name'))).toBe('client_name');
    expect(readCredentialName('é'.repeat(100))).toHaveLength(100);
  });
});

describe('token lifetimes', () => {
  it(`default to ${API_TOKEN_POLICY.defaultLifetimeDays} days`, () => {
    expect(resolveTokenExpiry({}, now).getTime() - now.getTime()).toBe(API_TOKEN_POLICY.defaultLifetimeDays * DAY);
  });
  it('take a number of days or an instant, not both', () => {
    expect(resolveTokenExpiry({ expiresInDays: 7 }, now)).toEqual(new Date(now.getTime() + 7 * DAY));
    const at = new Date(now.getTime() + 3 * DAY);
    expect(resolveTokenExpiry({ expiresAt: at }, now)).toEqual(at);
    expect(fieldOf(() => resolveTokenExpiry({ expiresAt: at, expiresInDays: 3 }, now))).toBe('expires_at');
  });
  it('are never in the past nor beyond the maximum', () => {
    expect(fieldOf(() => resolveTokenExpiry({ expiresAt: now }, now))).toBe('expires_at');
    expect(fieldOf(() => resolveTokenExpiry({ expiresAt: new Date(now.getTime() + 366 * DAY) }, now))).toBe('expires_at');
    expect(fieldOf(() => resolveTokenExpiry({ expiresInDays: 0 }, now))).toBe('expires_in_days');
    expect(fieldOf(() => resolveTokenExpiry({ expiresInDays: 1.5 }, now))).toBe('expires_in_days');
    expect(fieldOf(() => resolveTokenExpiry({ expiresInDays: API_TOKEN_POLICY.maxLifetimeDays + 1 }, now))).toBe('expires_in_days');
  });
});

import { validationError, type FieldError } from '@svc/platform';

/** The documented rules of partner API tokens. */
export const API_TOKEN_POLICY = {
  /** Active (unrevoked, unexpired) tokens one partner may hold at once; one more is a 409. */
  maxActivePerPartner: 25,
  /** Lifetime when the request names none. */
  defaultLifetimeDays: 90,
  /** Longest lifetime a token may have. */
  maxLifetimeDays: 365,
  nameMaxLength: 100,
} as const;

const DAY_MS = 86_400_000;

/** A token's display name: trimmed, 1 to 100 characters, no control characters. */
export function readCredentialName(value: string, field = 'name'): string {
  const name = value.trim().replace(/\s+/gu, ' ');
  const errors: FieldError[] = [];
  if (name.length === 0) errors.push({ field, message: 'is required' });
  else if ([...name].length > API_TOKEN_POLICY.nameMaxLength) errors.push({ field, message: `must be at most ${API_TOKEN_POLICY.nameMaxLength} characters` });
  if (/[\u0000-\u001f\u007f]/u.test(value)) errors.push({ field, message: 'must not contain control characters' });
  if (errors.length > 0) throw validationError(errors);
  return name;
}

/**
 * When a new token expires: at `expiresAt`, or `expiresInDays` from now, or after the default
 * lifetime. Never in the past, never beyond the maximum lifetime; the two forms exclude each other.
 */
export function resolveTokenExpiry(input: { expiresAt?: Date | null | undefined; expiresInDays?: number | null | undefined }, now: Date): Date {
  const { expiresAt, expiresInDays } = input;
  const latest = now.getTime() + API_TOKEN_POLICY.maxLifetimeDays * DAY_MS;
  if (expiresAt != null && expiresInDays != null) {
    throw validationError([{ field: 'expires_at', message: 'give either expires_at or expires_in_days, not both' }]);
  }
  if (expiresInDays != null) {
    if (!Number.isInteger(expiresInDays) || expiresInDays < 1 || expiresInDays > API_TOKEN_POLICY.maxLifetimeDays) {
      throw validationError([{ field: 'expires_in_days', message: `must be an integer from 1 to ${API_TOKEN_POLICY.maxLifetimeDays}` }]);
    }
    return new Date(now.getTime() + expiresInDays * DAY_MS);
  }
  if (expiresAt != null) {
    if (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= now.getTime()) {
      throw validationError([{ field: 'expires_at', message: 'must be in the future' }]);
    }
    if (expiresAt.getTime() > latest) {
      throw validationError([{ field: 'expires_at', message: `must be at most ${API_TOKEN_POLICY.maxLifetimeDays} days from now` }]);
    }
    return expiresAt;
  }
  return new Date(now.getTime() + API_TOKEN_POLICY.defaultLifetimeDays * DAY_MS);
}

import { isValidScope } from '@svc/platform';

/** A credential as the least-privilege check sees it. */
export interface ScopedCredential {
  id: string;
  scopes: readonly string[];
}

/** Outcome of {@link assessLeastPrivilege}. */
export interface LeastPrivilegeAssessment {
  satisfied: boolean;
  /** One sentence for the evidence record or the reason it is missing. */
  detail: string;
  /** Credentials holding an over-broad scope, with the offending scopes. */
  overbroad: { credential_id: string; scopes: string[] }[];
}

const SMART_ALL = /^(patient|user|system)\/\*\.(\*|c?r?u?d?s?)$/u;

/**
 * Why a scope is broader than any integration needs, or null when it is acceptable: the operator
 * wildcard `*`, the operator scope `cms.admin`, a product-wide wildcard (`cms.*`, `tefca.*`; the
 * documented `tefca.xcpd.*` family scopes are fine), a SMART scope granting every permission on
 * every resource type (`system/*.*`, `system/*.cruds`), or a malformed scope.
 */
export function overbroadScopeReason(scope: string): string | null {
  if (scope === '*') return 'the operator wildcard';
  if (scope === 'cms.admin') return 'the operator scope';
  if (!isValidScope(scope)) return 'a malformed scope';
  if (/^[a-z0-9_-]+\.\*$/u.test(scope)) return 'a product-wide wildcard';
  const smart = SMART_ALL.exec(scope);
  if (smart && (smart[2] === '*' || smart[2] === 'cruds')) return 'every permission on every resource type';
  return null;
}

/**
 * The least-privilege certification item, observed from the partner's active credentials: it holds
 * when the partner has at least one active credential with at least one scope, and no active
 * credential carries an over-broad scope (see {@link overbroadScopeReason}).
 */
export function assessLeastPrivilege(credentials: readonly ScopedCredential[]): LeastPrivilegeAssessment {
  const usable = credentials.filter((credential) => credential.scopes.length > 0);
  const overbroad = credentials
    .map((credential) => ({ credential_id: credential.id, scopes: credential.scopes.filter((scope) => overbroadScopeReason(scope) !== null) }))
    .filter((entry) => entry.scopes.length > 0);
  if (usable.length === 0) {
    return { satisfied: false, detail: 'No active credential with scopes exists yet.', overbroad };
  }
  if (overbroad.length > 0) {
    const list = overbroad.map((entry) => `${entry.credential_id} (${entry.scopes.join(', ')})`).join('; ');
    return { satisfied: false, detail: `Active credentials carry over-broad scopes: ${list}.`, overbroad };
  }
  const scopes = [...new Set(usable.flatMap((credential) => credential.scopes))].sort();
  return { satisfied: true, detail: `${usable.length} active credential(s), scopes: ${scopes.join(' ')}.`, overbroad };
}

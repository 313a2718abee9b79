import { DomainError } from '../errors.js';
import { hasAnyScope, hasScope } from '../auth/scopes.js';
import { INTERNAL_SCOPE } from '../auth/scope-catalog.js';
import { isAuthenticated, type Principal } from '../auth/principal.js';

/** The auth scopes every subgraph's Pothos builder declares (`AuthScopes` in its SchemaTypes). */
export interface PlatformAuthScopes {
  /** Any credential at all. */
  authenticated: boolean;
  /** The principal holds this scope (wildcards and SMART forms honoured). */
  scope: string;
  /** The principal holds at least one of these scopes. */
  anyScope: readonly string[];
  /** The gateway's own call (credential lookup, subscriptions plumbing). */
  internal: boolean;
}

/** Scope-auth plugin `authScopes` for a principal. */
export function authScopesFor(principal: Principal) {
  return {
    authenticated: isAuthenticated(principal),
    scope: (required: string) => hasScope(principal.scopes, required),
    anyScope: (required: readonly string[]) => hasAnyScope(principal.scopes, required),
    internal: principal.kind === 'service' && principal.scopes.includes(INTERNAL_SCOPE),
  };
}

/** The error a refused field answers: 401 without a credential, 403 with one that lacks the scope. */
export function unauthorizedErrorFor(principal: Principal): DomainError {
  return isAuthenticated(principal)
    ? new DomainError('INSUFFICIENT_SCOPE', 'The credential does not carry a scope this field requires.')
    : new DomainError('UNAUTHENTICATED', 'This field requires a credential.');
}

/** Operators (cms.admin) may act for every partner. */
export function isOperator(principal: Principal): boolean {
  return hasScope(principal.scopes, 'cms.admin');
}

/** Whether the principal may act for `partnerGpid`: its own partner, or an operator. */
export function actsFor(principal: Principal, partnerGpid: string | null): boolean {
  return (partnerGpid !== null && principal.partnerGpid === partnerGpid) || isOperator(principal);
}

import { ALL_SCOPES, DomainError, FACADE_SCOPE, hasScope, INTERNAL_SCOPE, isOperator, isValidScope, scopesWithin, validationError, type FieldError, type Principal } from '@svc/platform';
import { OPERATOR_PARTNER_GPID } from './operator-partner.js';

/**
 * What a partner holds unless an operator decides otherwise: the spec's cms.* scopes (FHIR, SDK,
 * partner, pipeline), identity match/resolve/read, and the self-service management scopes.
 * Merge, split, TEFCA and clearinghouse scopes need an operator's grant.
 */
export const DEFAULT_PARTNER_SCOPES: readonly string[] = Object.freeze([
  'cms.fhir.r4.read',
  'cms.fhir.r5.read',
  'cms.fhir.bundle.push',
  'cms.fhir.rest.write',
  'cms.sdk.read',
  'cms.partner.read',
  'cms.partner.write',
  'cms.pipeline.read',
  'cms.tokens.manage',
  'cms.webhooks.manage',
  'identity.match',
  'identity.resolve',
  'identity.read',
]);

/**
 * What a portal session carries: the partner's self-service scopes (those it holds). A session
 * manages credentials and reads the partner's own information; data-plane calls (FHIR, identity)
 * use API tokens or OAuth access tokens created from the portal.
 */
export const PORTAL_SESSION_SCOPES: readonly string[] = Object.freeze([
  'cms.partner.read',
  'cms.partner.write',
  'cms.pipeline.read',
  'cms.sdk.read',
  'cms.tokens.manage',
  'cms.webhooks.manage',
]);

/** Scopes the platform keeps for its own calls; no credential ever carries them. */
export const RESERVED_SCOPES: readonly string[] = Object.freeze([INTERNAL_SCOPE, FACADE_SCOPE]);

/** Most scopes one credential may list. */
export const MAX_SCOPES_PER_CREDENTIAL = 50;

/** The grant a newly created partner receives. */
export function defaultGrantFor(partnerGpid: string): string[] {
  return partnerGpid === OPERATOR_PARTNER_GPID ? [ALL_SCOPES] : [...DEFAULT_PARTNER_SCOPES];
}

/**
 * The TEFCA exchange scopes a partner holds (`tefca.xcpd.*`, `tefca.xca.query`, …): the spec lets the
 * XCPD and XCA routes be used with a portal session as well as a bearer token, so a session carries
 * them too (the exchange playground of the portal runs on the session).
 */
const TEFCA_EXCHANGE_SCOPE = /^tefca\.(xcpd|xca)(\.|$)/;

/** The scopes of a portal session for a partner holding `held`. */
export function portalSessionScopes(held: readonly string[]): string[] {
  return [...PORTAL_SESSION_SCOPES.filter((scope) => hasScope(held, scope)), ...held.filter((scope) => TEFCA_EXCHANGE_SCOPE.test(scope))];
}

/**
 * Read a list of requested scopes: strings, well-formed, not empty, de-duplicated in order.
 * Field errors address each bad entry by index (`scopes.2`).
 */
export function readScopeList(value: unknown, field = 'scopes'): string[] {
  if (!Array.isArray(value)) throw validationError([{ field, message: 'must be an array of scope strings' }]);
  const errors: FieldError[] = [];
  value.forEach((scope, i) => {
    if (typeof scope !== 'string') errors.push({ field: `${field}.${i}`, message: 'must be a string' });
    else if (!isValidScope(scope)) errors.push({ field: `${field}.${i}`, message: `"${scope}" is not a well-formed scope` });
    else if (RESERVED_SCOPES.includes(scope)) errors.push({ field: `${field}.${i}`, message: `${scope} is reserved for the platform` });
  });
  if (errors.length > 0) throw validationError(errors, 'Some requested scopes are malformed.');
  const scopes = [...new Set(value as string[])];
  if (scopes.length === 0) throw validationError([{ field, message: 'must list at least one scope' }]);
  if (scopes.length > MAX_SCOPES_PER_CREDENTIAL) throw validationError([{ field, message: `must list at most ${MAX_SCOPES_PER_CREDENTIAL} scopes` }]);
  return scopes;
}

/**
 * Least privilege: a new credential may carry only scopes its partner holds and, unless the caller
 * signed in to the portal or is an operator, only scopes the caller itself carries, so a token can
 * never mint a stronger token. Answers 403 naming every scope that is out of reach.
 */
export function assertDelegable(requested: readonly string[], partnerGrant: readonly string[], caller: Principal): void {
  const beyondPartner = scopesWithin(requested, partnerGrant);
  if (beyondPartner.length > 0) {
    throw new DomainError('FORBIDDEN', `The partner does not hold ${beyondPartner.length === 1 ? 'this scope' : 'these scopes'}: ${beyondPartner.join(', ')}.`, {
      details: { exceeding_scopes: beyondPartner, held_scopes: [...partnerGrant] },
    });
  }
  if (caller.kind === 'portal' || isOperator(caller)) return;
  const beyondCaller = scopesWithin(requested, caller.scopes);
  if (beyondCaller.length > 0) {
    throw new DomainError('FORBIDDEN', `A credential cannot delegate scopes it does not carry: ${beyondCaller.join(', ')}.`, {
      details: { exceeding_scopes: beyondCaller },
    });
  }
}

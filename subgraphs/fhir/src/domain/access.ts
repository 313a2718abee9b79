import { DomainError, hasAnyScope, isOperator, type Principal } from '@svc/platform';

/** The FHIR interactions a scope can allow. */
export type FhirInteraction = 'read' | 'vread' | 'history' | 'search' | 'create' | 'update' | 'delete';

/** SMART v2 permission letter per interaction (v1 `.read` = rs, `.write` = cud). */
const SMART_PERMISSION: Record<FhirInteraction, string> = { read: 'r', vread: 'r', history: 'r', search: 's', create: 'c', update: 'u', delete: 'd' };

/** The product scope (spec's FHIR scope table) that allows each interaction on any type. */
const PRODUCT_SCOPE: Record<FhirInteraction, string> = {
  read: 'cms.fhir.r4.read',
  vread: 'cms.fhir.r4.read',
  history: 'cms.fhir.r4.read',
  search: 'cms.fhir.r4.read',
  create: 'cms.fhir.rest.write',
  update: 'cms.fhir.rest.write',
  delete: 'cms.fhir.rest.write',
};

/**
 * The scopes any one of which allows `interaction` on `resourceType`: the spec's product scope, or
 * a SMART scope of any context (`patient/`, `user/`, `system/`) for that type or `*` carrying the
 * interaction's permission (v1 `read`/`write`, v2 letters). Matching is `hasAnyScope` of the
 * platform, so `system/*.cruds`, `patient/Patient.read` and `user/Observation.rs` all work.
 */
export function scopesFor(interaction: FhirInteraction, resourceType: string): string[] {
  return [PRODUCT_SCOPE[interaction], `patient/${resourceType}.${SMART_PERMISSION[interaction]}`];
}

/** 403 unless the principal may perform `interaction` on `resourceType`. */
export function assertMayPerform(principal: Principal, interaction: FhirInteraction, resourceType: string): void {
  const allowed = scopesFor(interaction, resourceType);
  if (!hasAnyScope(principal.scopes, allowed)) {
    throw new DomainError('INSUFFICIENT_SCOPE', `The credential may not ${interaction} ${resourceType} resources (needs one of: ${allowed.join(', ')}, or a wider SMART scope).`, {
      details: { required_scopes: allowed },
    });
  }
}

/**
 * Tenancy: every resource records the partner that wrote it. A partner sees only what it wrote;
 * operators (cms.admin) see everything. `undefined` means "no filter" (an operator); a string is the
 * only partner whose resources are visible; null (a credential with no partner) sees nothing.
 */
export function visiblePartner(principal: Principal): string | null | undefined {
  if (isOperator(principal)) return undefined;
  return principal.partnerGpid;
}

/** Whether a stored resource written by `owner` is visible to the principal. */
export function maySee(principal: Principal, owner: string | null): boolean {
  const visible = visiblePartner(principal);
  return visible === undefined || (visible !== null && visible === owner);
}

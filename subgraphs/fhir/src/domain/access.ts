import { DomainError, hasAnyScope, hasScope, isOperator, type Principal } from '@svc/platform';
import type { ResourceView, TenancyView } from '../entities/resource-store.js';
import { patientCompartment } from './definitions.js';

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

/**
 * 403 unless the principal may perform `interaction` on `resourceType`.
 *
 * SMART patient launch context: a scope that reaches the type only through the `patient/` context
 * (no product scope, no `user/` or `system/` scope covers it) allows the interaction only for a
 * credential with a patient context (`principal.patient`); without one it is refused (403
 * FORBIDDEN naming the missing context) rather than acting as a `system/` scope. A credential with
 * a patient context is narrowed to that patient's compartment whatever scope allowed it
 * ({@link narrowToPatient}).
 */
export function assertMayPerform(principal: Principal, interaction: FhirInteraction, resourceType: string): void {
  const permission = SMART_PERMISSION[interaction];
  // `user/` is what system/ and user/ grants cover, and patient/ grants do not.
  if (hasAnyScope(principal.scopes, [PRODUCT_SCOPE[interaction], `user/${resourceType}.${permission}`])) return;
  const patientScope = `patient/${resourceType}.${permission}`;
  if (hasScope(principal.scopes, patientScope)) {
    if (principal.patient !== undefined) return;
    throw new DomainError(
      'FORBIDDEN',
      `The credential's patient/ scopes (${patientScope}) need a patient context, and this credential has none: use an OAuth client registered with a patient, or a product, user/ or system/ scope.`,
      { details: { required_scopes: scopesFor(interaction, resourceType), patient_context: 'missing' } },
    );
  }
  const allowed = scopesFor(interaction, resourceType);
  throw new DomainError('INSUFFICIENT_SCOPE', `The credential may not ${interaction} ${resourceType} resources (needs one of: ${allowed.join(', ')}, or a wider SMART scope).`, {
    details: { required_scopes: allowed },
  });
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

/** Whether a stored resource written by `owner` is visible to the principal (tenancy only). */
export function maySee(principal: Principal, owner: string | null): boolean {
  const visible = visiblePartner(principal);
  return visible === undefined || (visible !== null && visible === owner);
}

/** A tenancy view narrowed to the principal's patient compartment, when it has a patient context. */
export function narrowToPatient(principal: Principal, tenancy: TenancyView): ResourceView {
  return principal.patient === undefined ? tenancy : { tenancy, patient: principal.patient };
}

/** The write view: the principal's own resources (an operator's: all), within its patient compartment. */
export function writeViewOf(principal: Principal): ResourceView {
  return narrowToPatient(principal, visiblePartner(principal));
}

/**
 * A resource about to be written (create, update, patch, also as Bundle entries) must stay in the
 * compartment of the principal's patient: the Patient itself (or one whose `link` names it), or a
 * resource whose compartment reference parameters point at `Patient/{patient}`. Decided on the
 * index rows the write will store. Outside: 403 (the body is the caller's own, so nothing leaks).
 */
export function assertWritableInCompartment(principal: Principal, resourceType: string, id: string, references: readonly { param: string; target_type: string | null; target_id: string | null }[]): void {
  const patient = principal.patient;
  if (patient === undefined) return;
  if (resourceType === 'Patient' && id === patient) return;
  const params = patientCompartment().get(resourceType) ?? [];
  if (references.some((r) => r.target_type === 'Patient' && r.target_id === patient && params.includes(r.param))) return;
  const via = params.length > 0 ? `one of ${params.join(', ')} must refer to Patient/${patient}` : `${resourceType} is not in the Patient compartment`;
  throw new DomainError('FORBIDDEN', `The credential's patient context allows writing only resources in the compartment of Patient/${patient}: ${via}.`, {
    fieldErrors: [{ field: resourceType, message: `not in the compartment of Patient/${patient}` }],
    details: { patient_context: patient },
  });
}

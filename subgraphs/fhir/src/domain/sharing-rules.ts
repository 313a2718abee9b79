import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/core';
import { DomainError, isOperator, type Principal } from '@svc/platform';
import type { ResourceView, TenancyView } from '../entities/resource-store.js';
import { narrowToPatient } from './access.js';
import { sharingRuleStore, type SharingRule } from '../entities/sharing-rule-store.js';
import { isFhirResourceType } from './definitions.js';

/**
 * Sharing between partners (the tenancy rule's one exception): an operator grants "partner A may
 * read partner B's resources of types T…" (or of every type). The grant widens A's *read view* —
 * read, vread, history, search, chains, `_has`, `_include`, `$export` — never its write view:
 * updates, patches, deletes and conditional writes still reach only A's own resources.
 */

const GPID = /^[A-Za-z0-9_.:-]{1,40}$/;

function assertOperator(principal: Principal): void {
  if (!isOperator(principal)) throw new DomainError('FORBIDDEN', 'Only an operator (cms.admin) manages FHIR sharing rules.');
}

function bad(field: string, message: string): DomainError {
  return new DomainError('BAD_REQUEST', `${field}: ${message}`, { fieldErrors: [{ field, message }] });
}

/**
 * What the principal may read: everyone's (operator), its own plus what rules share with it, or
 * nothing; narrowed to its patient's compartment when it has a SMART patient context.
 */
export async function readViewOf(em: EntityManager, principal: Principal): Promise<ResourceView> {
  return narrowToPatient(principal, isOperator(principal) ? undefined : await partnerReadView(em, principal.partnerGpid));
}

/** The read view of a partner (used by $export jobs, which run without a principal). */
export async function partnerReadView(em: EntityManager, partnerGpid: string | null): Promise<TenancyView> {
  if (partnerGpid === null) return null;
  const rules = await sharingRuleStore.forGrantee(em, partnerGpid);
  if (rules.length === 0) return partnerGpid;
  return { partner: partnerGpid, shared: rules.map((r) => ({ owner: r.ownerGpid, types: r.resourceTypes })) };
}

export interface GrantInput {
  ownerGpid: string;
  granteeGpid: string;
  /** null or absent: every type. */
  resourceTypes: string[] | null;
}

/** Grant (or replace) the rule of a grantee and an owner. */
export async function grantSharing(em: EntityManager, principal: Principal, input: GrantInput): Promise<SharingRule> {
  assertOperator(principal);
  if (!GPID.test(input.ownerGpid)) throw bad('ownerGpid', 'is not a partner GPID');
  if (!GPID.test(input.granteeGpid)) throw bad('granteeGpid', 'is not a partner GPID');
  if (input.ownerGpid === input.granteeGpid) throw bad('granteeGpid', 'must differ from ownerGpid (a partner always reads its own resources)');
  let types: string[] | null = null;
  if (input.resourceTypes) {
    types = [...new Set(input.resourceTypes)].sort();
    if (types.length === 0) throw bad('resourceTypes', 'must name at least one type (or be null for every type)');
    const unknown = types.filter((t) => !isFhirResourceType(t));
    if (unknown.length > 0) throw bad('resourceTypes', `${unknown.join(', ')} ${unknown.length === 1 ? 'is not an R4 resource type' : 'are not R4 resource types'}`);
  }
  return sharingRuleStore.upsert(em, { id: randomUUID(), ownerGpid: input.ownerGpid, granteeGpid: input.granteeGpid, resourceTypes: types, createdBy: principal.partnerGpid, createdAt: new Date().toISOString() });
}

export async function revokeSharing(em: EntityManager, principal: Principal, id: string): Promise<void> {
  assertOperator(principal);
  if (!(await sharingRuleStore.remove(em, id))) throw new DomainError('NOT_FOUND', `There is no sharing rule ${id}.`);
}

export async function listSharing(em: EntityManager, principal: Principal, filter: { ownerGpid?: string | null; granteeGpid?: string | null }): Promise<SharingRule[]> {
  assertOperator(principal);
  return sharingRuleStore.list(em, filter);
}

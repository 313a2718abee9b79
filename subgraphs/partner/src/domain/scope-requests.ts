import type { EntityManager } from '@mikro-orm/core';
import { DomainError, hasScope, isId, isOperator, newId, validationError, type FieldError, type Principal } from '@svc/platform';
import { partners } from '../entities/partners.js';
import { scopeRequests } from '../entities/scope-requests.js';
import type { ScopeRequest } from '../entities/scope-request.js';
import { creatorOf } from './credential-owner.js';
import { OPERATOR_PARTNER_GPID } from './operator-partner.js';
import { readScopeGrant, updatePartnerScopeGrant } from './partner-scope-grant.js';

/** A reason says what the scopes are for, in a sentence or a paragraph. */
export const REASON_MIN_LENGTH = 10;
export const REASON_MAX_LENGTH = 1000;

function readReason(value: unknown, field: string, required: boolean): string | null {
  if (value === null || value === undefined || (typeof value === 'string' && value.trim() === '')) {
    if (required) throw validationError([{ field, message: 'is required' }]);
    return null;
  }
  if (typeof value !== 'string') throw validationError([{ field, message: 'must be a string' }]);
  const reason = value.trim();
  if (reason.length < REASON_MIN_LENGTH) throw validationError([{ field, message: `must be at least ${REASON_MIN_LENGTH} characters` }]);
  if (reason.length > REASON_MAX_LENGTH) throw validationError([{ field, message: `must be at most ${REASON_MAX_LENGTH} characters` }]);
  return reason;
}

/**
 * A partner asks for scopes it does not hold, saying why. Every scope must be grantable (in the
 * catalog, or narrower than an entry; `scopes.<i>` names a refused one), not already held, and not
 * in another pending request of the partner (409 naming that request): one request per need,
 * decided once. Call inside a transaction.
 */
export async function requestScopes(em: EntityManager, caller: Principal, scopesInput: unknown, reasonInput: unknown, now: Date): Promise<ScopeRequest> {
  const gpid = caller.partnerGpid;
  if (!gpid || gpid === OPERATOR_PARTNER_GPID) throw new DomainError('FORBIDDEN', 'Only a partner requests scopes; operators change a grant directly.');
  const scopes = readScopeGrant(scopesInput);
  const reason = readReason(reasonInput, 'reason', true)!;
  const partner = await partners.byGpidForUpdate(em, gpid);
  if (!partner) throw new DomainError('NOT_FOUND', `No partner has GPID ${gpid}.`);
  if (partner.status !== 'active') throw new DomainError('CONFLICT', `Partner ${gpid} is ${partner.status}; it cannot request scopes.`);

  const errors: FieldError[] = [];
  scopes.forEach((scope, i) => {
    if (hasScope(partner.grantedScopes, scope)) errors.push({ field: `scopes.${i}`, message: `${scope} is already granted` });
  });
  if (errors.length > 0) throw validationError(errors, 'The partner already holds some of these scopes.');

  const pending = await scopeRequests.pendingOf(em, gpid);
  for (const other of pending) {
    const overlap = scopes.filter((s) => other.scopes.includes(s));
    if (overlap.length === 0) continue;
    throw new DomainError('CONFLICT', `Request ${other.id} already asks for ${overlap.join(', ')} and is waiting for an operator.`, {
      fieldErrors: overlap.map((s) => ({ field: `scopes.${scopes.indexOf(s)}`, message: `already requested in ${other.id}` })),
      details: { pending_request_id: other.id },
    });
  }

  const request = em.create(scopeRequests.entity, {
    id: newId('scr', now.getTime()),
    partnerGpid: gpid,
    scopes,
    reason,
    status: 'pending',
    requestedBy: creatorOf(caller),
    createdAt: now,
    decidedBy: null,
    decisionReason: null,
    decidedAt: null,
  });
  await em.flush();
  return request;
}

/** What deciding a request did; `eventIds` are the events a grant staged (partner.scopes.updated, revocations). */
export interface ScopeRequestDecision {
  request: ScopeRequest;
  eventIds: string[];
}

/**
 * An operator grants a pending request (its scopes join the partner's grant through
 * {@link updatePartnerScopeGrant}, which emits partner.scopes.updated and reaches open sessions) or
 * refuses it with a reason the partner sees. A decided request cannot be decided again (409).
 */
export async function decideScopeRequest(em: EntityManager, caller: Principal, id: string, decision: 'grant' | 'refuse', reasonInput: unknown, now: Date): Promise<ScopeRequestDecision> {
  if (!isOperator(caller)) throw new DomainError('FORBIDDEN', 'Only operators decide scope requests.');
  const request = isId('scr', id) ? await scopeRequests.byId(em, id) : null;
  if (!request) throw new DomainError('NOT_FOUND', `No scope request ${id}.`);
  const reason = readReason(reasonInput, 'reason', decision === 'refuse');
  if (request.status !== 'pending') throw new DomainError('CONFLICT', `Scope request ${id} was already ${request.status}.`);
  let eventIds: string[] = [];
  if (decision === 'grant') {
    const partner = await partners.byGpid(em, request.partnerGpid);
    if (!partner) throw new DomainError('NOT_FOUND', `No partner has GPID ${request.partnerGpid}.`);
    const grant = [...partner.grantedScopes, ...request.scopes.filter((s) => !partner.grantedScopes.includes(s))];
    eventIds = (await updatePartnerScopeGrant(em, caller, request.partnerGpid, grant, now)).eventIds;
  }
  request.status = decision === 'grant' ? 'granted' : 'refused';
  request.decidedBy = creatorOf(caller) ?? 'operator';
  request.decisionReason = reason;
  request.decidedAt = now;
  await em.flush();
  return { request, eventIds };
}

/**
 * The requests the caller may see: a partner its own (another partner's filter answers nothing,
 * as if there were none), an operator every partner's or the one named.
 */
export async function listScopeRequests(em: EntityManager, caller: Principal, filter: { partnerGpid: string | null; status: ScopeRequest['status'] | null; size: number; beforeId: string | null }): Promise<ScopeRequest[]> {
  if (isOperator(caller)) return scopeRequests.page(em, filter);
  const own = caller.partnerGpid;
  if (!own || (filter.partnerGpid !== null && filter.partnerGpid !== own)) return [];
  return scopeRequests.page(em, { ...filter, partnerGpid: own });
}

/** One request, when the caller may see it (another partner's looks missing). */
export async function scopeRequestFor(em: EntityManager, caller: Principal, id: string): Promise<ScopeRequest | null> {
  if (!isId('scr', id)) return null;
  const request = await scopeRequests.byId(em, id);
  if (!request) return null;
  return isOperator(caller) || request.partnerGpid === caller.partnerGpid ? request : null;
}

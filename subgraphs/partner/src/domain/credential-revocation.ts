import type { EntityManager } from '@mikro-orm/core';
import { DomainError, isOperator, makeEvent, recordEvent, validationError, type Principal } from '@svc/platform';

/** Emitted when an API token or an OAuth client is revoked (a documented webhook event). */
export const TOKEN_REVOKED_EVENT = 'partner.token.revoked';
/** Emitted when a portal session ends early (sign-out); gateways evict it from their caches. */
export const SESSION_REVOKED_EVENT = 'partner.session.revoked';

/**
 * Why a credential was revoked, as carried by partner.token.revoked. Partners choose between the
 * first two; `admin_action` is the operators' (the spec's example), and their default when they
 * revoke another partner's credential.
 */
export const REVOCATION_REASONS = ['partner_request', 'compromised', 'admin_action'] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** The outcome of a revocation: what partner.token.revoked carries, minus its `event` field. */
export interface Revocation {
  tokenId: string;
  partnerGpid: string;
  revokedAt: Date;
  reason: string;
}

/** The reason to record, validated against who is asking. */
export function readRevocationReason(value: string | null | undefined, caller: Principal, ownerGpid: string): RevocationReason {
  if (value === null || value === undefined || value === '') {
    return isOperator(caller) && caller.partnerGpid !== ownerGpid ? 'admin_action' : 'partner_request';
  }
  if (!(REVOCATION_REASONS as readonly string[]).includes(value)) {
    throw validationError([{ field: 'reason', message: `must be one of ${REVOCATION_REASONS.join(', ')}` }]);
  }
  if (value === 'admin_action' && !isOperator(caller)) {
    throw new DomainError('FORBIDDEN', 'Only operators revoke with reason admin_action.');
  }
  return value as RevocationReason;
}

/** Stage partner.token.revoked in `em`'s unit of work; returns the event id. */
export function recordTokenRevoked(em: EntityManager, revocation: Revocation): string {
  const event = makeEvent(
    TOKEN_REVOKED_EVENT,
    revocation.partnerGpid,
    {
      event: TOKEN_REVOKED_EVENT,
      token_id: revocation.tokenId,
      partner_gpid: revocation.partnerGpid,
      revoked_at: revocation.revokedAt.toISOString(),
      reason: revocation.reason,
    },
    revocation.revokedAt,
  );
  recordEvent(em, event);
  return event.id;
}

/** Stage partner.session.revoked in `em`'s unit of work; returns the event id. */
export function recordSessionRevoked(em: EntityManager, session: { id: string; partnerGpid: string; revokedAt: Date; reason: string }): string {
  const event = makeEvent(
    SESSION_REVOKED_EVENT,
    session.partnerGpid,
    { event: SESSION_REVOKED_EVENT, session_id: session.id, partner_gpid: session.partnerGpid, revoked_at: session.revokedAt.toISOString(), reason: session.reason },
    session.revokedAt,
  );
  recordEvent(em, event);
  return event.id;
}

import type { EntityManager } from '@mikro-orm/core';
import { actsFor, DomainError, newId, newSecret, sha256Hex, type Principal } from '@svc/platform';
import { PortalSessionEntity, type PortalSession } from '../entities/portal-session.js';
import { portalSessions } from '../entities/portal-sessions.js';
import type { Partner } from '../entities/partner.js';
import { portalSessionScopes } from './partner-scopes.js';
import { recordSessionRevoked } from './credential-revocation.js';

/** A portal session lasts one working day; signing in again makes a new one. */
export const PORTAL_SESSION_LIFETIME_SECONDS = 8 * 60 * 60;

/** A new session and its bearer secret (`svc_ses_…`), which exists only in this answer. */
export interface StartedSession {
  session: PortalSession;
  secret: string;
}

/** Stage a new portal session of `partner` in `em`. */
export function startPortalSession(em: EntityManager, partner: Partner, clientAddress: string | null, now: Date): StartedSession {
  const secret = newSecret('svc_ses');
  const session = em.create(PortalSessionEntity, {
    id: newId('ses', now.getTime()),
    partnerGpid: partner.gpid,
    secretHash: sha256Hex(secret),
    scopes: portalSessionScopes(partner.grantedScopes),
    clientAddress,
    createdAt: now,
    expiresAt: new Date(now.getTime() + PORTAL_SESSION_LIFETIME_SECONDS * 1000),
    revokedAt: null,
    revokedReason: null,
  });
  return { session, secret };
}

/**
 * End a portal session: the caller's own (no id), or one of its partner's (operators: anyone's).
 * Stages partner.session.revoked so every gateway forgets it; returns the event id, or null when
 * the session had already ended.
 */
export async function endPortalSession(em: EntityManager, caller: Principal, sessionId: string | null | undefined, now: Date): Promise<{ session: PortalSession; eventId: string | null }> {
  const id = sessionId ?? (caller.kind === 'portal' ? caller.tokenId : undefined);
  if (!id) throw new DomainError('BAD_REQUEST', 'Name the session to end, or sign out with the session itself.');
  const session = await portalSessions.byId(em, id);
  if (!session || !actsFor(caller, session.partnerGpid)) throw new DomainError('NOT_FOUND', `No session ${id} is visible to this credential.`);
  if (session.revokedAt) return { session, eventId: null };
  session.revokedAt = now;
  session.revokedReason = 'logout';
  const eventId = recordSessionRevoked(em, { id: session.id, partnerGpid: session.partnerGpid, revokedAt: now, reason: 'logout' });
  await em.flush();
  return { session, eventId };
}

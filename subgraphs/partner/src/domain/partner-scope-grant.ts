import type { EntityManager } from '@mikro-orm/core';
import { ALL_SCOPES, DomainError, hasScope, isOperator, isPartnerGpid, makeEvent, recordEvent, SCOPE_CATALOG, scopesWithin, validationError, type FieldError, type Principal } from '@svc/platform';
import { apiTokens } from '../entities/api-tokens.js';
import { oauthClients } from '../entities/oauth-clients.js';
import { partners } from '../entities/partners.js';
import { portalSessions } from '../entities/portal-sessions.js';
import type { Partner } from '../entities/partner.js';
import { creatorOf } from './credential-owner.js';
import { recordSessionRevoked, recordTokenRevoked } from './credential-revocation.js';
import { OPERATOR_PARTNER_GPID } from './operator-partner.js';
import { portalSessionScopes, readScopeList } from './partner-scopes.js';

/** Emitted when an operator changes a partner's grant (outbox, same transaction as the change). */
export const SCOPES_UPDATED_EVENT = 'partner.scopes.updated';

/**
 * Scopes no partner may be granted: `*` is the operator partner's, and `cms.admin` would make every
 * credential of the partner an operator (operators are recognised by that scope).
 */
export const OPERATOR_ONLY_SCOPES: readonly string[] = Object.freeze([ALL_SCOPES, 'cms.admin']);

/** The reason every credential revoked by a narrowed grant carries in partner.token.revoked / partner.session.revoked. */
export const NARROWED_GRANT_REVOCATION_REASON = 'admin_action';

const CATALOG_SCOPES: readonly string[] = SCOPE_CATALOG.map((entry) => entry.scope);

/**
 * True when `scope` may be granted: it is a catalog entry or narrower than one (`tefca.xcpd.search`
 * under `tefca.xcpd.*`, `system/Patient.rs` under `system/*.read`). A wildcard wider than every
 * catalog entry (`tefca.*`, `system/*.*`) and anything the catalog does not name are refused.
 */
export function isGrantableScope(scope: string): boolean {
  return !OPERATOR_ONLY_SCOPES.includes(scope) && hasScope(CATALOG_SCOPES, scope);
}

/**
 * Read a requested grant: a non-empty list of well-formed scopes (see `readScopeList`), each
 * grantable. Every refused scope is named in a field error addressed by its index (`scopes.3`).
 */
export function readScopeGrant(value: unknown, field = 'scopes'): string[] {
  const scopes = readScopeList(value, field);
  const raw = value as string[];
  const errors: FieldError[] = [];
  const reported = new Set<string>();
  raw.forEach((scope, i) => {
    if (reported.has(scope) || isGrantableScope(scope)) return;
    reported.add(scope);
    errors.push({
      field: `${field}.${i}`,
      message: OPERATOR_ONLY_SCOPES.includes(scope)
        ? `${scope} is reserved for the operator partner and cannot be granted`
        : `"${scope}" is not in the scope catalog (a wildcard may be no wider than a catalog entry)`,
    });
  });
  if (errors.length > 0) throw validationError(errors, `Unknown or ungrantable scopes: ${[...reported].join(', ')}.`);
  return scopes;
}

/** A credential revoked because it carried a scope the narrowed grant no longer holds. */
export interface RevokedCredential {
  /** tok_… (API token), cli_… (OAuth client) or ses_… (portal session). */
  credentialId: string;
  kind: 'api_token' | 'oauth_client' | 'portal_session';
  /** The scopes it carried that the new grant does not cover. */
  exceedingScopes: string[];
}

/** What changing a grant did. */
export interface ScopeGrantChange {
  partner: Partner;
  grantedScopes: string[];
  previousScopes: string[];
  addedScopes: string[];
  removedScopes: string[];
  revokedCredentials: RevokedCredential[];
  /** When the grant was last changed by this call; null when the call changed nothing. */
  updatedAt: Date | null;
  /** Ids of the events staged (revocations first, then partner.scopes.updated); empty when nothing changed. */
  eventIds: string[];
}

/**
 * Replace the grant of a partner (operators only). The new grant is the ceiling of every credential
 * of the partner from now on; an active credential (API token, OAuth client, portal session) that
 * carries a scope the new grant does not cover is revoked in the same transaction, with
 * partner.token.revoked / partner.session.revoked (reason `admin_action`), so least privilege holds
 * from the next request on. API tokens and OAuth clients within the new grant are untouched; a
 * widened grant gives them nothing (new ones may carry the new scopes). Open portal sessions, whose
 * scopes derive from the grant, carry the new grant's session scopes from their next request on. Setting the grant it already
 * has (the same set) changes nothing and emits nothing. Call inside a transaction.
 */
export async function updatePartnerScopeGrant(em: EntityManager, caller: Principal, partnerGpid: string, scopesInput: unknown, now: Date): Promise<ScopeGrantChange> {
  if (!isOperator(caller)) throw new DomainError('FORBIDDEN', "Only operators change a partner's grant.");
  if (!isPartnerGpid(partnerGpid)) throw validationError([{ field: 'partner_gpid', message: 'must be CMS- followed by 8 digits' }]);
  const scopes = readScopeGrant(scopesInput);
  const partner = await partners.byGpidForUpdate(em, partnerGpid);
  if (!partner) throw new DomainError('NOT_FOUND', `No partner has GPID ${partnerGpid}.`);
  if (partner.gpid === OPERATOR_PARTNER_GPID) {
    throw new DomainError('CONFLICT', `The operator partner ${OPERATOR_PARTNER_GPID} holds every scope (*); its grant cannot be changed.`);
  }

  const previousScopes = [...partner.grantedScopes];
  const addedScopes = scopes.filter((s) => !previousScopes.includes(s));
  const removedScopes = previousScopes.filter((s) => !scopes.includes(s));
  const unchanged = { partner, grantedScopes: previousScopes, previousScopes, addedScopes: [], removedScopes: [], revokedCredentials: [], updatedAt: null, eventIds: [] };
  if (addedScopes.length === 0 && removedScopes.length === 0) return unchanged;

  partners.setGrantedScopes(partner, scopes);
  const revokedCredentials: RevokedCredential[] = [];
  const eventIds: string[] = [];
  // Only a removal can leave a credential beyond the grant.
  if (removedScopes.length > 0) {
    const reason = NARROWED_GRANT_REVOCATION_REASON;
    for (const token of await apiTokens.active(em, partner.gpid, now)) {
      const exceeding = scopesWithin(token.scopes, scopes);
      if (exceeding.length === 0) continue;
      token.revokedAt = now;
      token.revokedReason = reason;
      eventIds.push(recordTokenRevoked(em, { tokenId: token.id, partnerGpid: partner.gpid, revokedAt: now, reason }));
      revokedCredentials.push({ credentialId: token.id, kind: 'api_token', exceedingScopes: exceeding });
    }
    for (const client of await oauthClients.active(em, partner.gpid)) {
      const exceeding = scopesWithin(client.scopes, scopes);
      if (exceeding.length === 0) continue;
      client.revokedAt = now;
      client.revokedReason = reason;
      eventIds.push(recordTokenRevoked(em, { tokenId: client.id, partnerGpid: partner.gpid, revokedAt: now, reason }));
      revokedCredentials.push({ credentialId: client.id, kind: 'oauth_client', exceedingScopes: exceeding });
    }
    for (const session of await portalSessions.active(em, partner.gpid, now)) {
      const exceeding = scopesWithin(session.scopes, scopes);
      if (exceeding.length === 0) continue;
      session.revokedAt = now;
      session.revokedReason = reason;
      eventIds.push(recordSessionRevoked(em, { id: session.id, partnerGpid: partner.gpid, revokedAt: now, reason }));
      revokedCredentials.push({ credentialId: session.id, kind: 'portal_session', exceedingScopes: exceeding });
    }
  }

  // Open portal sessions follow the grant: a session's scopes are those of its partner's grant now,
  // not a copy taken at sign-in. The gateways forget their cached principals of this partner's
  // sessions on partner.scopes.updated, so the next request of an open session carries these.
  const sessionScopes = portalSessionScopes(scopes);
  for (const session of await portalSessions.active(em, partner.gpid, now)) {
    if (session.revokedAt !== null) continue;
    if (session.scopes.length === sessionScopes.length && session.scopes.every((s) => sessionScopes.includes(s))) continue;
    session.scopes = [...sessionScopes];
  }

  const event = makeEvent(
    SCOPES_UPDATED_EVENT,
    partner.gpid,
    {
      event: SCOPES_UPDATED_EVENT,
      partner_gpid: partner.gpid,
      granted_scopes: scopes,
      previous_scopes: previousScopes,
      added_scopes: addedScopes,
      removed_scopes: removedScopes,
      revoked_credential_ids: revokedCredentials.map((c) => c.credentialId),
      updated_by: creatorOf(caller),
      updated_at: now.toISOString(),
    },
    now,
  );
  recordEvent(em, event);
  eventIds.push(event.id);
  await em.flush();
  return { partner, grantedScopes: scopes, previousScopes, addedScopes, removedScopes, revokedCredentials, updatedAt: now, eventIds };
}

import type { EntityManager } from '@mikro-orm/core';
import { actsFor, DomainError, newId, newSecret, sha256Hex, type Principal } from '@svc/platform';
import { ApiTokenEntity, type ApiToken } from '../entities/api-token.js';
import { apiTokens } from '../entities/api-tokens.js';
import { API_TOKEN_POLICY, readCredentialName, resolveTokenExpiry } from './api-token-input.js';
import { creatorOf, credentialOwner } from './credential-owner.js';
import { assertDelegable, readScopeList } from './partner-scopes.js';
import { readRevocationReason, recordTokenRevoked, type Revocation } from './credential-revocation.js';

/** What creating a token asks for (already shaped by the caller's transport). */
export interface ApiTokenRequest {
  /** Operators may create a token for another partner; others leave this empty. */
  partnerGpid?: string | null;
  name: string;
  scopes: readonly string[];
  expiresAt?: Date | null;
  expiresInDays?: number | null;
}

/** A new token and its secret: the only moment the secret exists outside the caller's hands. */
export interface IssuedApiToken {
  token: ApiToken;
  secret: string;
}

/**
 * Create a scoped API token for a partner: least privilege (see `assertDelegable`), at most
 * {@link API_TOKEN_POLICY.maxActivePerPartner} active tokens, a bounded lifetime. Staged in `em`
 * and flushed; call inside a transaction.
 */
export async function createApiToken(em: EntityManager, caller: Principal, request: ApiTokenRequest, now: Date): Promise<IssuedApiToken> {
  const name = readCredentialName(request.name);
  const scopes = readScopeList(request.scopes);
  const expiresAt = resolveTokenExpiry(request, now);
  const partner = await credentialOwner(em, caller, request.partnerGpid);
  assertDelegable(scopes, partner.grantedScopes, caller);
  const active = await apiTokens.countActive(em, partner.gpid, now);
  if (active >= API_TOKEN_POLICY.maxActivePerPartner) {
    throw new DomainError('CONFLICT', `Partner ${partner.gpid} already has ${active} active tokens, the most allowed (${API_TOKEN_POLICY.maxActivePerPartner}); revoke one first.`, {
      details: { max_active_tokens: API_TOKEN_POLICY.maxActivePerPartner },
    });
  }
  const secret = newSecret('svc_pat');
  const token = em.create(ApiTokenEntity, {
    id: newId('tok', now.getTime()),
    partnerGpid: partner.gpid,
    name,
    scopes,
    secretHash: sha256Hex(secret),
    principalKind: 'partner',
    createdAt: now,
    expiresAt,
    revokedAt: null,
    revokedReason: null,
    createdBy: creatorOf(caller),
  });
  await em.flush();
  return { token, secret };
}

/** A revocation, and the id of its event when this call made it (null when it was revoked before). */
export interface RevocationOutcome {
  revocation: Revocation;
  eventId: string | null;
}

/**
 * Revoke an API token of the caller's partner (or any, for operators) and stage
 * partner.token.revoked. Revoking a revoked token again changes nothing and answers the first
 * revocation, so a retried DELETE is harmless. Another partner's token is "not found".
 */
export async function revokeApiToken(em: EntityManager, caller: Principal, tokenId: string, reasonInput: string | null | undefined, now: Date): Promise<RevocationOutcome> {
  const token = await apiTokens.byId(em, tokenId);
  if (!token || !actsFor(caller, token.partnerGpid)) throw new DomainError('NOT_FOUND', `No token ${tokenId} is visible to this credential.`);
  if (token.revokedAt) {
    return { revocation: { tokenId: token.id, partnerGpid: token.partnerGpid, revokedAt: token.revokedAt, reason: token.revokedReason ?? 'partner_request' }, eventId: null };
  }
  const reason = readRevocationReason(reasonInput, caller, token.partnerGpid);
  token.revokedAt = now;
  token.revokedReason = reason;
  const revocation: Revocation = { tokenId: token.id, partnerGpid: token.partnerGpid, revokedAt: now, reason };
  const eventId = recordTokenRevoked(em, revocation);
  await em.flush();
  return { revocation, eventId };
}

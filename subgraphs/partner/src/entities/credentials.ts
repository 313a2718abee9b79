import type { EntityManager } from '@mikro-orm/core';
import { apiTokens } from './api-tokens.js';
import { portalSessions } from './portal-sessions.js';

/** What the gateway needs to turn a presented opaque secret into a principal. */
export interface CredentialRecord {
  /** tok_… for an API token, ses_… for a portal session. */
  id: string;
  partnerGpid: string;
  principalKind: 'partner' | 'service' | 'portal';
  scopes: string[];
  expiresAt: Date | null;
  revoked: boolean;
}

/** Opaque bearer secrets: API tokens and portal sessions share one lookup by secret hash. */
export const credentials = {
  async bySecretHash(em: EntityManager, secretHash: string): Promise<CredentialRecord | null> {
    const token = await apiTokens.bySecretHash(em, secretHash);
    if (token) {
      return { id: token.id, partnerGpid: token.partnerGpid, principalKind: token.principalKind, scopes: token.scopes, expiresAt: token.expiresAt, revoked: token.revokedAt !== null };
    }
    const session = await portalSessions.bySecretHash(em, secretHash);
    if (session) {
      return { id: session.id, partnerGpid: session.partnerGpid, principalKind: 'portal', scopes: session.scopes, expiresAt: session.expiresAt, revoked: session.revokedAt !== null };
    }
    return null;
  },
};

import type { EntityManager } from '@mikro-orm/core';
import { actsFor, DomainError, newSecret, sha256Hex, validationError, type Principal } from '@svc/platform';
import type { OAuthClient } from '../entities/oauth-client.js';
import { oauthClients } from '../entities/oauth-clients.js';

/** The longest a replaced secret may stay accepted: one day, enough to roll a fleet, short enough to end a leak. */
export const MAX_PREVIOUS_SECRET_GRACE_SECONDS = 86_400;

/** A client with its new secret: shown in this answer only. */
export interface RotatedClientSecret {
  client: OAuthClient;
  clientSecret: string;
  /** Until when the replaced secret is still accepted; null when it stopped at once. */
  previousSecretExpiresAt: Date | null;
}

function readGrace(value: number | null | undefined): number {
  const grace = value ?? 0;
  if (!Number.isInteger(grace) || grace < 0 || grace > MAX_PREVIOUS_SECRET_GRACE_SECONDS) {
    throw validationError([{ field: 'previous_secret_valid_for_seconds', message: `must be an integer from 0 to ${MAX_PREVIOUS_SECRET_GRACE_SECONDS}` }]);
  }
  return grace;
}

/**
 * Give a secret client (client_secret_basic / client_secret_post) a new secret. The old one stops
 * being accepted at once, or after `graceSeconds` (at most a day) so running instances can switch
 * over; a secret replaced earlier and still in its grace period ends now. Access tokens already
 * issued keep their expiry: revoke the client to end them at once. Call inside a transaction.
 */
export async function rotateOAuthClientSecret(em: EntityManager, caller: Principal, clientId: string, graceSeconds: number | null | undefined, now: Date): Promise<RotatedClientSecret> {
  const grace = readGrace(graceSeconds);
  const client = await oauthClients.byId(em, clientId);
  if (!client || !actsFor(caller, client.partnerGpid)) throw new DomainError('NOT_FOUND', `No OAuth client ${clientId} is visible to this credential.`);
  if (client.revokedAt) throw new DomainError('CONFLICT', `OAuth client ${clientId} is revoked; register a new client instead.`);
  if (client.secretHash === null) {
    throw new DomainError('CONFLICT', `OAuth client ${clientId} authenticates with ${client.tokenEndpointAuthMethod} and has no secret; register a client with new keys instead.`);
  }
  const clientSecret = newSecret('svc_cs');
  const previousSecretExpiresAt = grace > 0 ? new Date(now.getTime() + grace * 1000) : null;
  client.previousSecretHash = previousSecretExpiresAt ? client.secretHash : null;
  client.previousSecretExpiresAt = previousSecretExpiresAt;
  client.secretHash = sha256Hex(clientSecret);
  client.secretRotatedAt = now;
  await em.flush();
  return { client, clientSecret, previousSecretExpiresAt };
}

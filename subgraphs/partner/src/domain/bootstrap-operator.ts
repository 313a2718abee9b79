import type { EntityManager } from '@mikro-orm/core';
import { ALL_SCOPES, newId, sha256Hex, type Logger } from '@svc/platform';
import { ApiTokenEntity } from '../entities/api-token.js';
import { partners, OPERATOR_PARTNER_GPID } from '../entities/partners.js';
import { recordTokenRevoked } from './credential-revocation.js';

/** The name of the credential SVC_BOOTSTRAP_TOKEN makes; with the operator partner and no creator, it marks it. */
export const BOOTSTRAP_TOKEN_NAME = 'Bootstrap operator';

/**
 * First-run setup: make sure an operator credential with this secret and every scope exists, so a
 * new installation (and a black-box test) can act as administrator without touching the database.
 * Safe to run on every start and from several replicas at once.
 */
export async function ensureBootstrapOperator(em: EntityManager, secret: string, logger: Logger): Promise<void> {
  const secretHash = sha256Hex(secret);
  await em.transactional(async (tx) => {
    if (!(await partners.byGpid(tx, OPERATOR_PARTNER_GPID))) {
      await partners.create(tx, { legalName: 'Platform Operator', organizationType: 'OTHER' }, OPERATOR_PARTNER_GPID);
      // The token row references the partner; the unit of work does not know that order.
      await tx.flush();
    }
    const existing = await tx.findOne(ApiTokenEntity, { secretHash });
    if (existing?.revokedAt) {
      // A revoked credential stays revoked: an operator who revoked it meant it. Rotate the secret instead.
      logger.error({ tokenId: existing.id }, 'SVC_BOOTSTRAP_TOKEN names a revoked credential; set a new secret');
      return;
    }
    if (existing) return;
    tx.create(ApiTokenEntity, {
      id: newId('tok'),
      partnerGpid: OPERATOR_PARTNER_GPID,
      name: BOOTSTRAP_TOKEN_NAME,
      scopes: [ALL_SCOPES],
      secretHash,
      principalKind: 'service',
      createdAt: new Date(),
      expiresAt: null,
      revokedAt: null,
      revokedReason: null,
    });
    logger.warn('bootstrap operator credential created from SVC_BOOTSTRAP_TOKEN');
  }).catch(async (err: unknown) => {
    // Another replica created it at the same moment: the unique hash makes that the only race.
    if (await em.fork().findOne(ApiTokenEntity, { secretHash })) return;
    throw err;
  });
}

/**
 * Production without SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION: a bootstrap credential that an earlier run
 * stored (in a sandbox, or while production allowed it) must not keep working. Revoke every active
 * one, with partner.token.revoked so every gateway evicts it at once, and say so in the log.
 * Returns how many were revoked; revoking none changes nothing.
 */
export async function revokeStoredBootstrapOperators(em: EntityManager, logger: Logger, now: Date = new Date()): Promise<number> {
  return em.transactional(async (tx) => {
    const stored = await tx.find(ApiTokenEntity, { partnerGpid: OPERATOR_PARTNER_GPID, name: BOOTSTRAP_TOKEN_NAME, principalKind: 'service', createdBy: null, revokedAt: null });
    for (const token of stored) {
      token.revokedAt = now;
      token.revokedReason = 'admin_action';
      recordTokenRevoked(tx, { tokenId: token.id, partnerGpid: token.partnerGpid, revokedAt: now, reason: 'admin_action' });
      logger.warn(
        { tokenId: token.id },
        'bootstrap operator credential revoked: production refuses it unless SVC_ALLOW_BOOTSTRAP_IN_PRODUCTION=true',
      );
    }
    return stored.length;
  });
}

import type { EntityManager } from '@mikro-orm/core';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { makeEvent, newId, recordEvent, type Logger } from '@svc/platform';
import { SigningKeyEntity, type SigningKey } from '../entities/signing-key.js';
import { signingKeys } from '../entities/signing-keys.js';
import { ACCESS_TOKEN_POLICY, RETIRED_KEY_PUBLISH_SECONDS } from './access-token-policy.js';
import { openSealed, sealSecret } from './key-sealing.js';

/** The key new access tokens are signed with. */
export interface ActiveSigningKey {
  kid: string;
  alg: string;
  privateKey: CryptoKey;
}

/** Announces a new current key, so verifiers refetch the JWKS before they meet its first token. */
export const SIGNING_KEY_ROTATED_EVENT = 'partner.signing_key.rotated';

/** A public JWK as published in the JWKS. */
export type PublishedJwk = JWK & { kid: string; alg: string; use: 'sig' };

/**
 * The access-token signing keys of the partner subgraph, stored in its database with the private
 * half sealed (key-sealing.ts) under a key derived from the deployment's shared secret. One
 * instance per subgraph process; it caches opened private keys by kid, never the choice of the
 * current key, so a rotation made by another replica takes effect at its next token.
 */
export class SigningKeyRing {
  private readonly opened = new Map<string, CryptoKey>();

  constructor(
    private readonly sealingSecret: string,
    private readonly logger: Logger,
    private readonly publishCommitted: () => void,
  ) {}

  /**
   * The current key, made on first use. A current key this process cannot open (the shared
   * secret changed, or an embedded restart drew a new one) is retired and replaced: its public
   * half stays published, so the tokens it signed stay verifiable until they expire.
   */
  async current(em: EntityManager, now: Date): Promise<ActiveSigningKey> {
    const row = await signingKeys.current(em);
    if (row) {
      const privateKey = await this.open(row);
      if (privateKey) return { kid: row.kid, alg: row.alg, privateKey };
      this.logger.warn({ kid: row.kid }, 'the current signing key cannot be opened with this deployment secret; rotating');
    }
    return this.rotate(em, now);
  }

  /**
   * Make a new current key and retire every other: the retired ones stay in the JWKS for
   * {@link RETIRED_KEY_PUBLISH_SECONDS}, the longest a token they signed can live.
   */
  async rotate(em: EntityManager, now: Date): Promise<ActiveSigningKey> {
    const { publicKey, privateKey } = await generateKeyPair(ACCESS_TOKEN_POLICY.algorithm, { extractable: true });
    const kid = newId('sig', now.getTime());
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ACCESS_TOKEN_POLICY.algorithm, use: 'sig' };
    const sealed = sealSecret(JSON.stringify(await exportJWK(privateKey)), this.sealingSecret, kid);
    await em.transactional(async (tx) => {
      for (const old of await signingKeys.unretired(tx)) {
        old.retiredAt = now;
        old.publishedUntil = new Date(now.getTime() + RETIRED_KEY_PUBLISH_SECONDS * 1000);
      }
      tx.create(SigningKeyEntity, { kid, alg: ACCESS_TOKEN_POLICY.algorithm, publicJwk, sealedPrivateJwk: sealed, createdAt: now, retiredAt: null, publishedUntil: null });
      recordEvent(tx, makeEvent(SIGNING_KEY_ROTATED_EVENT, null, { event: SIGNING_KEY_ROTATED_EVENT, kid, rotated_at: now.toISOString() }, now));
    });
    this.publishCommitted();
    this.opened.set(kid, privateKey);
    this.logger.info({ kid }, 'access-token signing key rotated');
    return { kid, alg: ACCESS_TOKEN_POLICY.algorithm, privateKey };
  }

  /** The public keys verifiers need: the current one and retired ones still inside their window. */
  async published(em: EntityManager, now: Date): Promise<{ row: SigningKey; jwk: PublishedJwk }[]> {
    const rows = await signingKeys.published(em, now);
    return rows.map((row) => ({ row, jwk: { ...row.publicJwk, kid: row.kid, alg: row.alg, use: 'sig' } as PublishedJwk }));
  }

  private async open(row: SigningKey): Promise<CryptoKey | null> {
    const cached = this.opened.get(row.kid);
    if (cached) return cached;
    const json = openSealed(row.sealedPrivateJwk, this.sealingSecret, row.kid);
    if (json === null) return null;
    const key = (await importJWK(JSON.parse(json) as JWK, row.alg)) as CryptoKey;
    this.opened.set(row.kid, key);
    return key;
  }
}

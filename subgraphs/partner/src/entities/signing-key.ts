import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** An access-token signing key pair. The private half is stored sealed (AES-256-GCM), never in clear. */
export interface SigningKey {
  /** sig_…, also the JWS `kid`. */
  kid: string;
  alg: string;
  publicJwk: Record<string, unknown>;
  sealedPrivateJwk: string;
  createdAt: Date;
  /** When a newer key took over; null while this is the current key. */
  retiredAt: Date | null;
  /** The JWKS lists the key until tokens it signed have all expired; null while current. */
  publishedUntil: Date | null;
}

export const SigningKeyEntity = new EntitySchema<SigningKey>({
  name: 'SigningKey',
  tableName: 'partner_signing_keys',
  properties: {
    kid: { type: 'string', primary: true },
    alg: { type: 'string' },
    publicJwk: { type: 'json' },
    sealedPrivateJwk: { type: 'text' },
    createdAt: { type: DateTimeType },
    retiredAt: { type: DateTimeType, nullable: true },
    publishedUntil: { type: DateTimeType, nullable: true },
  },
});

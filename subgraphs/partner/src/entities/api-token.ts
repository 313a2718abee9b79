import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/**
 * A scoped API credential. The secret itself is never stored: only its SHA-256, which is also the
 * lookup key when a request presents the secret.
 */
export interface ApiToken {
  id: string;
  partnerGpid: string;
  name: string;
  scopes: string[];
  secretHash: string;
  /** `service` for platform-operated credentials such as the bootstrap operator. */
  principalKind: 'partner' | 'service';
  createdAt: Date;
  expiresAt: Date | null;
  revokedAt: Date | null;
  revokedReason: string | null;
  /** The credential (tok_…, ses_… or cli_…) that created this one; null for platform-made ones. */
  createdBy?: string | null;
  /** When the token last authenticated a request (written at most about once a minute per token). */
  lastUsedAt?: Date | null;
  /** `GET /cms/tokens`: the method and route template of that request. */
  lastUsedRoute?: string | null;
}

export const ApiTokenEntity = new EntitySchema<ApiToken>({
  name: 'ApiToken',
  tableName: 'partner_api_tokens',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    name: { type: 'string' },
    scopes: { type: 'json' },
    secretHash: { type: 'string', unique: true },
    principalKind: { type: 'string' },
    createdAt: { type: DateTimeType },
    expiresAt: { type: DateTimeType, nullable: true },
    revokedAt: { type: DateTimeType, nullable: true },
    revokedReason: { type: 'string', nullable: true },
    createdBy: { type: 'string', nullable: true },
    lastUsedAt: { type: DateTimeType, nullable: true },
    lastUsedRoute: { type: 'string', nullable: true },
  },
});

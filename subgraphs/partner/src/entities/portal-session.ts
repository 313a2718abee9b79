import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** A portal sign-in: an opaque bearer secret (stored as its SHA-256) with a fixed lifetime. */
export interface PortalSession {
  /** ses_… */
  id: string;
  partnerGpid: string;
  secretHash: string;
  /** The session scopes of the partner's grant (see domain/partner-scopes.ts): set at sign-in and again whenever an operator changes the grant. */
  scopes: string[];
  clientAddress: string | null;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export const PortalSessionEntity = new EntitySchema<PortalSession>({
  name: 'PortalSession',
  tableName: 'partner_portal_sessions',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    secretHash: { type: 'string', unique: true },
    scopes: { type: 'json' },
    clientAddress: { type: 'string', nullable: true },
    createdAt: { type: DateTimeType },
    expiresAt: { type: DateTimeType },
    revokedAt: { type: DateTimeType, nullable: true },
    revokedReason: { type: 'string', nullable: true },
  },
});

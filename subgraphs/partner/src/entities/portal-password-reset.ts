import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/**
 * An operator-issued, single-use reset of a portal account's password (the platform sends no
 * e-mail, so an operator hands the link to the partner). Only the SHA-256 of the link's secret is
 * kept.
 */
export interface PortalPasswordReset {
  /** pwr_… */
  id: string;
  partnerGpid: string;
  tokenHash: string;
  /** The operator credential that issued it. */
  issuedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
  /** When the link was used, or superseded by a newer one; it works only while null. */
  usedAt: Date | null;
}

export const PortalPasswordResetEntity = new EntitySchema<PortalPasswordReset>({
  name: 'PortalPasswordReset',
  tableName: 'partner_portal_password_resets',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    tokenHash: { type: 'string', unique: true },
    issuedBy: { type: 'string', nullable: true },
    createdAt: { type: DateTimeType },
    expiresAt: { type: DateTimeType },
    usedAt: { type: DateTimeType, nullable: true },
  },
});

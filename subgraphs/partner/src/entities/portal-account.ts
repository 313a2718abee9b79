import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** A partner's portal sign-in: one per partner, an e-mail address and an argon2id password hash. */
export interface PortalAccount {
  partnerGpid: string;
  /** Canonical (trimmed, lower-case) address; unique across partners. */
  email: string;
  /** PHC-format argon2id hash; the password itself is never stored. */
  passwordHash: string;
  createdAt: Date;
  passwordChangedAt: Date;
  lastLoginAt: Date | null;
}

export const PortalAccountEntity = new EntitySchema<PortalAccount>({
  name: 'PortalAccount',
  tableName: 'partner_portal_accounts',
  properties: {
    partnerGpid: { type: 'string', primary: true },
    email: { type: 'string', unique: true },
    passwordHash: { type: 'string' },
    createdAt: { type: DateTimeType },
    passwordChangedAt: { type: DateTimeType },
    lastLoginAt: { type: DateTimeType, nullable: true },
  },
});

import { EntitySchema } from '@mikro-orm/core';

export const IDENTITY_STATUSES = ['ACTIVE', 'SHADOW', 'PROVISIONAL', 'CONFLICT', 'MERGED', 'SPLIT'] as const;
export type IdentityStatus = (typeof IDENTITY_STATUSES)[number];

/** A golden record of the GPID registry. Demographics are never stored in clear. */
export interface IdentityRecord {
  gpid: string;
  entityType: string;
  status: IdentityStatus;
  /** The survivor a MERGED record points to. */
  survivorGpid: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export const IdentityRecordEntity = new EntitySchema<IdentityRecord>({
  name: 'IdentityRecord',
  tableName: 'identity_records',
  properties: {
    gpid: { type: 'string', primary: true },
    entityType: { type: 'string' },
    status: { type: 'string' },
    survivorGpid: { type: 'string', nullable: true },
    createdAt: { type: 'datetime' },
    updatedAt: { type: 'datetime' },
  },
});

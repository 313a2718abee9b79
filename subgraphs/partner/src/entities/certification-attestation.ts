import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** A partner's checkbox for an attested certification item (one per partner and item id). */
export interface CertificationAttestation {
  partnerGpid: string;
  itemId: string;
  checked: boolean;
  /** Credential that last changed the checkbox. */
  updatedBy: string | null;
  updatedAt: Date;
}

export const CertificationAttestationEntity = new EntitySchema<CertificationAttestation>({
  name: 'CertificationAttestation',
  tableName: 'partner_certification_attestations',
  properties: {
    partnerGpid: { type: 'string', primary: true },
    itemId: { type: 'string', primary: true },
    checked: { type: 'boolean' },
    updatedBy: { type: 'string', nullable: true },
    updatedAt: { type: DateTimeType },
  },
});

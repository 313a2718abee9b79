import { EntitySchema } from '@mikro-orm/core';

export type PartnerStatus = 'active' | 'suspended';

/** An onboarded partner organization, known by its CMS GPID. */
export interface Partner {
  gpid: string;
  legalName: string;
  organizationType: string;
  status: PartnerStatus;
  createdAt: Date;
}

export const PartnerEntity = new EntitySchema<Partner>({
  name: 'Partner',
  tableName: 'partner_partners',
  properties: {
    gpid: { type: 'string', primary: true },
    legalName: { type: 'string' },
    organizationType: { type: 'string' },
    status: { type: 'string' },
    createdAt: { type: 'datetime' },
  },
});

import { DateTimeType, EntitySchema, type Opt } from '@mikro-orm/core';
import { defaultGrantFor } from '../domain/partner-scopes.js';

export type PartnerStatus = 'active' | 'suspended';

/** An onboarded partner organization, known by its CMS GPID. */
export interface Partner {
  gpid: string;
  legalName: string;
  organizationType: string;
  status: PartnerStatus;
  createdAt: Date;
  /**
   * The scopes this partner holds: the ceiling of every credential issued to it (API tokens, OAuth
   * clients, portal sessions). Defaults to the partner grant when a partner is created.
   */
  grantedScopes: Opt<string[]>;
}

export const PartnerEntity = new EntitySchema<Partner>({
  name: 'Partner',
  tableName: 'partner_partners',
  properties: {
    gpid: { type: 'string', primary: true },
    legalName: { type: 'string' },
    organizationType: { type: 'string' },
    status: { type: 'string' },
    createdAt: { type: DateTimeType },
    grantedScopes: { type: 'json', onCreate: (partner: Partner) => defaultGrantFor(partner.gpid) },
  },
});

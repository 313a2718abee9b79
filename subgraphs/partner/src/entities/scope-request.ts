import { DateTimeType, EntitySchema } from '@mikro-orm/core';

export type ScopeRequestStatus = 'pending' | 'granted' | 'refused';

/** A partner's request for scopes it does not hold, with its reason and the operator's decision. */
export interface ScopeRequest {
  /** scr_… */
  id: string;
  partnerGpid: string;
  /** Catalog scopes (or narrower), none held when requested. */
  scopes: string[];
  reason: string;
  status: ScopeRequestStatus;
  /** The credential that asked (ses_…, tok_…, cli_…), when there was one. */
  requestedBy: string | null;
  createdAt: Date;
  /** The operator credential that decided. */
  decidedBy: string | null;
  decisionReason: string | null;
  decidedAt: Date | null;
}

export const ScopeRequestEntity = new EntitySchema<ScopeRequest>({
  name: 'ScopeRequest',
  tableName: 'partner_scope_requests',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    scopes: { type: 'json' },
    reason: { type: 'text' },
    status: { type: 'string' },
    requestedBy: { type: 'string', nullable: true },
    createdAt: { type: DateTimeType },
    decidedBy: { type: 'string', nullable: true },
    decisionReason: { type: 'text', nullable: true },
    decidedAt: { type: DateTimeType, nullable: true },
  },
});

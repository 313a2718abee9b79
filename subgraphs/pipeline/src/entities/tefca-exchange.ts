import { DateTimeType, EntitySchema } from '@mikro-orm/core';
import type { TefcaCommunityOutcome } from '@svc/platform';

/** One TEFCA exchange of the audit log (a projection of its `tefca.*` event; never updated). */
export interface TefcaExchangeRow {
  id: string;
  eventId: string;
  eventType: string;
  partnerGpid: string | null;
  credentialId: string | null;
  kind: string;
  direction: string;
  purposeOfUse: string | null;
  requestingCommunityId: string | null;
  respondingCommunityIds: string[];
  communities: TefcaCommunityOutcome[];
  outcome: string;
  resultCount: number;
  errorCode: string | null;
  requestId: string;
  startedAt: Date;
  durationMs: number;
  recordedAt: Date;
}

export const TefcaExchangeEntity = new EntitySchema<TefcaExchangeRow>({
  name: 'TefcaExchange',
  tableName: 'pipeline_tefca_exchanges',
  properties: {
    id: { type: 'string', primary: true },
    eventId: { type: 'string' },
    eventType: { type: 'string' },
    partnerGpid: { type: 'string', nullable: true },
    credentialId: { type: 'string', nullable: true },
    kind: { type: 'string' },
    direction: { type: 'string' },
    purposeOfUse: { type: 'string', nullable: true },
    requestingCommunityId: { type: 'string', nullable: true },
    respondingCommunityIds: { type: 'json' },
    communities: { type: 'json' },
    outcome: { type: 'string' },
    resultCount: { type: 'integer' },
    errorCode: { type: 'string', nullable: true },
    requestId: { type: 'string' },
    startedAt: { type: DateTimeType },
    durationMs: { type: 'integer' },
    recordedAt: { type: DateTimeType },
  },
});

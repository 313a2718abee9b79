import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** Every platform event, as the pipeline's event log keeps it (idempotent by event id). */
export interface LoggedEvent {
  id: string;
  type: string;
  partnerGpid: string | null;
  occurredAt: Date;
  data: Record<string, unknown>;
  recordedAt: Date;
}

export const LoggedEventEntity = new EntitySchema<LoggedEvent>({
  name: 'LoggedEvent',
  tableName: 'pipeline_events',
  properties: {
    id: { type: 'string', primary: true },
    type: { type: 'string' },
    partnerGpid: { type: 'string', nullable: true },
    occurredAt: { type: DateTimeType },
    data: { type: 'json' },
    recordedAt: { type: DateTimeType },
  },
});

import { DateTimeType, EntitySchema } from '@mikro-orm/core';

/** Why an endpoint stopped receiving: its receiver answered 410 Gone, or every attempt of a delivery failed. */
/** Why an endpoint is disabled: its receiver answered 410 Gone, it kept failing, or its partner disabled it. */
export type WebhookDisabledReason = 'gone' | 'persistent_failure' | 'partner';

/** A partner's webhook endpoint (whk_…). Removal is soft so the delivery log outlives it. */
export interface Webhook {
  id: string;
  partnerGpid: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  /** whsec_…: needed in clear to sign, so it is stored as is and only ever shown at creation or rotation. */
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  disabledReason: WebhookDisabledReason | null;
  disabledAt: Date | null;
  /** The last 2xx answer: an endpoint is disabled only when nothing succeeded during a whole failed schedule. */
  lastSuccessAt: Date | null;
  /** When the endpoint last accepted a signed test.ping and refused the mis-signed probe (4xx); null after its URL changes. */
  signatureVerifiedAt: Date | null;
  createdAt: Date;
  removedAt: Date | null;
}

export const WebhookEntity = new EntitySchema<Webhook>({
  name: 'Webhook',
  tableName: 'pipeline_webhooks',
  properties: {
    id: { type: 'string', primary: true },
    partnerGpid: { type: 'string' },
    url: { type: 'text' },
    description: { type: 'string', nullable: true },
    eventTypes: { type: 'json' },
    secret: { type: 'string', hidden: true },
    previousSecret: { type: 'string', nullable: true, hidden: true },
    previousSecretExpiresAt: { type: DateTimeType, nullable: true },
    enabled: { type: 'boolean' },
    disabledReason: { type: 'string', nullable: true },
    disabledAt: { type: DateTimeType, nullable: true },
    lastSuccessAt: { type: DateTimeType, nullable: true },
    signatureVerifiedAt: { type: DateTimeType, nullable: true },
    createdAt: { type: DateTimeType },
    removedAt: { type: DateTimeType, nullable: true },
  },
});

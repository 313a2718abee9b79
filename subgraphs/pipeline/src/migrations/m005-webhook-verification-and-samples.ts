import { SchemaMigration } from '@svc/platform';

/**
 * What the portal's webhook page needs to tell the truth and to test an endpoint:
 * - `pipeline_webhooks.signature_verified_at`: when the endpoint last showed that it verifies
 *   signatures (it accepted a signed test.ping and refused the same body under a wrong key with 4xx);
 *   null until then, and again after its URL changes.
 * - `pipeline_webhook_attempts.probe_status_code`: the answer to that mis-signed probe, on the
 *   test.ping attempt that sent one (null on every other attempt).
 * - `pipeline_webhook_deliveries.sample`: a sample delivery of a catalog event type, sent on request
 *   (one attempt, like test.ping; not an event that happened).
 * - an index for the per-endpoint success rate over the attempts of the last 24 h.
 */
export class M005WebhookVerificationAndSamples extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s
        .alterTable('pipeline_webhooks', (t) => {
          t.timestamp('signature_verified_at', { useTz: true }).nullable();
        })
        .alterTable('pipeline_webhook_attempts', (t) => {
          t.integer('probe_status_code').nullable();
          t.index(['attempted_at'], 'pipeline_webhook_attempts_at_idx');
        })
        .alterTable('pipeline_webhook_deliveries', (t) => {
          t.boolean('sample').notNullable().defaultTo(false);
        }),
    );
  }
}

export const m005 = { name: 'm005-webhook-verification-and-samples', class: M005WebhookVerificationAndSamples };

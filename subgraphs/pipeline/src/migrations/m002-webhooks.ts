import { SchemaMigration } from '@svc/platform';

/** Webhook endpoints, their deliveries (one per event and endpoint) and every delivery attempt. */
export class M002Webhooks extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('pipeline_webhooks', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable();
        t.text('url').notNullable();
        t.string('description', 200).nullable();
        t.json('event_types').notNullable();
        t.string('secret', 100).notNullable();
        t.string('previous_secret', 100).nullable();
        t.timestamp('previous_secret_expires_at', { useTz: true }).nullable();
        t.boolean('enabled').notNullable();
        t.string('disabled_reason', 40).nullable();
        t.timestamp('disabled_at', { useTz: true }).nullable();
        t.timestamp('last_success_at', { useTz: true }).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('removed_at', { useTz: true }).nullable();
        t.index(['partner_gpid', 'id'], 'pipeline_webhooks_partner_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('pipeline_webhook_deliveries', (t) => {
        t.string('id', 40).primary();
        t.string('webhook_id', 40).notNullable();
        t.string('partner_gpid', 12).notNullable();
        t.string('event_id', 40).notNullable();
        t.string('event_type', 100).notNullable();
        t.text('payload').notNullable();
        t.string('status', 20).notNullable();
        t.integer('attempts').notNullable();
        t.integer('retry_index').notNullable();
        t.integer('max_attempts').notNullable();
        t.timestamp('next_attempt_at', { useTz: true }).nullable();
        t.string('claim', 40).nullable();
        t.timestamp('lease_until', { useTz: true }).nullable();
        t.integer('last_status_code').nullable();
        t.string('last_error', 200).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('first_attempt_at', { useTz: true }).nullable();
        t.timestamp('completed_at', { useTz: true }).nullable();
        t.unique(['event_id', 'webhook_id'], { indexName: 'pipeline_webhook_deliveries_event_uq' });
        t.index(['status', 'next_attempt_at'], 'pipeline_webhook_deliveries_due_idx');
        t.index(['webhook_id', 'id'], 'pipeline_webhook_deliveries_webhook_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('pipeline_webhook_attempts', (t) => {
        t.string('delivery_id', 40).notNullable();
        t.integer('attempt').notNullable();
        t.string('trigger', 20).notNullable();
        t.timestamp('attempted_at', { useTz: true }).notNullable();
        t.integer('status_code').nullable();
        t.integer('latency_ms').notNullable();
        t.string('response_excerpt', 1100).nullable();
        t.string('error', 200).nullable();
        t.timestamp('next_retry_at', { useTz: true }).nullable();
        t.primary(['delivery_id', 'attempt']);
      }),
    );
  }
}

export const m002 = { name: 'm002-webhooks', class: M002Webhooks };

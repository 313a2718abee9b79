import { SchemaMigration } from '@svc/platform';

/**
 * Each partner's log of its own recent API requests (bounded by time and count, pruned by the
 * partner subgraph's job), and when and for what each API token was last used.
 */
export class M008RequestLog extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('partner_request_log', (t) => {
        t.bigIncrements('id').primary();
        t.string('partner_gpid', 12).notNullable();
        // Epoch milliseconds: compared and ordered the same way on both dialects.
        t.bigInteger('occurred_at_ms').notNullable();
        t.string('method', 10).notNullable();
        t.string('route', 200).notNullable();
        t.integer('status').notNullable();
        t.string('request_id', 100).notNullable();
        t.integer('latency_ms').notNullable();
        t.string('credential_id', 40).nullable();
        t.string('credential_kind', 20).notNullable();
        t.index(['partner_gpid', 'id'], 'partner_request_log_partner_idx');
        t.index(['occurred_at_ms'], 'partner_request_log_time_idx');
      }),
    );
    this.schema((s) =>
      s.alterTable('partner_api_tokens', (t) => {
        t.timestamp('last_used_at', { useTz: true }).nullable();
        t.string('last_used_route', 220).nullable();
      }),
    );
  }
}

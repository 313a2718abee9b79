import { SchemaMigration, createOutboxTable } from '@svc/platform';

export class M001SyncJobsAndEventLog extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'pipeline'));
    this.schema((s) =>
      s.createTable('pipeline_sync_jobs', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable();
        t.json('resource_types').notNullable();
        t.string('status', 20).notNullable();
        t.integer('records_processed').notNullable();
        t.integer('attempts').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('completed_at', { useTz: true }).nullable();
        t.timestamp('failed_at', { useTz: true }).nullable();
        t.string('error_code', 60).nullable();
        t.text('message').nullable();
        t.index(['partner_gpid', 'id'], 'pipeline_sync_jobs_partner_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('pipeline_events', (t) => {
        t.string('id', 40).primary();
        t.string('type', 100).notNullable();
        t.string('partner_gpid', 12).nullable();
        t.timestamp('occurred_at', { useTz: true }).notNullable();
        t.json('data').notNullable();
        t.timestamp('recorded_at', { useTz: true }).notNullable();
        t.index(['partner_gpid', 'id'], 'pipeline_events_partner_idx');
      }),
    );
  }
}

export const migrations = [{ name: 'm001-sync-jobs-and-event-log', class: M001SyncJobsAndEventLog }];

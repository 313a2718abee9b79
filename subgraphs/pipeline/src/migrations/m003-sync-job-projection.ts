import { SchemaMigration } from '@svc/platform';

/**
 * pipeline_sync_jobs becomes the projection of every sync job (the fhir subgraph's asynchronous
 * submissions, from their pipeline.sync.* events, and the jobs operators record by hand): what
 * kind of job, the last applied event's sequence (projections apply events monotonically), when it
 * started and last changed, and when a retry is due; plus an index for the windowed metrics.
 */
export class M003SyncJobProjection extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('pipeline_sync_jobs', (t) => {
        t.string('kind', 16).nullable();
        t.integer('entries').nullable();
        t.integer('sequence').notNullable().defaultTo(0);
        t.timestamp('started_at', { useTz: true }).nullable();
        t.timestamp('updated_at', { useTz: true }).nullable();
        t.timestamp('next_attempt_at', { useTz: true }).nullable();
        t.index(['partner_gpid', 'created_at'], 'pipeline_sync_jobs_window_idx');
      }),
    );
  }
}

import { SchemaMigration } from '@svc/platform';

/**
 * Bulk Data $export: durable jobs, and their NDJSON output as files made of chunks in the database
 * (one chunk per page read), so the job, its cursor and its output commit together and any fhir
 * process or the facade can serve the files without a shared disk.
 */
export class M003BulkExport extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_export_jobs', (t) => {
        t.string('id', 36).primary();
        /** The partner that asked; only it may poll, download or cancel. */
        t.string('partner_gpid', 40).notNullable();
        /** An operator's export covers every partner's resources. */
        t.boolean('covers_all').notNullable();
        t.string('level', 16).notNullable();
        t.string('group_id', 64).nullable();
        t.text('types').notNullable();
        t.string('since', 24).nullable();
        t.string('output_format', 40).notNullable();
        t.text('request_url').notNullable();
        t.string('transaction_time', 24).notNullable();
        /** accepted | running | completed | failed */
        t.string('state', 16).notNullable();
        /** Where the next page starts: JSON { type, lastUpdated, id }. */
        t.text('cursor').nullable();
        t.integer('exported').notNullable();
        t.string('worker_id', 40).nullable();
        t.string('heartbeat_at', 24).nullable();
        t.text('error').nullable();
        t.string('created_at', 24).notNullable();
        t.string('completed_at', 24).nullable();
        t.index(['state', 'created_at'], 'fhir_export_jobs_state_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_export_files', (t) => {
        t.string('job_id', 36).notNullable();
        t.integer('file_index').notNullable();
        t.string('resource_type', 64).notNullable();
        t.integer('count').notNullable();
        t.integer('chunks').notNullable();
        t.primary(['job_id', 'file_index']);
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_export_chunks', (t) => {
        t.string('job_id', 36).notNullable();
        t.integer('file_index').notNullable();
        t.integer('seq').notNullable();
        t.text('data').notNullable();
        t.primary(['job_id', 'file_index', 'seq']);
      }),
    );
  }
}

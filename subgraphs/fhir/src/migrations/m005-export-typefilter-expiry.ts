import { SchemaMigration } from '@svc/platform';

/**
 * $export: the `_typeFilter` queries a job applies per type, and when a finished job's output
 * expires (the background sweep deletes expired jobs with their files).
 */
export class M005ExportTypeFilterExpiry extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('fhir_export_jobs', (t) => {
        /** JSON { Type: [query, …] }: a resource is exported when it matches any query of its type. */
        t.text('type_filters').nullable();
        t.string('expires_at', 24).nullable();
        t.index(['expires_at'], 'fhir_export_jobs_expiry_idx');
      }),
    );
  }
}

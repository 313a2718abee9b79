import { SchemaMigration } from '@svc/platform';

/**
 * Stored analytics queries: the reviewable structured query `/analytics/v1/query/nl` made of a
 * question, kept until it expires so `/analytics/v1/query/execute` can run exactly what was reviewed.
 */
export class M011AnalyticsQueries extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_analytics_queries', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 40).nullable();
        t.text('question').notNullable();
        t.string('purpose_of_use', 16).notNullable();
        /** The StructuredQuery, JSON. */
        t.text('structured_query').notNullable();
        /** The readings (what each phrase was read as) and the one-sentence summary, JSON. */
        t.text('explanation').notNullable();
        t.string('created_at', 24).notNullable();
        t.string('expires_at', 24).notNullable();
        t.index(['partner_gpid', 'created_at'], 'fhir_analytics_queries_partner_idx');
        t.index(['expires_at'], 'fhir_analytics_queries_expiry_idx');
      }),
    );
  }
}

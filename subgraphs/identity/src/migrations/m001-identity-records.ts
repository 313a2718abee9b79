import { SchemaMigration, createOutboxTable } from '@svc/platform';

/** The outbox and a first records table (replaced by m002 before any write path existed). */
export class M001IdentityRecords extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'identity'));
    this.schema((s) =>
      s.createTable('identity_records', (t) => {
        t.string('gpid', 40).primary();
        t.string('entity_type', 40).notNullable();
        t.string('status', 20).notNullable();
        t.string('survivor_gpid', 40).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
      }),
    );
  }
}

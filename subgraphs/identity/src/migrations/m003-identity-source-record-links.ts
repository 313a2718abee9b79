import { SchemaMigration } from '@svc/platform';

/**
 * `identity_source_record_links`: which GPID a partner's source record resolved to, by the
 * record's key (`fhir:Patient/<id>`), under which source origin, with the id of the last request answered, so a redelivered
 * request is answered once (the identity link of FHIR Patients).
 */
export class M003IdentitySourceRecordLinks extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('identity_source_record_links', (t) => {
        t.string('record_key', 120).primary();
        t.string('partner_gpid', 40).nullable();
        t.string('gpid', 40).notNullable();
        t.string('source', 20).notNullable();
        t.string('record_version', 20).notNullable();
        t.string('last_event_id', 40).notNullable();
        t.bigInteger('updated_at').notNullable();
        t.index(['gpid'], 'identity_source_record_links_gpid_idx');
      }),
    );
  }

  override async down(): Promise<void> {
    this.schema((s) => s.dropTableIfExists('identity_source_record_links'));
  }
}

import { SchemaMigration } from '@svc/platform';

/**
 * The identity link of Patients leaves their versioned content: one row per linked Patient holds
 * its current GPID (entities/gpid-link-store.ts), projected onto the Patient on every read. The
 * Patients linked before keep their GPID: it is copied from the search index of their current
 * version (the `identifier` token rows of system `urn:svc:gpid`), whose rows stay as they are.
 */
export class M017PatientGpidLinks extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_patient_gpid_links', (t) => {
        t.string('resource_id', 64).primary();
        t.string('partner_gpid', 64).nullable();
        t.string('gpid', 32).notNullable();
        t.string('linked_at', 24).notNullable();
        t.string('last_event_id', 64).nullable();
        t.index(['gpid'], 'fhir_patient_gpid_links_gpid_idx');
      }),
    );
    this.addSql(
      `insert into "fhir_patient_gpid_links" ("resource_id", "partner_gpid", "gpid", "linked_at", "last_event_id") ` +
        `select r."id", r."partner_gpid", min(t."code"), max(r."last_updated"), null from "fhir_resources" r ` +
        `join "fhir_sp_token" t on t."resource_type" = 'Patient' and t."resource_id" = r."id" and t."param" = 'identifier' and t."system" = 'urn:svc:gpid' ` +
        `where r."resource_type" = 'Patient' and t."code" is not null group by r."id", r."partner_gpid"`,
    );
  }
}

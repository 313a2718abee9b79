import { SchemaMigration } from '@svc/platform';

/** Operator-managed sharing rules: partner `grantee` may read partner `owner`'s resources of some types. */
export class M006SharingRules extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_sharing_rules', (t) => {
        t.string('id', 36).primary();
        t.string('owner_gpid', 40).notNullable();
        t.string('grantee_gpid', 40).notNullable();
        /** JSON array of resource types; null shares every type. */
        t.text('resource_types').nullable();
        t.string('created_by', 40).nullable();
        t.string('created_at', 24).notNullable();
        t.unique(['grantee_gpid', 'owner_gpid'], { indexName: 'fhir_sharing_rules_pair_idx' });
      }),
    );
  }
}

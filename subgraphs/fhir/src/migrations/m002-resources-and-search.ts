import type { Knex } from '@mikro-orm/knex';
import { SchemaMigration } from '@svc/platform';

/** Columns every search-index table shares: which resource, which search parameter. */
function indexOwner(t: Knex.CreateTableBuilder): void {
  t.string('resource_type', 64).notNullable();
  t.string('resource_id', 64).notNullable();
  t.string('param', 100).notNullable();
}

/**
 * The FHIR store: the current version of every resource, every version in history, and one search
 * index table per search-parameter type, filled at write time. Timestamps are ISO 8601 UTC strings
 * of fixed width, so they compare and sort the same on SQLite and PostgreSQL.
 */
export class M002ResourcesAndSearch extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_resources', (t) => {
        t.string('resource_type', 64).notNullable();
        t.string('id', 64).notNullable();
        t.integer('version_id').notNullable();
        t.string('partner_gpid', 40).nullable();
        t.string('last_updated', 24).notNullable();
        t.boolean('deleted').notNullable();
        t.text('content').notNullable();
        t.primary(['resource_type', 'id']);
        t.index(['resource_type', 'last_updated', 'id'], 'fhir_resources_type_updated_idx');
        t.index(['partner_gpid', 'resource_type', 'last_updated'], 'fhir_resources_partner_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_resource_history', (t) => {
        t.string('resource_type', 64).notNullable();
        t.string('id', 64).notNullable();
        t.integer('version_id').notNullable();
        t.string('partner_gpid', 40).nullable();
        t.string('last_updated', 24).notNullable();
        t.boolean('deleted').notNullable();
        t.text('content').nullable();
        t.primary(['resource_type', 'id', 'version_id']);
        t.index(['resource_type', 'last_updated'], 'fhir_history_type_updated_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_string', (t) => {
        indexOwner(t);
        t.string('value', 256).notNullable();
        t.text('exact').notNullable();
        t.index(['resource_type', 'param', 'value'], 'fhir_sp_string_value_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_string_resource_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_token', (t) => {
        indexOwner(t);
        t.string('system', 256).nullable();
        t.string('code', 256).nullable();
        t.string('text', 256).nullable();
        t.index(['resource_type', 'param', 'code', 'system'], 'fhir_sp_token_code_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_token_resource_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_date', (t) => {
        indexOwner(t);
        t.string('low', 24).notNullable();
        t.string('high', 24).notNullable();
        t.index(['resource_type', 'param', 'low', 'high'], 'fhir_sp_date_range_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_date_resource_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_number', (t) => {
        indexOwner(t);
        t.double('value').notNullable();
        t.index(['resource_type', 'param', 'value'], 'fhir_sp_number_value_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_number_resource_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_quantity', (t) => {
        indexOwner(t);
        t.double('value').notNullable();
        t.string('system', 256).nullable();
        t.string('code', 256).nullable();
        t.string('unit', 256).nullable();
        t.index(['resource_type', 'param', 'value'], 'fhir_sp_quantity_value_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_quantity_resource_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_reference', (t) => {
        indexOwner(t);
        t.string('reference', 512).notNullable();
        t.string('target_type', 64).nullable();
        t.string('target_id', 64).nullable();
        t.index(['resource_type', 'param', 'target_id', 'target_type'], 'fhir_sp_reference_target_idx');
        t.index(['resource_type', 'param', 'reference'], 'fhir_sp_reference_value_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_reference_resource_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sp_uri', (t) => {
        indexOwner(t);
        t.string('value', 512).notNullable();
        t.index(['resource_type', 'param', 'value'], 'fhir_sp_uri_value_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_uri_resource_idx');
      }),
    );
  }
}

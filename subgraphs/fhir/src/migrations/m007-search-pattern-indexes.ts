import { SchemaMigration } from '@svc/platform';

/**
 * String search (`name=smit`, a prefix match written `value LIKE 'smit%'`) through an index on
 * PostgreSQL: a plain btree only serves LIKE under the "C" collation, so `varchar_pattern_ops`
 * lets the planner turn the prefix into an index range whatever the database's collation. SQLite
 * needs no new index: the query adds the equivalent byte range itself (see search-query.ts).
 */
export class M007SearchPatternIndexes extends SchemaMigration {
  override async up(): Promise<void> {
    if (!this.postgres) return;
    this.addSql('create index fhir_sp_string_prefix_idx on fhir_sp_string (resource_type, param, value varchar_pattern_ops)');
  }
}

import { SchemaMigration } from '@svc/platform';

/**
 * The token indexes carry the columns their lookups read, so both are answered from the index
 * alone: by code, the resource ids (`code=…` counted or driven: no table read per match); by
 * resource, the parameter, code and system (the `EXISTS` probe of a criterion, once per resource a
 * sorted walk meets). Same leading columns as before, so every query that used them still does.
 *
 * On PostgreSQL, statistics of how param, code and system go together: the planner multiplied
 * their selectivities as if independent and expected 1,007 rows of one LOINC code where 8,105 were
 * stored (100,000 resources), so it drove `code=…&_sort=-date` by the code and sorted every match
 * instead of walking the date index (EXPLAIN ANALYZE: 470 ms against 39 ms).
 */
export class M013SearchTokenCoveringIndexes extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('fhir_sp_token', (t) => {
        t.dropIndex([], 'fhir_sp_token_code_idx');
        t.dropIndex([], 'fhir_sp_token_resource_idx');
      }),
    );
    this.schema((s) =>
      s.alterTable('fhir_sp_token', (t) => {
        t.index(['resource_type', 'param', 'code', 'system', 'resource_id'], 'fhir_sp_token_code_idx');
        t.index(['resource_type', 'resource_id', 'param', 'code', 'system'], 'fhir_sp_token_resource_idx');
      }),
    );
    if (!this.postgres) return;
    this.addSql('create statistics fhir_sp_token_code_stats (dependencies, mcv) on param, code, system from fhir_sp_token');
    this.addSql('analyze fhir_sp_token');
  }
}

import { SchemaMigration } from '@svc/platform';

/**
 * The token indexes carry the columns their lookups read, so both are answered from the index
 * alone: by code, the resource ids (`code=…` counted or driven: no table read per match); by
 * resource, the parameter, code and system (the `EXISTS` probe of a criterion, once per resource a
 * sorted walk meets). Same leading columns as before, so every query that used them still does.
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
  }
}

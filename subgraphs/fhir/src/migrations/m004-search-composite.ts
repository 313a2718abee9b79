import type { Knex } from '@mikro-orm/knex';
import { SchemaMigration } from '@svc/platform';

/** The typed cells of one composite component (which ones are used depends on its parameter type). */
function component(t: Knex.CreateTableBuilder, i: number): void {
  t.string(`c${i}_system`, 256).nullable();
  t.string(`c${i}_code`, 256).nullable();
  t.double(`c${i}_num`).nullable();
  t.string(`c${i}_unit`, 256).nullable();
  t.string(`c${i}_low`, 24).nullable();
  t.string(`c${i}_high`, 24).nullable();
}

/**
 * Composite search parameters (Observation code-value-quantity, component-code-value-concept, …):
 * one row per combination of the two components' values taken from the same element, so
 * `code$value` matches only when both come from one Observation (or one Observation.component).
 */
export class M004SearchComposite extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_sp_composite', (t) => {
        t.string('resource_type', 64).notNullable();
        t.string('resource_id', 64).notNullable();
        t.string('param', 100).notNullable();
        component(t, 0);
        component(t, 1);
        t.index(['resource_type', 'param', 'c0_code', 'c0_system'], 'fhir_sp_composite_first_idx');
        t.index(['resource_type', 'resource_id'], 'fhir_sp_composite_resource_idx');
      }),
    );
  }
}

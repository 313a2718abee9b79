import { SchemaMigration } from '@svc/platform';

/**
 * $export `_elements` (JSON { Type: [element, …] }: the root elements each exported resource keeps)
 * and `patient` (JSON [id, …]: Patient and Group level exports keep only these patients' compartments).
 */
export class M009ExportElementsPatients extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('fhir_export_jobs', (t) => {
        t.text('elements').nullable();
        t.text('patients').nullable();
      }),
    );
  }
}

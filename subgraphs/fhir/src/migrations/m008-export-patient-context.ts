import { SchemaMigration } from '@svc/platform';

/**
 * $export by a credential with a SMART patient launch context: the job remembers the patient, so
 * the worker narrows what it reads to that patient's compartment (null: no patient context).
 */
export class M008ExportPatientContext extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('fhir_export_jobs', (t) => {
        t.string('patient_context', 64).nullable();
      }),
    );
  }
}

import { SchemaMigration } from '@svc/platform';

/**
 * SMART patient launch context: an OAuth client may be registered for one FHIR Patient id, which its
 * access tokens carry as the `patient` claim (null: no patient context).
 */
export class M004OAuthClientPatient extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('partner_oauth_clients', (t) => {
        t.string('patient', 64).nullable();
      }),
    );
  }
}

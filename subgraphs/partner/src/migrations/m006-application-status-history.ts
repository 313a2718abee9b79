import { SchemaMigration } from '@svc/platform';

/**
 * The application status page: each application keeps its history (started, submitted, returned
 * with the reason, approved, rejected with the reason), and its contact e-mail in a column of its
 * own, so that signing in with the application's e-mail and password can find it before there is
 * a portal account.
 */
export class M006ApplicationStatusHistory extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('partner_applications', (t) => {
        t.json('history').nullable();
        t.string('contact_email', 254).nullable();
        t.index(['contact_email', 'id'], 'partner_applications_contact_email_idx');
      }),
    );
  }
}

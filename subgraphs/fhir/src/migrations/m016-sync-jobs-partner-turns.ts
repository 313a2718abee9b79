import { SchemaMigration } from '@svc/platform';

/**
 * The sync-job claim serves partners in turn: the partner whose last job started longest ago goes
 * first (sync-job-store.ts `claim`). This index answers "when did this partner's last job start"
 * from its last entry, however many jobs the table keeps.
 */
export class M016SyncJobsPartnerTurns extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('fhir_sync_jobs', (t) => {
        t.index(['partner_gpid', 'started_at'], 'fhir_sync_jobs_partner_started_idx');
      }),
    );
  }
}

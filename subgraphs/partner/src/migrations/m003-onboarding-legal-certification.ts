import { SchemaMigration } from '@svc/platform';

/**
 * Onboarding applications, BAA e-signatures and certification (evidence, attestations,
 * submissions). Signatures and evidence are append-only: the code has no update path for them.
 */
export class M003OnboardingLegalCertification extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('partner_applications', (t) => {
        t.string('id', 40).primary();
        t.string('status', 20).notNullable();
        t.json('organization').nullable();
        t.json('integration').nullable();
        t.json('account').nullable();
        t.string('password_hash', 200).nullable();
        t.string('resume_secret_hash', 64).notNullable().unique();
        t.string('partner_gpid', 12).nullable().unique();
        t.string('reviewer', 100).nullable();
        t.text('decision_reason').nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.timestamp('submitted_at', { useTz: true }).nullable();
        t.timestamp('decided_at', { useTz: true }).nullable();
        t.index(['status', 'id'], 'partner_applications_status_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('partner_baa_signatures', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('document_id', 100).notNullable();
        t.string('document_version', 20).notNullable();
        t.string('document_sha256', 64).notNullable();
        t.string('signer_name', 200).notNullable();
        t.string('signer_title', 120).notNullable();
        t.string('signer_email', 254).notNullable();
        t.string('client_ip', 64).nullable();
        t.string('principal_kind', 20).notNullable();
        t.string('credential_id', 60).nullable();
        t.timestamp('signed_at', { useTz: true }).notNullable();
        t.unique(['partner_gpid', 'document_id'], { indexName: 'partner_baa_signatures_once_idx' });
      }),
    );
    this.schema((s) =>
      s.createTable('partner_certification_evidence', (t) => {
        t.increments('id').primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('item_id', 60).notNullable();
        t.string('source', 120).notNullable();
        t.string('detail', 500).nullable();
        t.timestamp('observed_at', { useTz: true }).notNullable();
        t.unique(['partner_gpid', 'item_id', 'source'], { indexName: 'partner_certification_evidence_once_idx' });
      }),
    );
    this.schema((s) =>
      s.createTable('partner_certification_attestations', (t) => {
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('item_id', 60).notNullable();
        t.boolean('checked').notNullable();
        t.string('updated_by', 60).nullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.primary(['partner_gpid', 'item_id']);
      }),
    );
    this.schema((s) =>
      s.createTable('partner_certification_submissions', (t) => {
        t.increments('id').primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('checklist_id', 40).notNullable();
        t.timestamp('submitted_at', { useTz: true }).notNullable();
        t.string('submitted_by', 60).nullable();
        t.json('evaluation').notNullable();
        t.unique(['partner_gpid', 'checklist_id'], { indexName: 'partner_certification_submissions_once_idx' });
      }),
    );
  }
}

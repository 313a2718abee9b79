import { SchemaMigration } from '@svc/platform';

/** Operator-issued one-time portal password resets (only the hash of each link's secret). */
export class M009PortalPasswordResets extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('partner_portal_password_resets', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('token_hash', 64).notNullable().unique();
        t.string('issued_by', 40).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.timestamp('used_at', { useTz: true }).nullable();
        t.index(['partner_gpid'], 'partner_portal_password_resets_partner_idx');
      }),
    );
  }
}

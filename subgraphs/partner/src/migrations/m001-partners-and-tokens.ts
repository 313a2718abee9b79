import { SchemaMigration, createOutboxTable } from '@svc/platform';

export class M001PartnersAndTokens extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'partner'));
    this.schema((s) =>
      s.createTable('partner_partners', (t) => {
        t.string('gpid', 12).primary();
        t.string('legal_name', 200).notNullable();
        t.string('organization_type', 40).notNullable();
        t.string('status', 20).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
      }),
    );
    this.schema((s) =>
      s.createTable('partner_api_tokens', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('name', 100).notNullable();
        t.json('scopes').notNullable();
        t.string('secret_hash', 64).notNullable().unique();
        t.string('principal_kind', 20).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).nullable();
        t.timestamp('revoked_at', { useTz: true }).nullable();
        t.string('revoked_reason', 100).nullable();
        t.index(['partner_gpid', 'revoked_at'], 'partner_api_tokens_partner_idx');
      }),
    );
  }
}


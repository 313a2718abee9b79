import { SchemaMigration } from '@svc/platform';

// Frozen copies of the grants in force when this migration was written: a migration must render
// the same statements forever, whatever the domain's defaults become later.
const OPERATOR_GRANT = ['*'];
const PARTNER_GRANT = [
  'cms.fhir.r4.read',
  'cms.fhir.r5.read',
  'cms.fhir.bundle.push',
  'cms.fhir.rest.write',
  'cms.sdk.read',
  'cms.partner.read',
  'cms.partner.write',
  'cms.pipeline.read',
  'cms.tokens.manage',
  'cms.webhooks.manage',
  'identity.match',
  'identity.resolve',
  'identity.read',
];

/**
 * Credentials: the scopes each partner holds, portal accounts and sessions, the sign-in throttle,
 * OAuth clients, the access-token signing keys and the replay guard for client assertions.
 */
export class M002Credentials extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('partner_partners', (t) => {
        t.json('granted_scopes').nullable();
      }),
    );
    const knex = this.getKnex();
    this.addSql(knex('partner_partners').where('gpid', 'CMS-00000000').update({ granted_scopes: JSON.stringify(OPERATOR_GRANT) }).toString());
    this.addSql(knex('partner_partners').whereNot('gpid', 'CMS-00000000').update({ granted_scopes: JSON.stringify(PARTNER_GRANT) }).toString());

    this.schema((s) =>
      s.alterTable('partner_api_tokens', (t) => {
        t.string('created_by', 40).nullable();
      }),
    );

    this.schema((s) =>
      s.createTable('partner_portal_accounts', (t) => {
        t.string('partner_gpid', 12).primary().references('gpid').inTable('partner_partners');
        t.string('email', 254).notNullable().unique();
        t.string('password_hash', 200).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('password_changed_at', { useTz: true }).notNullable();
        t.timestamp('last_login_at', { useTz: true }).nullable();
      }),
    );

    this.schema((s) =>
      s.createTable('partner_portal_sessions', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('secret_hash', 64).notNullable().unique();
        t.json('scopes').notNullable();
        t.string('client_address', 64).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.timestamp('revoked_at', { useTz: true }).nullable();
        t.string('revoked_reason', 100).nullable();
        t.index(['partner_gpid', 'revoked_at'], 'partner_portal_sessions_partner_idx');
      }),
    );

    this.schema((s) =>
      s.createTable('partner_login_throttle', (t) => {
        // `account:<e-mail>` or `address:<client address>`; unknown e-mails are counted too, so
        // a lockout says nothing about whether an account exists.
        t.string('subject', 300).primary();
        t.integer('failures').notNullable();
        t.timestamp('window_started_at', { useTz: true }).notNullable();
        t.timestamp('locked_until', { useTz: true }).nullable();
      }),
    );

    this.schema((s) =>
      s.createTable('partner_oauth_clients', (t) => {
        t.string('id', 40).primary();
        t.string('partner_gpid', 12).notNullable().references('gpid').inTable('partner_partners');
        t.string('client_name', 100).notNullable();
        t.json('scopes').notNullable();
        t.string('token_endpoint_auth_method', 40).notNullable();
        t.string('secret_hash', 64).nullable().unique();
        t.json('jwks').nullable();
        t.string('created_by', 40).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('revoked_at', { useTz: true }).nullable();
        t.string('revoked_reason', 100).nullable();
        t.index(['partner_gpid', 'revoked_at'], 'partner_oauth_clients_partner_idx');
      }),
    );

    this.schema((s) =>
      s.createTable('partner_signing_keys', (t) => {
        t.string('kid', 40).primary();
        t.string('alg', 10).notNullable();
        t.json('public_jwk').notNullable();
        t.text('sealed_private_jwk').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('retired_at', { useTz: true }).nullable();
        t.timestamp('published_until', { useTz: true }).nullable();
      }),
    );

    this.schema((s) =>
      s.createTable('partner_client_assertions', (t) => {
        t.string('client_id', 40).notNullable();
        t.string('jti_hash', 64).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.primary(['client_id', 'jti_hash']);
        t.index(['expires_at'], 'partner_client_assertions_expiry_idx');
      }),
    );
  }
}

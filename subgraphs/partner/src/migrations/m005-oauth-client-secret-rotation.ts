import { SchemaMigration } from '@svc/platform';

/**
 * Client secret rotation: the secret a client had before its last rotation may stay accepted for a
 * grace period the partner chooses, so a fleet can switch over without a failed token request.
 */
export class M005OAuthClientSecretRotation extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('partner_oauth_clients', (t) => {
        t.string('previous_secret_hash', 64).nullable();
        t.timestamp('previous_secret_expires_at', { useTz: true }).nullable();
        t.timestamp('secret_rotated_at', { useTz: true }).nullable();
      }),
    );
  }
}

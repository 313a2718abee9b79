import { SchemaMigration } from '@svc/platform';

/**
 * `identity_resolve_observations`: one per resolve, the subject's keyed fingerprints and blocking
 * keys as the resolve read them (no clear demographics), with the GPID it was resolved to. The
 * registry keeps one record per person; these rows keep the raw input, duplicates included, which
 * the scoring model's trainer learns m from (`trainingObservations`).
 */
export class M006IdentityResolveObservations extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('identity_resolve_observations', (t) => {
        t.bigIncrements('seq').primary();
        t.string('gpid', 40).notNullable();
        t.text('fields').notNullable();
        t.text('blocking_keys').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.index(['gpid'], 'identity_resolve_observations_gpid_idx');
      }),
    );
  }

  override async down(): Promise<void> {
    this.schema((s) => s.dropTableIfExists('identity_resolve_observations'));
  }
}

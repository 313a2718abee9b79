import { SchemaMigration } from '@svc/platform';

/**
 * `identity_scoring_models`: the versions of the stage-4 scoring model an operator trained, with
 * their parameters (m and u per comparison level, term frequencies of common fingerprints: no
 * clear demographics), the seed and the training summary. Exactly one row is `active` once a model
 * was trained; with no row, the hand-set model (version 1) scores.
 */
export class M005IdentityScoringModels extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('identity_scoring_models', (t) => {
        t.integer('version').primary();
        t.boolean('active').notNullable();
        t.bigInteger('seed').notNullable();
        t.json('parameters').notNullable();
        t.json('summary').notNullable();
        t.string('trained_by', 120).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
      }),
    );
  }

  override async down(): Promise<void> {
    this.schema((s) => s.dropTableIfExists('identity_scoring_models'));
  }
}

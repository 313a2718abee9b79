import { SchemaMigration } from '@svc/platform';

/**
 * The review queue and its training labels.
 *
 * - `identity_review_items`: one per resolve that created a record linked for review (rvw_…): the
 *   new record (subject), the candidates with their scores and agreement as JSON, OPEN until every
 *   candidate is decided or one is decided the same person, then CLOSED.
 * - `identity_match_labels`: one per decided pair (subject, candidate) of an item: same person or
 *   not, who decided and when, the merge request a "same" decision opened. The scoring model's
 *   trainer reads them (`listMatchLabels`).
 */
export class M004IdentityReviewQueue extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('identity_review_items', (t) => {
        t.string('id', 40).primary();
        t.string('subject_gpid', 40).notNullable();
        t.string('status', 10).notNullable();
        t.text('candidates').notNullable();
        t.string('partner_gpid', 40).nullable();
        t.string('source', 20).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('closed_at', { useTz: true }).nullable();
        t.index(['subject_gpid'], 'identity_review_items_subject_idx');
        t.index(['status', 'id'], 'identity_review_items_status_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_match_labels', (t) => {
        t.increments('seq').primary();
        t.string('item_id', 40).notNullable();
        t.string('left_gpid', 40).notNullable();
        t.string('right_gpid', 40).notNullable();
        t.boolean('same').notNullable();
        t.text('decided_by').notNullable();
        t.string('decided_source', 20).notNullable();
        t.timestamp('decided_at', { useTz: true }).notNullable();
        t.text('note').nullable();
        t.string('merge_request_id', 40).nullable();
        t.unique(['item_id', 'right_gpid'], { indexName: 'identity_match_labels_pair_uq' });
        t.index(['left_gpid'], 'identity_match_labels_left_idx');
        t.index(['right_gpid'], 'identity_match_labels_right_idx');
      }),
    );
  }

  override async down(): Promise<void> {
    this.schema((s) => s.dropTableIfExists('identity_match_labels'));
    this.schema((s) => s.dropTableIfExists('identity_review_items'));
  }
}

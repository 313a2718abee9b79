import { SchemaMigration } from '@svc/platform';

/**
 * The GPID registry on SQL (SQLite and PostgreSQL alike):
 *
 * - `identity_records`: one row per GPID; fingerprints, blocking keys, sources and links as JSON
 *   (never clear demographics); `version` for optimistic concurrency.
 * - `identity_blocking_keys`: `(blocking_key, gpid)`, the primary key doubling as the lookup index
 *   (a clustered, covering index on SQLite: WITHOUT ROWID), so a lookup touches only the postings of
 *   the probed keys, whatever the registry's size. MERGED records are not indexed.
 * - `identity_sources`: which source origin confirmed which GPID, first and last time.
 * - `identity_match_history`: one row per resolve (match writes nothing).
 * - `identity_lineage`: merges and splits between GPIDs, with what a merged record contributed.
 * - `identity_change_requests`: pending and decided merge/split requests (two-person rule).
 * - `identity_audit`: the append-only, hash-chained audit events; triggers refuse UPDATE and DELETE.
 * - `identity_boundary_observations`: one row per partner, write path and day with X-Svc-Source.
 * - `identity_sequences`: the `{PRD}-{TYPE}-{N}` counters.
 * - `identity_key_checks`: a check value per fingerprint key version, so a replica with another key
 *   refuses to start instead of silently matching nothing.
 *
 * m001's `identity_records` table is replaced: nothing could write to it before this migration.
 */
export class M002IdentityRegistry extends SchemaMigration {
  override async up(): Promise<void> {
    const pg = this.postgres;
    this.schema((s) => s.dropTableIfExists('identity_records'));
    this.schema((s) =>
      s.createTable('identity_records', (t) => {
        t.string('gpid', 40).primary();
        t.string('entity_type', 40).notNullable();
        t.string('status', 20).notNullable();
        t.string('merged_into', 40).nullable();
        t.integer('version').notNullable();
        t.json('fields').notNullable();
        t.json('blocking_keys').notNullable();
        t.json('sources').notNullable();
        t.json('links').notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.timestamp('updated_at', { useTz: true }).notNullable();
        t.index(['merged_into'], 'identity_records_merged_into_idx');
      }),
    );
    this.addSql(
      `create table identity_blocking_keys (blocking_key varchar(80) not null, gpid varchar(40) not null, primary key (blocking_key, gpid))${pg ? '' : ' without rowid'}`,
    );
    this.schema((s) =>
      s.createTable('identity_sources', (t) => {
        t.string('gpid', 40).notNullable();
        t.string('source', 20).notNullable();
        t.timestamp('first_confirmed_at', { useTz: true }).notNullable();
        t.timestamp('last_confirmed_at', { useTz: true }).notNullable();
        t.integer('confirmations').notNullable();
        t.primary(['gpid', 'source'], 'identity_sources_pkey');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_match_history', (t) => {
        t.increments('id').primary();
        t.string('gpid', 40).notNullable();
        t.string('subject_gpid', 40).nullable();
        t.string('decision', 20).notNullable();
        t.string('match_type', 20).notNullable();
        t.double('confidence').notNullable();
        t.string('status', 20).notNullable();
        t.string('source', 20).notNullable();
        t.string('partner_gpid', 40).nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.index(['gpid', 'id'], 'identity_match_history_gpid_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_lineage', (t) => {
        t.increments('id').primary();
        t.string('kind', 10).notNullable();
        t.string('survivor_gpid', 40).notNullable();
        t.string('gpid', 40).notNullable();
        t.string('request_id', 40).notNullable();
        t.string('reason', 40).notNullable();
        t.json('contribution').nullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
        t.index(['survivor_gpid'], 'identity_lineage_survivor_idx');
        t.index(['gpid'], 'identity_lineage_gpid_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_change_requests', (t) => {
        t.string('id', 40).primary();
        t.string('kind', 10).notNullable();
        t.string('status', 20).notNullable();
        t.string('reason', 40).notNullable();
        t.text('note').nullable();
        t.string('survivor_gpid', 40).nullable();
        t.json('gpids').notNullable();
        t.json('requested_by').notNullable();
        t.string('requested_partner_gpid', 40).nullable();
        t.string('requested_source', 20).notNullable();
        t.timestamp('requested_at', { useTz: true }).notNullable();
        t.timestamp('expires_at', { useTz: true }).notNullable();
        t.json('decided_by').nullable();
        t.string('decided_source', 20).nullable();
        t.timestamp('decided_at', { useTz: true }).nullable();
        t.text('decision_note').nullable();
        t.integer('audit_seq').nullable();
        t.index(['status', 'id'], 'identity_change_requests_status_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_audit', (t) => {
        t.integer('seq').primary();
        t.string('event_id', 40).notNullable().unique({ indexName: 'identity_audit_event_id_key' });
        t.string('type', 60).notNullable();
        t.string('occurred_at', 40).notNullable();
        t.string('partner_gpid', 40).nullable();
        t.text('payload').notNullable();
        t.string('prev_hash', 64).notNullable().unique({ indexName: 'identity_audit_prev_hash_key' });
        t.string('hash', 64).notNullable().unique({ indexName: 'identity_audit_hash_key' });
      }),
    );
    this.schema((s) =>
      s.createTable('identity_boundary_observations', (t) => {
        t.string('partner_gpid', 40).notNullable();
        t.string('path', 60).notNullable();
        t.string('day', 10).notNullable();
        t.string('source', 20).notNullable();
        t.timestamp('observed_at', { useTz: true }).notNullable();
        t.primary(['partner_gpid', 'path', 'day'], 'identity_boundary_observations_pkey');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_sequences', (t) => {
        t.string('product', 8).notNullable();
        t.string('entity_type', 40).notNullable();
        t.bigInteger('last_value').notNullable();
        t.primary(['product', 'entity_type'], 'identity_sequences_pkey');
      }),
    );
    this.schema((s) =>
      s.createTable('identity_key_checks', (t) => {
        t.string('version', 8).primary();
        t.string('check_value', 64).notNullable();
        t.timestamp('created_at', { useTz: true }).notNullable();
      }),
    );

    // Append-only audit: the database itself refuses to change or remove an entry.
    if (pg) {
      this.addSql(
        `create or replace function identity_audit_immutable() returns trigger language plpgsql as $$ begin raise exception 'identity audit events are append-only: % refused', tg_op; end $$`,
      );
      this.addSql('create trigger identity_audit_no_change before update or delete on identity_audit for each row execute function identity_audit_immutable()');
      this.addSql('create trigger identity_audit_no_truncate before truncate on identity_audit for each statement execute function identity_audit_immutable()');
    } else {
      this.addSql(`create trigger identity_audit_no_update before update on identity_audit begin select raise(abort, 'identity audit events are append-only: UPDATE refused'); end`);
      this.addSql(`create trigger identity_audit_no_delete before delete on identity_audit begin select raise(abort, 'identity audit events are append-only: DELETE refused'); end`);
    }
  }
}

import { SchemaMigration } from '@svc/platform';

/** The TEFCA exchange audit log: one row per exchange, inbound and outbound, keyed by its xch_ id. */
export class M004TefcaExchanges extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('pipeline_tefca_exchanges', (t) => {
        t.string('id', 40).primary();
        t.string('event_id', 40).notNullable().unique('pipeline_tefca_exchanges_event_uq');
        t.string('event_type', 100).notNullable();
        t.string('partner_gpid', 12).nullable();
        t.string('credential_id', 60).nullable();
        t.string('kind', 20).notNullable();
        t.string('direction', 10).notNullable();
        t.string('purpose_of_use', 40).nullable();
        t.string('requesting_community_id', 200).nullable();
        t.json('responding_community_ids').notNullable();
        t.json('communities').notNullable();
        t.string('outcome', 10).notNullable();
        t.integer('result_count').notNullable();
        t.string('error_code', 40).nullable();
        t.string('request_id', 100).notNullable();
        t.timestamp('started_at', { useTz: true }).notNullable();
        t.integer('duration_ms').notNullable();
        t.timestamp('recorded_at', { useTz: true }).notNullable();
        t.index(['partner_gpid', 'id'], 'pipeline_tefca_exchanges_partner_idx');
      }),
    );
  }
}

export const m004 = { name: 'm004-tefca-exchanges', class: M004TefcaExchanges };

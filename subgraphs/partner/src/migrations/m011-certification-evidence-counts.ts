import { SchemaMigration } from '@svc/platform';

/**
 * Certification evidence observed from events becomes one row per partner and item: `count` says how
 * many observations a row stands for (the partner's FHIR reads, counted exactly), and
 * `partner_certification_counted_events` remembers which counting events were added in, so that an
 * event delivered twice (delivery is at least once) is counted once. The per-read rows recorded
 * before are folded into one row per partner.
 */
export class M011CertificationEvidenceCounts extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('partner_certification_evidence', (t) => {
        t.integer('count').notNullable().defaultTo(1);
      }),
    );
    this.schema((s) =>
      s.createTable('partner_certification_counted_events', (t) => {
        t.string('event_id', 40).primary();
        t.timestamp('counted_at', { useTz: true }).notNullable();
        t.index(['counted_at'], 'partner_certification_counted_events_at_idx');
      }),
    );
    this.addSql(
      `insert into partner_certification_evidence (partner_gpid, item_id, source, detail, observed_at, count)
       select partner_gpid, item_id, 'reads', max(detail), max(observed_at), count(*) from partner_certification_evidence
       where item_id = 'fhir_r4_sandbox_read' and source <> 'reads' group by partner_gpid, item_id`,
    );
    this.addSql(`delete from partner_certification_evidence where item_id = 'fhir_r4_sandbox_read' and source <> 'reads'`);
  }
}

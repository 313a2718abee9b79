import { SchemaMigration } from '@svc/platform';

/**
 * Three-component composite search parameters (MolecularSequence chromosome-variant-coordinate,
 * chromosome-window-coordinate, referenceseqid-variant-coordinate, referenceseqid-window-coordinate):
 * the third component's cells beside the first two. Resources stored before are indexed for them on
 * their next write.
 */
export class M010SearchCompositeThird extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.alterTable('fhir_sp_composite', (t) => {
        t.string('c2_system', 256).nullable();
        t.string('c2_code', 256).nullable();
        t.double('c2_num').nullable();
        t.string('c2_unit', 256).nullable();
        t.string('c2_low', 24).nullable();
        t.string('c2_high', 24).nullable();
      }),
    );
  }
}

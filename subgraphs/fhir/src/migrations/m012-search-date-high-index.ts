import { SchemaMigration } from '@svc/platform';

/**
 * `_sort=-date` walks the date index from the latest end and stops after a page (search-query.ts,
 * `sortedByIndex`); a descending sort orders on each resource's latest `high`, which the
 * `(resource_type, param, low, high)` index cannot give in order.
 */
export class M012SearchDateHighIndex extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => s.alterTable('fhir_sp_date', (t) => t.index(['resource_type', 'param', 'high'], 'fhir_sp_date_high_idx')));
  }
}

import { SchemaMigration } from '@svc/platform';

/**
 * On SQLite an index of `fhir_resources` that carries `deleted`, `partner_gpid` and `last_updated`
 * beside the key, so a search's checks of its matches (live, visible, their place in the order)
 * read small index entries instead of the table rows, whose 16 KiB pages hold the resources' JSON.
 * A bounded total checks up to 1,001 matches, and the sorted walk every date row it passes: at
 * 100,000 resources these reads filled the page cache and the processor's caches. The SQLite
 * counterpart of m014 (PostgreSQL widened its key instead; SQLite cannot change a table's key in
 * place), at the price of one more index entry per write.
 *
 * It leads with `id`, not `resource_type`: every lookup names both, and an index that starts with
 * a column of three values looks, to statistics sampled from its first entries, like a cheap way
 * to list one type's resources, which it is not.
 */
export class M015SqliteResourceVisibilityIndex extends SchemaMigration {
  override async up(): Promise<void> {
    if (this.postgres) return;
    this.addSql('create index fhir_resources_visibility_idx on fhir_resources (id, resource_type, deleted, partner_gpid, last_updated)');
  }
}

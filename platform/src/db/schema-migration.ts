import { Migration } from '@mikro-orm/migrations';
import type { Knex } from '@mikro-orm/knex';

/**
 * A migration written once with knex's schema builder and rendered for whichever dialect runs it,
 * so SQLite and PostgreSQL share one migration history per owner.
 */
export abstract class SchemaMigration extends Migration {
  protected schema(build: (schema: Knex.SchemaBuilder) => Knex.SchemaBuilder): void {
    for (const statement of build(this.getKnex().schema).toSQL()) {
      this.addSql(statement.sql);
    }
  }

  /** Whether this migration runs on PostgreSQL (its PostgreSQL-only statements: statistics, index options). */
  protected get postgres(): boolean {
    return (this.getKnex().client as { dialect?: string }).dialect === 'postgresql';
  }
}

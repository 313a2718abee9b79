import { SchemaMigration, createOutboxTable } from '@svc/platform';

export class M001Outbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'fhir'));
  }
}

import { SchemaMigration, createOutboxTable } from '@svc/platform';

export class M001Outbox extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => createOutboxTable(s, 'fhir'));
  }
}

export const migrations = [{ name: 'm001-outbox', class: M001Outbox }];

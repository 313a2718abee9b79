import { SchemaMigration, addOutboxTraceParent } from '@svc/platform';

/** The outbox keeps the W3C traceparent of the work that made each event (tracing): its consumers continue that trace. */
export class M010OutboxTraceParent extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => addOutboxTraceParent(s, 'partner'));
  }
}

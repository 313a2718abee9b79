import { SchemaMigration, addOutboxTraceParent } from '@svc/platform';

/** The outbox keeps the W3C traceparent of the work that made each event (tracing): its consumers continue that trace. */
export class M006OutboxTraceParent extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) => addOutboxTraceParent(s, 'pipeline'));
    // A webhook delivery keeps its event's traceparent: each attempt's span joins the event's trace.
    this.schema((s) =>
      s.alterTable('pipeline_webhook_deliveries', (t) => {
        t.string('trace_parent', 64).nullable();
      }),
    );
  }
}

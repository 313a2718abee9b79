import { SchemaMigration } from '@svc/platform';

/**
 * A durable job keeps the W3C traceparent of the request that enqueued it (tracing on; null when
 * off): the job's run, on a job thread or in the worker process, is a span of that trace.
 */
export class M020JobTraceParent extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s
        .alterTable('fhir_sync_jobs', (t) => {
          t.string('trace_parent', 64).nullable();
        })
        .alterTable('fhir_export_jobs', (t) => {
          t.string('trace_parent', 64).nullable();
        }),
    );
  }
}

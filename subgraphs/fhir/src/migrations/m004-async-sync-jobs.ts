import { SchemaMigration } from '@svc/platform';

/**
 * Asynchronous submissions (a batch or transaction Bundle with Prefer: respond-async, or an NDJSON
 * push) as durable sync jobs: the job row, its payload (kept apart so listing and claiming jobs
 * never reads it) and one row per processed entry of a batch or NDJSON job, written in the same
 * transaction as the entry's own write, so a resumed job never writes an entry twice.
 */
export class M004AsyncSyncJobs extends SchemaMigration {
  override async up(): Promise<void> {
    this.schema((s) =>
      s.createTable('fhir_sync_jobs', (t) => {
        t.string('id', 40).primary();
        /** The submitting partner; only its credentials see the job. */
        t.string('partner_gpid', 40).notNullable();
        /** The submitting credential's kind, scopes, token and client (JSON): the job runs with them. */
        t.text('principal').notNullable();
        /** transaction | batch | ndjson */
        t.string('kind', 16).notNullable();
        /** queued | running | retrying | completed | failed */
        t.string('state', 16).notNullable();
        t.text('resource_types').notNullable();
        t.integer('entries_total').notNullable();
        t.integer('entries_done').notNullable();
        t.integer('records_processed').notNullable();
        t.integer('attempts').notNullable();
        /** Counts every state change; intermediate events carry it so projections apply them in order. */
        t.integer('sequence').notNullable();
        t.boolean('return_resources').notNullable();
        t.string('source', 40).nullable();
        t.string('request_id', 80).notNullable();
        t.string('worker_id', 40).nullable();
        t.string('heartbeat_at', 24).nullable();
        t.string('next_attempt_at', 24).nullable();
        t.string('error_code', 60).nullable();
        t.text('message').nullable();
        /** The final answer: the transaction-response / batch-response Bundle, or an OperationOutcome (JSON). */
        t.text('result').nullable();
        t.integer('result_status').nullable();
        t.string('created_at', 24).notNullable();
        t.string('started_at', 24).nullable();
        t.string('finished_at', 24).nullable();
        t.index(['state', 'next_attempt_at'], 'fhir_sync_jobs_state_idx');
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sync_payloads', (t) => {
        t.string('job_id', 40).primary();
        t.text('body').notNullable();
      }),
    );
    this.schema((s) =>
      s.createTable('fhir_sync_entries', (t) => {
        t.string('job_id', 40).notNullable();
        t.integer('entry_index').notNullable();
        t.integer('status').notNullable();
        /** The entry's response (Bundle.entry.response, and resource unless return=minimal), JSON. */
        t.text('response').notNullable();
        t.primary(['job_id', 'entry_index']);
      }),
    );
  }
}

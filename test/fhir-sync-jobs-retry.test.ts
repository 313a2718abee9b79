import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { bootSystem, type TestSystem } from './support/system.js';
import { USE_POSTGRES } from './support/databases.js';
import { PATIENCE_MS } from './support/patience.js';

/**
 * Transient failures of a sync job, made real on PostgreSQL: the job's own bookkeeping table is
 * renamed away under the worker (every attempt then fails with a database error), and renamed back.
 * A job retries with backoff and completes once the database works again, or fails with
 * PROCESSING_ERROR after its attempts. Runs in the PostgreSQL + Redis pass of the suite.
 */
describe.runIf(USE_POSTGRES)('sync jobs retry transient database failures (PostgreSQL)', () => {
  let t: TestSystem;
  let db: pg.Client;

  beforeAll(async () => {
    // Retries 2-4 s, then 4-8 s apart: the saved job's table is back before its last attempt however
    // long a busy machine takes to see it retrying. The first job also waits for the job thread to
    // start, so the waits for a job's end are generous.
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_SYNC_MAX_ATTEMPTS: '3', SVC_FHIR_SYNC_RETRY_BASE_MS: '4000' });
    db = new pg.Client({ connectionString: t.storage.env['SVC_DATABASE_URL'] });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  const push = async (family: string) => {
    const res = await t.request({ method: 'POST', url: '/fhir/R4', headers: { 'content-type': 'application/fhir+ndjson' }, body: JSON.stringify({ resourceType: 'Patient', name: [{ family }] }) });
    expect(res.statusCode).toBe(202);
    return (res.headers['content-location'] as string).split('/').at(-1)!;
  };
  const events = async (jobId: string) => {
    const res = await t.graphql<{ events: { edges: { node: { type: string; data: Record<string, unknown> } }[] } }>(
      '{ events(first: 100, types: ["pipeline.sync.started", "pipeline.sync.retrying", "pipeline.sync.completed", "pipeline.sync.failed"]) { edges { node { type data } } } }',
    );
    return res.data!.events.edges.map((e) => e.node).filter((n) => n.data['job_id'] === jobId).reverse();
  };

  it('retries with backoff, fails with PROCESSING_ERROR after its attempts, and completes once the database is back', { timeout: 300_000 }, async () => {
    let doomed = '';
    await db.query('alter table fhir_sync_entries rename to fhir_sync_entries_away');
    try {
      doomed = await push('Retrydoomed');
      await vi.waitFor(async () => expect((await events(doomed)).map((e) => e.type)).toContain('pipeline.sync.failed'), { timeout: 3 * PATIENCE_MS, interval: 100 });
      const doomedEvents = await events(doomed);
      expect(doomedEvents.map((e) => e.type)).toEqual(['pipeline.sync.started', 'pipeline.sync.retrying', 'pipeline.sync.started', 'pipeline.sync.retrying', 'pipeline.sync.started', 'pipeline.sync.failed']);
      expect(doomedEvents[1]!.data).toMatchObject({ attempt: 1, error_code: 'STORAGE_ERROR' });
      expect(Date.parse(doomedEvents[1]!.data['next_attempt_at'] as string)).toBeGreaterThan(Date.parse(doomedEvents[1]!.data['retrying_at'] as string));
      expect(doomedEvents[5]!.data).toMatchObject({ event: 'pipeline.sync.failed', job_id: doomed, error_code: 'PROCESSING_ERROR' });

      const saved = await push('Retrysaved');
      // Straight from the job table: the first attempt failed and the job waits for its next one.
      await vi.waitFor(async () => expect((await db.query('select state from fhir_sync_jobs where id = $1', [saved])).rows[0]?.state).toBe('retrying'), { timeout: PATIENCE_MS, interval: 20 });
      await db.query('alter table fhir_sync_entries_away rename to fhir_sync_entries');
      await vi.waitFor(async () => expect((await events(saved)).map((e) => e.type)).toContain('pipeline.sync.completed'), { timeout: 3 * PATIENCE_MS, interval: 100 });
      const savedTypes = (await events(saved)).map((e) => e.type);
      expect(savedTypes.slice(0, 2)).toEqual(['pipeline.sync.started', 'pipeline.sync.retrying']);
      expect(savedTypes.at(-1)).toBe('pipeline.sync.completed');
      expect(savedTypes.filter((type) => type === 'pipeline.sync.completed')).toHaveLength(1);
    } finally {
      await db.query('alter table if exists fhir_sync_entries_away rename to fhir_sync_entries');
    }
    const found = await t.request({ url: '/fhir/R4/Patient?family=Retry' });
    expect((found.json() as { total: number }).total).toBe(1);
    // The pipeline's projection shows the outcome and the attempts.
    await vi.waitFor(
      async () => {
        const job = await t.graphql<{ syncJob: { status: string; errorCode: string; attempts: number } }>('query($j: ID!) { syncJob(jobId: $j) { status errorCode attempts } }', { j: doomed });
        expect(job.data!.syncJob).toEqual({ status: 'FAILED', errorCode: 'PROCESSING_ERROR', attempts: 3 });
      },
      { timeout: PATIENCE_MS, interval: 100 },
    );
  });
});

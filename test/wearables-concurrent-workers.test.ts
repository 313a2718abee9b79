import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freshStorage, USE_POSTGRES } from './support/databases.js';
import { bootSystem, type TestSystem } from './support/system.js';

/**
 * Idempotency by event id holds when the same batch is run by several workers at once: two systems
 * (each with its own sync worker and connection pool) on one PostgreSQL database run copies of one
 * batch side by side, and every reading is stored once. Without the conditional-create lock this
 * stored 258 Observations for 150 readings. Runs in the PostgreSQL + Redis pass of the suite
 * (SQLite is one process with serialized writes).
 */
describe.runIf(USE_POSTGRES)('wearable batches run by concurrent workers (PostgreSQL)', async () => {
  const storage = await freshStorage();
  const token = `wear_${randomBytes(18).toString('base64url')}`;
  const systems: TestSystem[] = [];
  afterAll(async () => {
    for (const s of systems) await s.close();
    await storage.dispose();
  });

  it('stores each reading once when copies of a batch run at the same time by two workers', async () => {
    // The first system migrates the database; the second starts on it.
    const a = await bootSystem({ SVC_BOOTSTRAP_TOKEN: token, SVC_RATE_LIMITS: 'off' }, { storage });
    systems.push(a);
    const b = await bootSystem({ SVC_BOOTSTRAP_TOKEN: token, SVC_RATE_LIMITS: 'off' }, { storage });
    systems.push(b);

    const gpid = `SVC-${randomBytes(4).toString('hex').toUpperCase()}`;
    const start = Date.now() - 3 * 3600_000;
    const events = Array.from({ length: 40 }, (_, i) => ({
      event_id: `r-${i}`,
      patient_gpid: gpid,
      type: 'heart_rate',
      value: 60 + (i % 40),
      unit: '/min',
      effective_time: new Date(start + i * 60_000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    }));
    const submitted = await Promise.all([a, b, a, b].map((s) => s.request({ method: 'POST', url: '/pulse/v1/wearables/events', body: { events } })));
    expect(submitted.map((r) => r.statusCode)).toEqual([202, 202, 202, 202]);

    let created = 0;
    for (const res of submitted) {
      await vi.waitFor(
        async () => {
          const polled = await a.request({ url: new URL(res.json().status_url as string).pathname });
          expect(polled.statusCode).toBe(200);
          created += (polled.json() as { entry: { response: { status: string } }[] }).entry.filter((e) => e.response.status === '201 Created').length;
        },
        { timeout: 120_000, interval: 100 },
      );
    }
    const count = (await a.request({ url: `/fhir/R4/Observation?subject:identifier=urn:svc:gpid|${gpid}&_summary=count` })).json() as { total: number };
    expect(count.total).toBe(40);
    expect(created).toBe(40);
  }, 600_000);
});

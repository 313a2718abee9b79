import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_DATABASE_URL, freshStorage, USE_POSTGRES, type TestStorage } from './support/databases.js';
import { bootSystem, type TestSystem } from './support/system.js';

/**
 * SVC_DATABASE_POOL_MAX bounds each PostgreSQL pool of a process: however many requests arrive at
 * once, the process holds at most pools × that many connections to its database.
 */
describe.runIf(USE_POSTGRES)('the PostgreSQL pool size', () => {
  let storage: TestStorage;
  let t: TestSystem;
  let admin: pg.Client;

  beforeAll(async () => {
    storage = await freshStorage();
    t = await bootSystem({ SVC_DATABASE_POOL_MAX: '2', SVC_RATE_LIMITS: 'off' }, { storage });
    admin = new pg.Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.end();
    await t?.close();
    await storage?.dispose();
  });

  it('holds at most SVC_DATABASE_POOL_MAX connections per subgraph pool under 40 concurrent requests', async () => {
    const database = new URL(storage.env['SVC_DATABASE_URL']!).pathname.slice(1);
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const { rows } = await admin.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = $1', [database]);
        most = Math.max(most, Number(rows[0]!.n));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => t.graphql(i % 2 ? '{ partners(first: 20) { edges { node { gpid } } } }' : '{ partners(first: 20) { edges { node { gpid syncJobs { jobId status } } } } }')),
    );
    sampling = false;
    await sampler;
    expect(answers.filter((a) => a.status !== 200 || a.errors !== undefined)).toEqual([]);
    expect(most).toBeGreaterThan(0);
    // Four subgraphs, one pool each.
    expect(most).toBeLessThanOrEqual(4 * 2);
  });
});

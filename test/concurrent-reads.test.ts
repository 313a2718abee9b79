import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { identityClient, mintToken, registerPartner } from './support/identity.js';
import { queryCount } from './support/metrics.js';

/**
 * Concurrent requests share their point reads (identity records by GPID, partners' newest sync
 * jobs): fewer statements than requests, and still every caller gets its own answer, with its own
 * credential's view.
 */
describe('reads shared by concurrent requests', () => {
  let t: TestSystem;
  let id: ReturnType<typeof identityClient>;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    id = identityClient(t);
  });
  afterAll(() => t?.close());

  it('answers concurrent identity reads each with its own record, in fewer statements than requests', async () => {
    const people = ['Aurélie Ndiaye', 'Bjørn Halvorsen', 'Chidi Okafor', 'Dolores Ibáñez', 'Eun-ji Park'];
    const gpids: string[] = [];
    for (const [i, name] of people.entries()) gpids.push((await id.resolve({ name, dob: `198${i}-0${i + 1}-1${i}` }, 'pulse')).json().gpid);
    const partnerToken = await mintToken(t, ['identity.read'], await registerPartner(t, 'Shared Reads Clinic'));

    const before = await queryCount(t, 'identity', 'identity_records');
    const asked = [...gpids, ...gpids, 'SVC-00000000'];
    const [answers, partnerView] = await Promise.all([Promise.all(asked.map((gpid) => id.get(gpid))), Promise.all(gpids.map((gpid) => id.get(gpid, partnerToken)))]);
    const statements = (await queryCount(t, 'identity', 'identity_records')) - before;

    expect(answers.map((a) => a.statusCode)).toEqual([...gpids.map(() => 200), ...gpids.map(() => 200), 404]);
    expect(answers.slice(0, -1).map((a) => a.json().gpid)).toEqual([...gpids, ...gpids]);
    // The partner has no link to these records: they look missing to it, whoever read them beside it.
    expect(partnerView.map((a) => a.json())).toEqual(gpids.map(() => expect.objectContaining({ status: 404, code: 'NOT_FOUND' })));
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(asked.length + gpids.length);
  });

  it("answers concurrent sync-job reads with each partner's own jobs and each query's own fields", async () => {
    const partners = await Promise.all(['North Lab', 'South Payer', 'East Clinic'].map((name) => registerPartner(t, name)));
    const jobsOf = new Map<string, string[]>();
    for (const [i, gpid] of partners.entries()) {
      for (let n = 0; n <= i; n++) {
        const job = await t.graphql<{ createSyncJob: { jobId: string } }>('mutation($p: ID!) { createSyncJob(partnerGpid: $p, resourceTypes: ["Patient"]) { jobId } }', { p: gpid });
        jobsOf.set(gpid, [job.data!.createSyncJob.jobId, ...(jobsOf.get(gpid) ?? [])]);
      }
    }
    const northToken = await mintToken(t, ['cms.partner.read', 'cms.pipeline.read'], partners[0]);
    const narrow = 'query($g: ID!) { partner(gpid: $g) { syncJobs { jobId } } }';
    const wide = 'query($g: ID!) { partner(gpid: $g) { syncJobs { jobId partnerGpid status } } }';

    const before = await queryCount(t, 'pipeline', 'pipeline_sync_jobs');
    const requests = [
      ...partners.map((g) => ({ query: narrow, g, token: undefined })),
      ...partners.map((g) => ({ query: wide, g, token: undefined })),
      { query: narrow, g: partners[0]!, token: northToken },
      { query: wide, g: partners[0]!, token: northToken },
    ];
    const answers = await Promise.all(requests.map((r) => t.graphql<{ partner: { syncJobs: Record<string, string>[] } }>(r.query, { g: r.g }, r.token)));
    const statements = (await queryCount(t, 'pipeline', 'pipeline_sync_jobs')) - before;

    answers.forEach((answer, i) => {
      const { query, g } = requests[i]!;
      expect(answer.errors).toBeUndefined();
      const expected = jobsOf.get(g)!.map((jobId) => (query === wide ? { jobId, partnerGpid: g, status: 'QUEUED' } : { jobId }));
      expect(answer.data!.partner.syncJobs).toEqual(expected);
    });
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThan(requests.length);
  });
});

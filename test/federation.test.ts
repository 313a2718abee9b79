import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { queryCount } from './support/metrics.js';

/** The cross-subgraph journey: partners (partner subgraph) with their sync jobs (pipeline subgraph). */
describe('federation: one gateway query across the partner and pipeline subgraphs', () => {
  let t: TestSystem;
  const gpids: string[] = [];

  beforeAll(async () => {
    t = await bootSystem();
    for (const name of ['Alpha Health', 'Beta Labs', 'Gamma Payer', 'Delta Pharmacy', 'Epsilon Research']) {
      const created = await t.graphql<{ registerPartner: { gpid: string } }>(
        'mutation($input: RegisterPartnerInput!) { registerPartner(input: $input) { gpid } }',
        { input: { legalName: name, organizationType: 'HEALTH_SYSTEM' } },
      );
      const gpid = created.data!.registerPartner.gpid;
      gpids.push(gpid);
      for (const types of [['Patient'], ['Observation', 'Encounter']]) {
        const job = await t.graphql<{ createSyncJob: { jobId: string } }>(
          'mutation($p: ID!, $t: [String!]!) { createSyncJob(partnerGpid: $p, resourceTypes: $t) { jobId } }',
          { p: gpid, t: types },
        );
        expect(job.errors).toBeUndefined();
      }
    }
  });
  afterAll(() => t?.close());

  it('resolves partners and their sync jobs in one request', async () => {
    const res = await t.graphql<{ partners: { edges: { node: { gpid: string; legalName: string; syncJobs: { jobId: string; partnerGpid: string; resourceTypes: string[] }[] } }[] } }>(
      '{ partners(first: 50) { edges { node { gpid legalName syncJobs { jobId partnerGpid resourceTypes status } } } } }',
    );
    expect(res.errors).toBeUndefined();
    const nodes = res.data!.partners.edges.map((e) => e.node).filter((n) => gpids.includes(n.gpid));
    expect(nodes).toHaveLength(5);
    for (const node of nodes) {
      expect(node.syncJobs).toHaveLength(2);
      expect(node.syncJobs.every((j) => j.partnerGpid === node.gpid && j.jobId.startsWith('job_'))).toBe(true);
    }
  });

  it('batches the N partner extensions into one database query (DataLoader)', async () => {
    const before = await queryCount(t, 'pipeline', 'pipeline_sync_jobs');
    const res = await t.graphql('{ partners(first: 50) { edges { node { gpid syncJobs { jobId } } } } }');
    expect(res.errors).toBeUndefined();
    const after = await queryCount(t, 'pipeline', 'pipeline_sync_jobs');
    expect(after - before).toBe(1);
  });

  it('resolves the other direction too: a sync job reaches back into its partner', async () => {
    const list = await t.graphql<{ partner: { syncJobs: { jobId: string }[] } }>('query($g: ID!) { partner(gpid: $g) { syncJobs { jobId } } }', { g: gpids[0] });
    const jobId = list.data!.partner.syncJobs[0]!.jobId;
    const res = await t.graphql<{ syncJob: { partner: { legalName: string } } }>('query($j: ID!) { syncJob(jobId: $j) { partner { legalName } } }', { j: jobId });
    expect(res.data!.syncJob.partner.legalName).toBe('Alpha Health');
  });

  it('reports pipeline health from the jobs of the last 24 hours', async () => {
    const list = await t.graphql<{ partner: { syncJobs: { jobId: string }[] } }>('query($g: ID!) { partner(gpid: $g) { syncJobs { jobId } } }', { g: gpids[1] });
    const [first, second] = list.data!.partner.syncJobs.map((j) => j.jobId);
    await t.graphql('mutation($j: ID!) { completeSyncJob(jobId: $j, recordsProcessed: 3) { status } }', { j: first });
    await t.graphql('mutation($j: ID!) { failSyncJob(jobId: $j, errorCode: "VALIDATION_ERROR", message: "entry 2 is not a valid Patient") { status } }', { j: second });
    const one = await t.graphql<{ pipelineHealth: Record<string, unknown> }>('query($g: ID!) { pipelineHealth(partnerGpid: $g) { status jobsCompleted jobsFailed jobsInFlight successRate } }', { g: gpids[1] });
    expect(one.data!.pipelineHealth).toEqual({ status: 'degraded', jobsCompleted: 1, jobsFailed: 1, jobsInFlight: 0, successRate: 0.5 });
    const all = await t.graphql<{ pipelineHealth: { jobsInFlight: number } }>('{ pipelineHealth { jobsInFlight } }');
    expect(all.data!.pipelineHealth.jobsInFlight).toBe(8);
  });

  it('answers every sync-job field in a list exactly as the single read does, however the selection is written (the jobs finished above)', async () => {
    const fields = 'jobId partnerGpid partner { gpid } resourceTypes status recordsProcessed kind entries attempts createdAt startedAt updatedAt nextAttemptAt completedAt failedAt errorCode message';
    const list = await t.graphql<{ partner: { syncJobs: Record<string, unknown>[] } }>(`query($g: ID!) { partner(gpid: $g) { syncJobs { ${fields} } } }`, { g: gpids[1] });
    expect(list.errors).toBeUndefined();
    const jobs = list.data!.partner.syncJobs;
    expect(jobs.map((j) => j['status']).sort()).toEqual(['COMPLETED', 'FAILED']);
    for (const job of jobs) {
      const one = await t.graphql<{ syncJob: Record<string, unknown> }>(`query($j: ID!) { syncJob(jobId: $j) { ${fields} } }`, { j: job['jobId'] });
      expect(job).toEqual(one.data!.syncJob);
    }
    // The same fields through a named fragment, an inline fragment and an alias, beside a narrower selection.
    const mixed = await t.graphql<{ partner: { wide: Record<string, unknown>[]; narrow: Record<string, unknown>[] } }>(
      `query($g: ID!) { partner(gpid: $g) { wide: syncJobs { ...J ... on SyncJob { failure: errorCode message } } narrow: syncJobs { jobId } } }
       fragment J on SyncJob { jobId partnerGpid partner { gpid } resourceTypes status recordsProcessed kind entries attempts createdAt startedAt updatedAt nextAttemptAt completedAt failedAt }`,
      { g: gpids[1] },
    );
    expect(mixed.errors).toBeUndefined();
    expect(mixed.data!.partner.wide).toEqual(jobs.map(({ errorCode, ...rest }) => ({ ...rest, failure: errorCode })));
    expect(mixed.data!.partner.narrow).toEqual(jobs.map((j) => ({ jobId: j['jobId'] })));
  });

  it('keeps internal fields out of the public supergraph', async () => {
    const res = await t.graphql('{ credential(secretHash: "x") { tokenId } }');
    expect(res.status).toBe(400);
    expect(res.errors?.[0]?.message).toMatch(/Cannot query field "credential"/);
  });

  it('enforces scopes per field, with typed error codes', async () => {
    const anonymous = await t.graphql('{ partners(first: 1) { edges { node { gpid } } } }', {}, null);
    expect(anonymous.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    const badToken = await t.graphql('{ viewer { kind } }', {}, 'not-a-real-token');
    expect(badToken.status).toBe(401);
    expect(badToken.errors?.[0]?.extensions?.['code']).toBe('INVALID_TOKEN');
  });

  it('answers field-level validation errors as typed errors', async () => {
    const res = await t.graphql('mutation { createSyncJob(partnerGpid: "CMS-00000000", resourceTypes: ["not a type"]) { jobId } }');
    expect(res.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    expect(res.errors?.[0]?.extensions?.['fieldErrors']).toEqual([{ field: 'resourceTypes', message: expect.stringContaining('not a type') }]);
  });
});

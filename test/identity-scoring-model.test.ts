import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootSystem, type TestSystem } from './support/system.js';
import { jobThreadCalls } from './support/metrics.js';
import { identityClient, mintToken } from './support/identity.js';

/**
 * The versioned scoring model end to end (REST facade and GraphQL → identity subgraph → its
 * database): the explanation of every candidate, retraining by an operator, and the name handling
 * of inner spaces and short names.
 */
describe('identity scoring model: explanations, versions, retraining, names', () => {
  let t: TestSystem;
  let id: ReturnType<typeof identityClient>;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_LOG_LEVEL: 'error' });
    id = identityClient(t);
    const people = [
      { name: 'Isabelle Martin', dob: '1990-02-14', phone: '617-555-0101' },
      { name: 'Amy Chen', dob: '1988-07-09', phone: '617-555-0142', email: 'amy.chen@example.org', sex: 'female' },
      { name: 'Jonah Okafor', dob: '1979-11-30', phone: '617-555-0177' },
      { name: 'Grace Okafor', dob: '1981-01-05', phone: '617-555-0177' },
      { name: 'Lucas Smith', dob: '1965-05-05', email: 'lucas@example.net' },
      { name: 'Mia Smith', dob: '1999-09-19', email: 'mia@example.net' },
    ];
    for (const person of people) {
      const res = await id.resolve(person, 'pulse');
      expect(res.statusCode, res.body).toBe(200);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const MATCH = 'query($input: IdentityDemographicsInput!) { identityMatch(input: $input) { candidates { gpid matchType agreement } } }';
  type Explained = { weights: Record<string, number>; prior_log2_odds: number; log2_odds: number; pair_confidence: number; model_version: number };

  it('explains each candidate: levels, weights adding up to the log-odds, the model version (REST)', async () => {
    const res = await id.match({ name: 'Isab Elle Martin', dob: '02/14/1990' });
    expect(res.statusCode).toBe(200);
    const [best] = res.json().candidates as Array<{ agreement: Explained & Record<string, unknown> }>;
    expect(best!.agreement).toMatchObject({ given: 'exact', family: 'exact', dob: 'exact', model_version: 1, blocked_by: null });
    const a = best!.agreement;
    const sum = Object.values(a.weights).reduce((x, y) => x + y, 0);
    expect(sum + a.prior_log2_odds).toBeCloseTo(a.log2_odds, 4);
    expect(a.pair_confidence).toBeCloseTo(1 / (1 + 2 ** -a.log2_odds), 4);
  });

  it('tolerates one keyboard slip in a short name when DOB and contact agree (GraphQL)', async () => {
    const res = await t.graphql<{ identityMatch: { candidates: Array<{ matchType: string; agreement: Record<string, unknown> }> } }>(MATCH, {
      input: { name: 'Amu Chen', dob: '1988-07-09', phone: '(617) 555-0142', sex: 'female' },
    });
    expect(res.errors).toBeUndefined();
    expect(res.data!.identityMatch.candidates[0]).toMatchObject({ matchType: 'PARTIAL', agreement: { given: 'keyboard', family: 'exact', modelVersion: 1 } });
    const resolved = await id.resolve({ name: 'Amu Chen', dob: '1988-07-09', phone: '617-555-0142', sex: 'female' }, 'provider');
    expect(resolved.json()).toMatchObject({ decision: 'EXISTING', created: false });
  });

  it('links for review, not silently, a record of a registered full name without its birth date (version 1)', async () => {
    const res = await id.resolve({ name: 'Jonah Okafor', email: 'jonah.o@example.com' }, 'lake');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { decision: string; links: string[]; candidates: Array<{ agreement: { given: string; family: string; dob: string; pair_confidence: number } }> };
    expect(body.decision).toBe('NEW_PROVISIONAL');
    expect(body.links).toHaveLength(1);
    // Scored low by the one-in-a-million prior of version 1, and queued with its explanation all the same.
    expect(body.candidates[0]!.agreement).toMatchObject({ given: 'exact', family: 'exact', dob: 'missing' });
    expect(body.candidates[0]!.agreement.pair_confidence).toBeLessThan(0.2);
  });

  it('shows the built-in model as version 1 until an operator trains one', async () => {
    const res = await t.request({ url: '/api/identity/scoring-models/active' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ version: 1, active: true, trained_by: null, summary: null, parameters: { version: 1, priorLog2Odds: -20 } });
    expect((await t.request({ url: '/api/identity/scoring-models/99' })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/identity/scoring-models/latest' })).statusCode).toBe(422);
  });

  it('retrains on the registry by an operator (REST and GraphQL), deterministic for a seed, and scores with the new version', async () => {
    const gpids = (await id.match({ name: 'Jonah Okafor', dob: '1979-11-30' })).json().candidates.map((c: { gpid: string }) => c.gpid) as string[];
    const sister = (await id.match({ name: 'Grace Okafor', dob: '1981-01-05' })).json().candidates[0].gpid as string;
    const labels = [{ left_record_id: gpids[0], right_record_id: sister, same: false }];

    const trainingsBefore = await jobThreadCalls(t, 'identity-training', 'train');
    const rest = await t.request({ method: 'POST', url: '/api/identity/scoring-models', body: { seed: 7, labels } });
    expect(rest.statusCode).toBe(201);
    const trained = rest.json();
    expect(trained).toMatchObject({ active: true, seed: 7, summary: { labelledPairs: 1, labelsSkipped: 0 } });
    expect(trained.version).toBeGreaterThanOrEqual(2);

    const GQL = 'mutation($seed: Int, $labels: [IdentityTrainingLabelInput!]) { trainIdentityScoringModel(seed: $seed, labels: $labels) { version active seed parameters summary } }';
    const gql = await t.graphql<{ trainIdentityScoringModel: { version: number; parameters: Record<string, unknown>; summary: Record<string, unknown> } }>(GQL, {
      seed: 7,
      labels: [{ leftRecordId: gpids[0], rightRecordId: sister, same: false }],
    });
    expect(gql.errors).toBeUndefined();
    const again = gql.data!.trainIdentityScoringModel;
    expect(again.version).toBe(trained.version + 1);
    // Same registry, labels and seed: the same model, but for its version number.
    expect({ ...again.parameters, version: 0 }).toEqual({ ...trained.parameters, version: 0 });
    expect(again.summary).toEqual(trained.summary);
    // Both trainings ran on the subgraph's training thread, not on the event loop that resolves.
    expect(await jobThreadCalls(t, 'identity-training', 'train')).toBe(trainingsBefore + 2);

    const match = await id.match({ name: 'Isabelle Martin', dob: '1990-02-14' });
    expect(match.json().candidates[0].agreement.model_version).toBe(again.version);
    const active = await t.request({ url: '/api/identity/scoring-models/active' });
    expect(active.json()).toMatchObject({ version: again.version, active: true });
    expect((await t.request({ url: `/api/identity/scoring-models/${trained.version}` })).json()).toMatchObject({ version: trained.version, active: false });
  });

  it('rolls back to an earlier version and forward again, each change in the audit chain', async () => {
    const listed = await t.request({ url: '/api/identity/scoring-models' });
    expect(listed.statusCode).toBe(200);
    const models = listed.json().models as { version: number; active: boolean; parameters?: unknown }[];
    const latest = models[0]!;
    expect(latest.active).toBe(true);
    expect(models.at(-1)).toMatchObject({ version: 1, active: false, trained_by: null });
    expect(models.every((m) => m.parameters === undefined)).toBe(true);

    const back = await t.request({ method: 'POST', url: '/api/identity/scoring-models/1/activate' });
    expect(back.statusCode).toBe(200);
    expect(back.json()).toMatchObject({ version: 1, active: true });
    expect((await id.match({ name: 'Isabelle Martin', dob: '1990-02-14' })).json().candidates[0].agreement.model_version).toBe(1);
    expect((await t.request({ url: '/api/identity/scoring-models/active' })).json().version).toBe(1);
    // Activating the active version changes and records nothing.
    expect((await t.request({ method: 'POST', url: '/api/identity/scoring-models/1/activate' })).json()).toMatchObject({ version: 1, active: true });

    const forward = await t.graphql<{ activateIdentityScoringModel: { version: number; active: boolean } }>('mutation($v: Int!) { activateIdentityScoringModel(version: $v) { version active } }', { v: latest.version });
    expect(forward.data!.activateIdentityScoringModel).toEqual({ version: latest.version, active: true });
    expect((await id.match({ name: 'Isabelle Martin', dob: '1990-02-14' })).json().candidates[0].agreement.model_version).toBe(latest.version);

    const audit = await t.graphql<{ identityAuditEntries: { edges: { node: { type: string; payload: Record<string, unknown> } }[] } }>(
      '{ identityAuditEntries(first: 50, types: ["identity.scoring_model.trained.v1", "identity.scoring_model.activated.v1"]) { edges { node { type payload } } } }',
    );
    const entries = audit.data!.identityAuditEntries.edges.map((e) => e.node);
    expect(entries.filter((e) => e.type === 'identity.scoring_model.trained.v1').map((e) => e.payload['version'])).toEqual(models.filter((m) => m.version > 1).map((m) => m.version).reverse());
    expect(entries.filter((e) => e.type === 'identity.scoring_model.activated.v1').map((e) => [e.payload['previous_version'], e.payload['version']])).toEqual([
      [latest.version, 1],
      [1, latest.version],
    ]);
    expect((await t.graphql<{ identityAuditVerification: { valid: boolean } }>('{ identityAuditVerification { valid } }')).data!.identityAuditVerification.valid).toBe(true);

    expect((await t.request({ method: 'POST', url: '/api/identity/scoring-models/999/activate' })).statusCode).toBe(404);
    expect((await t.request({ method: 'POST', url: '/api/identity/scoring-models/latest/activate' })).statusCode).toBe(422);
    const partner = await mintToken(t, ['identity.match', 'identity.read']);
    expect((await t.request({ method: 'POST', url: '/api/identity/scoring-models/1/activate', token: partner })).statusCode).toBe(403);
    expect((await t.request({ url: '/api/identity/scoring-models', token: partner })).statusCode).toBe(403);
  });

  it('learns m from the resolves: each one keeps its inbound fingerprints, and EM finds the duplicates among them', async () => {
    // 24 people resolved twice (the registry keeps one record each); every third came back with a new phone.
    const given = ['Ada', 'Bruno', 'Chloé', 'Dmitri', 'Eun-ji', 'Fatima', 'Gustavo', 'Hana'];
    const family = ['Lovelace', 'Ferreira', 'Dubois', 'Ivanov', 'Park', 'Haddad', 'Álvarez', 'Sato', 'Nakamura'];
    const people = Array.from({ length: 24 }, (_, i) => ({
      name: `${given[i % given.length]} ${family[i % family.length]}`,
      dob: `19${60 + i}-0${1 + (i % 9)}-1${i % 10}`,
      phone: `+1 415 555 ${String(3000 + i)}`,
    }));
    // Whatever each resolve decides, its inbound record is kept: training does not depend on the
    // active model's decisions (the model trained above scores these; its u varies with the GPIDs).
    for (const person of people) expect((await id.resolve(person, 'pulse')).statusCode).toBe(200);
    for (const [i, person] of people.entries()) {
      const again = await id.resolve(i % 3 === 0 ? { ...person, phone: `+1 415 555 ${String(4000 + i)}` } : person, 'provider');
      expect(again.statusCode).toBe(200);
    }
    const res = await t.request({ method: 'POST', url: '/api/identity/scoring-models', body: { seed: 11 } });
    expect(res.statusCode).toBe(201);
    const { summary, parameters } = res.json() as {
      summary: { observations: number; rounds: Array<{ rule: string; pairs: number; converged: boolean }>; estimated: { m: string[] }; prior: { exactPairs: number; log2Odds: number } | null };
      parameters: { phone: { exact: { m: number } }; priorLog2Odds: number };
    };
    // Every resolve of this file so far: the six of the set-up, one each of the keyboard and the
    // missing-DOB tests, these 48.
    expect(summary.observations).toBe(56);
    expect(summary.rounds[0]).toMatchObject({ rule: 'given name and date of birth exact', converged: true });
    expect(summary.rounds[0]!.pairs).toBeGreaterThanOrEqual(24);
    expect(summary.estimated.m).toEqual(expect.arrayContaining(['family.exact', 'phone.exact']));
    expect(parameters.phone.exact.m).toBeGreaterThan(0.5);
    expect(parameters.phone.exact.m).toBeLessThan(0.85);
    // The prior follows this registry's size: the 24 pairs that agree on both names and the DOB
    // among 56 inbound records make a prior far above version 1's one in a million (bounded at −8).
    expect(summary.prior!.exactPairs).toBeGreaterThanOrEqual(24);
    expect(parameters.priorLog2Odds).toBe(summary.prior!.log2Odds);
    expect(parameters.priorLog2Odds).toBe(-8);
    // Names alone never link automatically, however high the prior: a known full name without the
    // DOB is linked for review, not returned.
    const namesOnly = await id.resolve({ name: 'Dmitri Ivanov' }, 'lake');
    expect(namesOnly.statusCode).toBe(200);
    expect(namesOnly.json()).toMatchObject({ decision: 'NEW_PROVISIONAL', created: true });
  });

  it('refuses bad training input naming the field, and anyone but an operator', async () => {
    const bad = await t.request({ method: 'POST', url: '/api/identity/scoring-models', body: { seed: -1, labels: [{ left_record_id: 'x', right_record_id: 'SVC-00000001', same: 'yes' }], extra: 1 } });
    expect(bad.statusCode).toBe(422);
    const fields = (bad.json().errors as Array<{ field: string }>).map((e) => e.field);
    expect(fields).toEqual(expect.arrayContaining(['labels.0.same', 'extra']));
    const badGpid = await t.request({ method: 'POST', url: '/api/identity/scoring-models', body: { labels: [{ left_record_id: 'x', right_record_id: 'SVC-00000001', same: true }] } });
    expect(badGpid.statusCode).toBe(422);
    expect((badGpid.json().errors as Array<{ field: string }>).map((e) => e.field)).toContain('labels.0.left_record_id');

    const partner = await mintToken(t, ['identity.match', 'identity.read']);
    expect((await t.request({ method: 'POST', url: '/api/identity/scoring-models', body: {}, token: partner })).statusCode).toBe(403);
    expect((await t.request({ url: '/api/identity/scoring-models/active', token: partner })).statusCode).toBe(403);
    const gql = await t.graphql('mutation { trainIdentityScoringModel { version } }', {}, partner);
    expect(gql.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
  });

  it('keeps exactly one active model when operators train and activate at the same time', async () => {
    const before = (await t.request({ url: '/api/identity/scoring-models' })).json().models as { version: number }[];
    // The newest and the built-in version, twice each, and two trainings: six requests at once.
    const versions = [before[0]!.version, before.at(-1)!.version];
    const activations = [...versions, ...versions].map((v) => t.request({ method: 'POST', url: `/api/identity/scoring-models/${v}/activate` }));
    const trainings = [1, 2].map(() => t.request({ method: 'POST', url: '/api/identity/scoring-models', body: { seed: 11 } }));
    const answers = await Promise.all([...activations, ...trainings]);
    // A training that lost the race for its version is told so (409); nothing fails otherwise.
    for (const res of answers) expect([200, 201, 409], res.body).toContain(res.statusCode);
    const trained = answers.filter((r) => r.statusCode === 201).map((r) => r.json().version as number);
    expect(trained.length).toBeGreaterThanOrEqual(1);
    expect(new Set(trained).size).toBe(trained.length);

    const after = (await t.request({ url: '/api/identity/scoring-models' })).json().models as { version: number; active: boolean }[];
    expect(after.filter((m) => m.active)).toHaveLength(1);
    const active = after.find((m) => m.active)!.version;
    expect((await t.request({ url: '/api/identity/scoring-models/active' })).json()).toMatchObject({ version: active, active: true });
    expect((await t.graphql<{ identityAuditVerification: { valid: boolean } }>('{ identityAuditVerification { valid } }')).data!.identityAuditVerification.valid).toBe(true);
  });
});

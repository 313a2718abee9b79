import { readFileSync } from 'node:fs';
import { Kind, parse, type ObjectTypeDefinitionNode } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CAPABILITIES } from '@svc/platform';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { eventually } from './support/patience.js';

/**
 * Analytics end to end: questions read into structured queries and executed over a data set
 * seeded through the public FHIR API, the Charlson score over seeded Conditions, tenancy and
 * scopes, the GraphQL twins, and the deprecated routes both ways (410 past the sunset; working,
 * with their headers, once the operator moves the sunset).
 */

const ICD = 'http://hl7.org/fhir/sid/icd-10-cm';
const SCT = 'http://snomed.info/sct';
const MOVED = '2027-03-31';

const day = (offsetDays: number): string => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
/** A birth date 30 days past the `age`th birthday: `age` completed years today. */
function born(age: number): string {
  const now = new Date();
  const anniversary = Date.UTC(now.getUTCFullYear() - age, now.getUTCMonth(), Math.min(now.getUTCDate(), 28));
  return new Date(anniversary - 30 * 86_400_000).toISOString().slice(0, 10);
}

interface Seeded {
  gender: 'female' | 'male';
  age: number;
  conditions: { system: string; code: string; onset: string; display?: string; refuted?: boolean }[];
  heartRates?: { value: number; daysAgo: number; unit?: string }[];
}

/** The data set: partner A's patients (the table's results count these) and one of partner B's. */
const PATIENTS: Record<string, Seeded> = {
  p1: { gender: 'female', age: 70, conditions: [{ system: ICD, code: 'E11.9', onset: '2025-03-10' }, { system: SCT, code: '38341003', onset: '2024-05-01' }], heartRates: [{ value: 80, daysAgo: 5 }, { value: 90, daysAgo: 10 }] },
  p2: { gender: 'female', age: 66, conditions: [{ system: SCT, code: '44054006', onset: '2025-07-02' }], heartRates: [{ value: 120, daysAgo: 2 }] },
  p3: { gender: 'female', age: 65, conditions: [{ system: ICD, code: 'E11.65', onset: '2024-11-01' }] },
  p4: {
    gender: 'male',
    age: 72,
    conditions: [
      { system: ICD, code: 'E11.22', onset: '2019-06-01', display: 'Type 2 diabetes mellitus with diabetic chronic kidney disease' },
      { system: ICD, code: 'E11.9', onset: '2018-01-01' },
      { system: ICD, code: 'N18.3', onset: '2019-06-01' },
      { system: ICD, code: 'I50.9', onset: '2020-02-02' },
      { system: ICD, code: 'I10', onset: '2015-01-01' },
    ],
    heartRates: [{ value: 70, daysAgo: 3 }, { value: 1.2, daysAgo: 1, unit: 'Hz' }],
  },
  p5: { gender: 'female', age: 40, conditions: [{ system: ICD, code: 'J45.909', onset: '2025-01-15' }, { system: ICD, code: 'J45.20', onset: '2025-02-01', refuted: true }] },
  p6: { gender: 'male', age: 30, conditions: [{ system: ICD, code: 'J45.40', onset: '2025-01-20' }] },
  p7: { gender: 'female', age: 12, conditions: [{ system: SCT, code: '195967001', onset: '2025-04-03' }] },
  p8: { gender: 'male', age: 50, conditions: [{ system: ICD, code: 'J45.909', onset: '2024-12-30' }, { system: ICD, code: 'I10', onset: '2022-03-03' }], heartRates: [{ value: 100, daysAgo: 40 }] },
};

/** The table: each question, the structured query it must read as, and its result over the data set. */
const TABLE: { question: string; query: Record<string, unknown>; result: Record<string, unknown> }[] = [
  {
    question: 'How many female patients over 65 with diabetes?',
    query: { measure: 'patient_count', cohort: { gender: 'female', age: { min: 66, max: null }, conditions: { match: 'all', concepts: [{ concept: 'diabetes' }] }, excluded_conditions: [] }, period: null, group_by: null },
    result: { value: 2, patients: 2 },
  },
  {
    question: 'average heart rate of patients with hypertension last 30 days',
    query: { measure: 'observation_average', observation: { concept: 'heart-rate', loinc: ['8867-4'], unit: '/min' }, cohort: { conditions: { concepts: [{ concept: 'hypertension' }] } }, period: { start: day(-29), end: day(0) }, period_applies_to: 'observation_date' },
    result: { value: 80, unit: '/min', observations: 3, patients: 2, observations_in_other_units: 1 },
  },
  {
    question: 'monthly count of new asthma diagnoses in 2025',
    query: { measure: 'condition_count', cohort: { conditions: { concepts: [{ concept: 'asthma' }] } }, period: { start: '2025-01-01', end: '2025-12-31' }, period_applies_to: 'condition_onset', group_by: 'month' },
    result: { value: 3 },
  },
  {
    question: 'How many patients aged 40 to 60 have hypertension or asthma?',
    query: { measure: 'patient_count', cohort: { age: { min: 40, max: 60 }, conditions: { match: 'any', concepts: [{ concept: 'hypertension' }, { concept: 'asthma' }] } } },
    result: { value: 2 },
  },
  {
    question: 'Number of patients with diabetes but without chronic kidney disease',
    query: { measure: 'patient_count', cohort: { conditions: { concepts: [{ concept: 'diabetes' }] }, excluded_conditions: [{ concept: 'chronic-kidney-disease' }] } },
    result: { value: 3 },
  },
  { question: 'how many men with hypertension', query: { cohort: { gender: 'male', conditions: { concepts: [{ concept: 'hypertension' }] } } }, result: { value: 2 } },
  { question: 'How many children with asthma?', query: { cohort: { age: { min: null, max: 17 }, conditions: { concepts: [{ concept: 'asthma' }] } } }, result: { value: 1 } },
  {
    question: 'how many patients were diagnosed with diabetes in 2025',
    query: { measure: 'patient_count', period: { start: '2025-01-01', end: '2025-12-31' }, period_applies_to: 'condition_onset' },
    result: { value: 2 },
  },
  {
    question: 'how many patients with type 2 diabetes and hypertension',
    query: { cohort: { conditions: { match: 'all', concepts: [{ concept: 'type-2-diabetes' }, { concept: 'hypertension' }] } } },
    result: { value: 2 },
  },
];

describe('analytics', () => {
  let t: TestSystem;
  let aGpid: string;
  let a: string;
  let b: string;
  let noAnalytics: string;
  let noFhir: string;
  const ids: Record<string, string> = {};

  const grant = async (gpid: string, extra: string[]) => {
    const held = (await t.graphql<{ partner: { grantedScopes: string[] } }>('query($g: ID!) { partner(gpid: $g) { grantedScopes } }', { g: gpid })).data!.partner.grantedScopes;
    const res = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: [...held, ...extra] } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const create = async (token: string, resource: Record<string, unknown>): Promise<string> => {
    const res = await fhir(t, token, 'POST', `/${resource['resourceType'] as string}`, resource);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().id as string;
  };
  const seed = async (token: string, key: string, p: Seeded) => {
    const id = await create(token, { resourceType: 'Patient', gender: p.gender, birthDate: born(p.age), name: [{ family: key }] });
    ids[key] = id;
    for (const c of p.conditions) {
      await create(token, {
        resourceType: 'Condition',
        subject: { reference: `Patient/${id}` },
        code: { coding: [{ system: c.system, code: c.code, ...(c.display ? { display: c.display } : {}) }] },
        onsetDateTime: c.onset,
        ...(c.refuted ? { verificationStatus: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/condition-ver-status', code: 'refuted' }] } } : {}),
      });
    }
    for (const hr of p.heartRates ?? []) {
      const unit = hr.unit ?? '/min';
      await create(token, {
        resourceType: 'Observation',
        status: 'final',
        code: { coding: [{ system: 'http://loinc.org', code: '8867-4', display: 'Heart rate' }] },
        subject: { reference: `Patient/${id}` },
        effectiveDateTime: day(-hr.daysAgo),
        valueQuantity: { value: hr.value, unit, system: 'http://unitsofmeasure.org', code: unit },
      });
    }
  };
  const nl = (token: string, question: string, purpose = 'PUBHLTH') => t.request({ method: 'POST', url: '/analytics/v1/query/nl', token, body: { question, purpose_of_use: purpose } });
  const execute = (token: string, queryId: string) => t.request({ method: 'POST', url: '/analytics/v1/query/execute', token, body: { query_id: queryId } });

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_DEPRECATION_SUNSETS: `analytics.v1.query=${MOVED},analytics.v1.risk-score=${MOVED}` });
    aGpid = await registerPartner(t, 'Analytics Partner');
    const bGpid = await registerPartner(t, 'Other Partner');
    await grant(aGpid, ['analytics.query', 'analytics.score']);
    await grant(bGpid, ['analytics.query', 'analytics.score']);
    a = await apiToken(t, aGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'analytics.query', 'analytics.score']);
    b = await apiToken(t, bGpid, ['cms.fhir.r4.read', 'cms.fhir.rest.write', 'analytics.query', 'analytics.score']);
    noAnalytics = await apiToken(t, aGpid, ['cms.fhir.r4.read']);
    noFhir = await apiToken(t, aGpid, ['analytics.query', 'analytics.score']);
    for (const [key, p] of Object.entries(PATIENTS)) await seed(a, key, p);
    // Partner B's own diabetic woman of 80: never in partner A's results.
    await seed(b, 'other', { gender: 'female', age: 80, conditions: [{ system: ICD, code: 'E11.9', onset: '2025-05-05' }], heartRates: [{ value: 200, daysAgo: 1 }] });
  });
  afterAll(() => t?.close());

  it.each(TABLE)('reads and executes: $question', async ({ question, query, result }) => {
    const read = await nl(a, question);
    expect(read.statusCode, read.body).toBe(201);
    const body = read.json();
    expect(body.query_id).toMatch(/^anq_[0-9a-z]{26}$/);
    expect(body.structured_query).toMatchObject(query);
    expect(body.explanation.summary).toEqual(expect.any(String));
    expect(body.explanation.readings.length).toBeGreaterThan(0);
    expect(Date.parse(body.expires_at)).toBeGreaterThan(Date.parse(body.created_at));
    const run = await execute(a, body.query_id);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ query_id: body.query_id, ...result });
  });

  it("narrows a SMART client bound to one patient to that patient's data (and never fails on the narrowing)", async () => {
    await grant(aGpid, ['patient/*.rs']);
    const registered = await t.request({
      method: 'POST',
      url: '/cms/oauth/register',
      body: { client_name: 'one-patient app', scope: 'patient/*.rs analytics.query analytics.score', token_endpoint_auth_method: 'client_secret_post', partner_gpid: aGpid, patient: ids['p1'] },
    });
    expect(registered.statusCode, registered.body).toBe(201);
    const client = registered.json();
    const issued = await t.request({
      method: 'POST',
      url: '/oauth/token',
      token: null,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }).toString(),
    });
    expect(issued.statusCode, issued.body).toBe(200);
    const bound = issued.json().access_token as string;
    const read = await nl(bound, TABLE[0]!.question);
    expect(read.statusCode, read.body).toBe(201);
    const run = await execute(bound, read.json().query_id);
    expect(run.statusCode, run.body).toBe(200);
    expect(run.json()).toMatchObject({ value: 1, patients: 1 }); // p1 alone, where the partner's view counts 2
    const own = await t.request({ method: 'POST', url: '/analytics/v1/analytics-score/compute', token: bound, body: { patient_id: ids['p1'] } });
    expect(own.statusCode, own.body).toBe(200);
    const other = await t.request({ method: 'POST', url: '/analytics/v1/analytics-score/compute', token: bound, body: { patient_id: ids['p2'] } });
    expect(other.statusCode).toBe(404);
  });

  it('groups a trend by month, months without diagnoses answering 0; refuted diagnoses do not count', async () => {
    const read = await nl(a, 'monthly count of new asthma diagnoses in 2025');
    const run = (await execute(a, read.json().query_id)).json();
    expect(run.series).toHaveLength(12);
    expect(run.series.map((p: { period: string; value: number }) => `${p.period}=${p.value}`)).toEqual([
      '2025-01=2', '2025-02=0', '2025-03=0', '2025-04=1', '2025-05=0', '2025-06=0', '2025-07=0', '2025-08=0', '2025-09=0', '2025-10=0', '2025-11=0', '2025-12=0',
    ]);
  });

  it('explains what it understood and what it did not, with examples, instead of guessing', async () => {
    const res = await nl(a, 'how many female patients with diabetes who like pizza');
    expect(res.statusCode).toBe(422);
    const problem = res.json();
    expect(problem.code).toBe('VALIDATION_ERROR');
    expect(problem.errors[0].field).toBe('question');
    expect(problem.not_understood).toEqual(expect.arrayContaining(['"like" is not a word this query language knows', '"pizza" is not a word this query language knows']));
    expect(problem.understood.map((r: { text: string }) => r.text)).toEqual(expect.arrayContaining(['female', 'diabetes']));
    expect(problem.examples.length).toBeGreaterThan(2);

    const weekly = await nl(a, 'weekly count of asthma diagnoses');
    expect(weekly.statusCode).toBe(422);
    expect(weekly.json().not_understood.join(' ')).toContain('grouped by month or by year only');
    expect((await nl(a, 'average weight')).statusCode).toBe(201);
    expect((await nl(a, 'how many patients with heart rate')).json().not_understood.join(' ')).toContain('ask for its average');
  });

  it('validates purpose_of_use (HL7 v3 PurposeOfUse) and the body, naming the field', async () => {
    const marketing = await nl(a, 'how many patients with asthma', 'HMARKT');
    expect(marketing.statusCode).toBe(422);
    expect(marketing.json().errors).toEqual([expect.objectContaining({ field: 'purpose_of_use' })]);
    const missing = await t.request({ method: 'POST', url: '/analytics/v1/query/nl', token: a, body: { question: 'how many patients with asthma' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors).toEqual([expect.objectContaining({ field: 'purpose_of_use' })]);
    expect((await nl(a, 'how many patients with asthma', 'hresch')).statusCode).toBe(201);
    const badId = await t.request({ method: 'POST', url: '/analytics/v1/query/execute', token: a, body: { query_id: 'nope' } });
    expect(badId.statusCode).toBe(422);
    expect(badId.json().errors).toEqual([expect.objectContaining({ field: 'query_id' })]);
  });

  it("keeps partners apart: another partner's query is 404, and its data never counts", async () => {
    const mine = (await nl(a, 'how many female patients over 65 with diabetes')).json().query_id as string;
    const theirs = await execute(b, mine);
    expect(theirs.statusCode).toBe(404);
    expect((await execute(a, 'anq_01jz0000000000000000000000')).statusCode).toBe(404);
    const bQuery = (await nl(b, 'how many female patients over 65 with diabetes')).json().query_id as string;
    expect((await execute(b, bQuery)).json().value).toBe(1);
  });

  it('needs analytics.query, and FHIR search on what the query reads', async () => {
    expect((await nl(noAnalytics, 'how many patients with asthma')).statusCode).toBe(403);
    const id = (await nl(noFhir, 'how many patients with asthma')).json().query_id as string;
    const refused = await execute(noFhir, id);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('INSUFFICIENT_SCOPE');
  });

  it('has GraphQL twins with the same validation and results', async () => {
    const read = await t.graphql<{ analyticsQueryInterpret: { id: string; structuredQuery: Record<string, unknown> } }>(
      'mutation($q: String!, $p: String!) { analyticsQueryInterpret(question: $q, purposeOfUse: $p) { id structuredQuery summary } }',
      { q: 'How many female patients over 65 with diabetes?', p: 'TREAT' },
      a,
    );
    expect(read.errors).toBeUndefined();
    const run = await t.graphql<{ analyticsQueryExecute: { value: number; patients: number } }>('query($id: ID!) { analyticsQueryExecute(queryId: $id) { value patients } }', { id: read.data!.analyticsQueryInterpret.id }, a);
    expect(run.data!.analyticsQueryExecute).toEqual({ value: 2, patients: 2 });
    const bad = await t.graphql('mutation { analyticsQueryInterpret(question: "how many unicorns", purposeOfUse: "TREAT") { id } }', {}, a);
    expect(bad.errors?.[0]?.extensions?.['code']).toBe('VALIDATION_ERROR');
    const denied = await t.graphql('mutation { analyticsQueryInterpret(question: "how many patients with asthma", purposeOfUse: "TREAT") { id } }', {}, noAnalytics);
    expect(denied.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
  });

  it('leaves an audit trail with the purpose of use, never the question text', async () => {
    const id = (await nl(a, 'How many women over 65 with asthma?', 'HQUALIMP')).json().query_id as string;
    expect((await execute(a, id)).statusCode).toBe(200);
    type Node = { type: string; partnerGpid: string; data: Record<string, unknown> };
    const found = await eventually(async () => {
      const res = await t.graphql<{ events: { edges: { node: Node }[] } }>('{ events(first: 100, types: ["analytics.query.created", "analytics.query.executed"]) { edges { node { type partnerGpid data } } } }');
      const mine = res.data!.events.edges.map((e) => e.node).filter((n) => n.data['query_id'] === id);
      expect(mine).toHaveLength(2);
      return mine;
    });
    expect(found.map((n) => n.type).sort()).toEqual(['analytics.query.created', 'analytics.query.executed']);
    for (const n of found) {
      expect(n).toMatchObject({ partnerGpid: aGpid, data: { purpose_of_use: 'HQUALIMP', measure: 'patient_count', concepts: ['asthma'] } });
      expect(JSON.stringify(n.data)).not.toContain('women');
    }
  });

  describe('the Charlson Comorbidity Index', () => {
    const compute = (token: string, body: Record<string, unknown>) => t.request({ method: 'POST', url: '/analytics/v1/analytics-score/compute', token, body });

    it('scores the Conditions with their weights and codes, applying the hierarchy (Quan 2011 weights)', async () => {
      const res = await compute(a, { patient_id: ids['p4']! });
      expect(res.statusCode, res.body).toBe(200);
      const score = res.json();
      expect(score).toMatchObject({ patient_id: ids['p4'], algorithm: 'charlson', weights: 'quan-2011', score: 4, comorbidity_score: 4, age_points: 0, age: null, conditions_without_category: 1, conditions_not_icd10: 0 });
      expect(score.version).toMatch(/^cci-icd10-quan2005\//);
      const byCategory = Object.fromEntries(score.components.map((c: { category: string; weight: number; replaced_by: string | null; evidence: { code: string }[] }) => [c.category, `${c.weight}${c.replaced_by ? ` (${c.replaced_by})` : ''} ${c.evidence.map((e) => e.code).join(',')}`]));
      expect(byCategory).toEqual({
        congestive_heart_failure: '2 I50.9',
        diabetes_without_chronic_complication: '0 (diabetes_with_chronic_complication) E11.9',
        diabetes_with_chronic_complication: '1 E11.22',
        renal_disease: '1 N18.3',
      });
    });

    it('offers the 1987 weights and the age adjustment', async () => {
      expect((await compute(a, { patient_id: ids['p4']!, weights: 'charlson-1987' })).json()).toMatchObject({ score: 5 });
      expect((await compute(a, { patient_id: `Patient/${ids['p4']!}`, age_adjusted: true })).json()).toMatchObject({ score: 7, comorbidity_score: 4, age: 72, age_points: 3 });
      expect((await compute(a, { patient_id: ids['p1']! })).json()).toMatchObject({ score: 0, conditions_not_icd10: 1 });
    });

    it('refuses bad input naming the field, and answers 404 for a patient the caller may not read', async () => {
      const bad = await compute(a, { patient_id: ids['p4']!, weights: 'elixhauser' });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors).toEqual([expect.objectContaining({ field: 'weights' })]);
      expect((await compute(a, {})).json().errors).toEqual([expect.objectContaining({ field: 'patient_id' })]);
      expect((await compute(b, { patient_id: ids['p4']! })).statusCode).toBe(404);
      expect((await compute(noAnalytics, { patient_id: ids['p4']! })).statusCode).toBe(403);
    });

    it('has a GraphQL twin', async () => {
      const res = await t.graphql<{ analyticsScore: { score: number } }>('query($p: String!) { analyticsScore(patientId: $p) { score components { category } } }', { p: ids['p4']! }, a);
      expect(res.data!.analyticsScore.score).toBe(4);
    });
  });

  describe('the deprecated routes, their sunset moved by the operator', () => {
    const expectHeaders = (res: { headers: Record<string, unknown> }, successors: string[]) => {
      expect(res.headers['deprecation']).toBe('true');
      expect(res.headers['sunset']).toBe('Wed, 31 Mar 2027 00:00:00 GMT');
      expect(res.headers['link']).toBe(successors.map((p) => `<${t.config.publicUrl}${p}>; rel="successor-version"`).join(', '));
    };

    it('POST /analytics/v1/query runs nl then execute', async () => {
      const res = await t.request({ method: 'POST', url: '/analytics/v1/query', token: a, body: { query: 'How many female patients over 65 with diabetes?', purpose_of_use: 'PUBHLTH' } });
      expect(res.statusCode, res.body).toBe(200);
      expectHeaders(res, ['/analytics/v1/query/nl', '/analytics/v1/query/execute']);
      const body = res.json();
      expect(body.query.structured_query).toMatchObject({ measure: 'patient_count', cohort: { gender: 'female' } });
      expect(body.result).toMatchObject({ query_id: body.query.query_id, value: 2 });
      const bad = await t.request({ method: 'POST', url: '/analytics/v1/query', token: a, body: { query: 'how many unicorns', purpose_of_use: 'PUBHLTH' } });
      expect(bad.statusCode).toBe(422);
      expectHeaders(bad, ['/analytics/v1/query/nl', '/analytics/v1/query/execute']);
    });

    it('GET /analytics/v1/risk-score runs the compute with query parameters', async () => {
      const res = await t.request({ url: `/analytics/v1/risk-score?patient_id=${ids['p4']!}&age_adjusted=true`, token: a });
      expect(res.statusCode, res.body).toBe(200);
      expectHeaders(res, ['/analytics/v1/analytics-score/compute']);
      expect(res.json()).toMatchObject({ score: 7, age_points: 3 });
      const bad = await t.request({ url: `/analytics/v1/risk-score?patient_id=${ids['p4']!}&age_adjusted=maybe`, token: a });
      expect(bad.statusCode).toBe(422);
      expectHeaders(bad, ['/analytics/v1/analytics-score/compute']);
    });
  });
});

describe('the analytics routes with the default limits, and the deprecated ones past their sunset', () => {
  let t: TestSystem;
  beforeAll(async () => {
    t = await bootSystem();
  });

  it('spend one counter per capability, whether called over REST or through the GraphQL twin', async () => {
    const read = await t.request({ method: 'POST', url: '/analytics/v1/query/nl', body: { question: 'how many patients with asthma', purpose_of_use: 'TREAT' } });
    expect(read.statusCode, read.body).toBe(201);
    const id = read.json().query_id as string;
    const viaGraphql = () => t.graphql('query($id: ID!) { analyticsQueryExecute(queryId: $id) { value } }', { id });
    const viaRest = () => t.request({ method: 'POST', url: '/analytics/v1/query/execute', body: { query_id: id } });
    for (let i = 0; i < 30; i++) {
      // Paced below the product's burst limit (30/s), so only the route's own limit (30/min) is reached.
      const status = i % 2 === 0 ? (await viaRest()).statusCode : (await viaGraphql()).status;
      expect(status, `call ${i + 1}`).toBe(200);
      await new Promise((r) => setTimeout(r, 40));
    }
    const refused = await viaRest();
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ code: 'RATE_LIMITED', policy: 'route', limit: 30, window_seconds: 60 });
    expect((await viaGraphql()).errors?.[0]?.extensions?.['code']).toBe('RATE_LIMITED');
  });

  afterAll(() => t?.close());

  it('answer 410 with the deprecation headers and name their successors', async () => {
    const query = await t.request({ method: 'POST', url: '/analytics/v1/query', body: { question: 'how many patients with asthma', purpose_of_use: 'PUBHLTH' } });
    expect(query.statusCode).toBe(410);
    expect(query.headers['sunset']).toBe('Sat, 12 Sep 2026 00:00:00 GMT');
    expect(query.json()).toMatchObject({ code: 'GONE', sunset: '2026-09-12' });
    const score = await t.request({ url: '/analytics/v1/risk-score?patient_id=x' });
    expect(score.statusCode).toBe(410);
    expect(score.headers['deprecation']).toBe('true');
    expect(score.headers['link']).toContain('/analytics/v1/analytics-score/compute');
  });
});

describe('the analytics routes as documented', () => {
  it('spend the same limit as their GraphQL twins, which exist in the supergraph', () => {
    const doc = parse(readFileSync(new URL('../supergraph.graphql', import.meta.url), 'utf8'));
    const roots = new Map<string, Set<string>>();
    for (const d of doc.definitions) {
      if (d.kind === Kind.OBJECT_TYPE_DEFINITION && (d.name.value === 'Query' || d.name.value === 'Mutation')) {
        roots.set(d.name.value, new Set((d as ObjectTypeDefinitionNode).fields?.map((f) => f.name.value)));
      }
    }
    const twins = { 'analytics.query.nl': ['Mutation.analyticsQueryInterpret'], 'analytics.query.execute': ['Query.analyticsQueryExecute'], 'analytics.score.compute': ['Query.analyticsScore'] };
    for (const [id, fields] of Object.entries(twins)) {
      expect(CAPABILITIES[id as keyof typeof CAPABILITIES].graphql).toEqual(fields);
      for (const field of fields) {
        const [root, name] = field.split('.') as [string, string];
        expect(roots.get(root)?.has(name), field).toBe(true);
      }
    }
  });
});


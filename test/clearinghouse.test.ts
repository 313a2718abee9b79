import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X12Interchange, X12Parser } from 'node-x12';
import { bootSystem, type TestSystem } from './support/system.js';
import { jobThreadCalls } from './support/metrics.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';

/**
 * The clearinghouse routes (/velocity/v1/clearinghouse/*) end to end: real ASC X12 005010 files
 * (test/fixtures/x12, written from the published 270, 276 and 837P structures) and their JSON
 * forms, answered by the sandbox payer, stored as FHIR resources of the submitting partner.
 * Every X12 answer is checked with node-x12's strict parser on its own (envelope, control numbers
 * and counts) and must serialize back to the same text.
 */

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/x12/${name}`, import.meta.url), 'utf8');
const X12 = { 'content-type': 'application/edi-x12' };
const BASE = '/velocity/v1/clearinghouse';

/** Parse an X12 answer strictly, check it round-trips, and answer its segments as `TAG*el*el` lines. */
function x12Lines(text: string): string[] {
  const parsed = new X12Parser(true).parse(text);
  expect(parsed).toBeInstanceOf(X12Interchange);
  const interchange = parsed as X12Interchange;
  expect(interchange.toString()).toBe(text);
  const lines = [interchange.header.toString()];
  for (const group of interchange.functionalGroups) {
    lines.push(group.header.toString());
    for (const tx of group.transactions) lines.push(tx.header.toString(), ...tx.segments.map((s) => s.toString()), tx.trailer.toString());
    lines.push(group.trailer.toString());
  }
  lines.push(interchange.trailer.toString());
  return lines.map((l) => l.replace(/~$/, ''));
}

const eligibilityJson = (memberId: string) => ({
  payer: { id: '12345', name: 'ACME HEALTH PLAN' },
  provider: { npi: '1234567893', name: 'RIVERSIDE CLINIC' },
  subscriber: { member_id: memberId, first_name: 'JANE', last_name: 'DOE', birth_date: '1980-01-01', gender: 'F' },
  service_type_codes: ['30', '98'],
  service_date: '2026-11-23',
});

describe('clearinghouse: eligibility, claim status and claim submission in X12 005010 and JSON', () => {
  let t: TestSystem;
  let alphaGpid: string;
  let alpha: string;
  let beta: string;
  let eligibilityOnly: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off' });
    alphaGpid = await registerPartner(t, 'Alpha Clinic Billing');
    const betaGpid = await registerPartner(t, 'Beta Clinic Billing');
    // Clearinghouse scopes need an operator's grant; the partner then delegates them to its tokens.
    for (const gpid of [alphaGpid, betaGpid]) {
      const grant = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: ['velocity.clearinghouse.*', 'cms.fhir.r4.read', 'cms.tokens.manage'] } });
      expect(grant.statusCode).toBe(200);
    }
    alpha = await apiToken(t, alphaGpid, ['velocity.clearinghouse.*', 'cms.fhir.r4.read']);
    beta = await apiToken(t, betaGpid, ['velocity.clearinghouse.*']);
    eligibilityOnly = await apiToken(t, alphaGpid, ['velocity.clearinghouse.eligibility']);
  });
  afterAll(() => t?.close());

  it('answers a 270 file with a 271: active coverage, plan benefits in EB segments, control numbers echoed', async () => {
    const res = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: X12, body: fixture('270-eligibility.x12') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/edi-x12/);
    const lines = x12Lines(res.body);
    expect(lines[0]).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*ACMEPAYER {6}\*ZZ\*SUBMITTER01 {4}\*\d{6}\*\d{4}\*\^\*00501\*\d{9}\*0\*T\*:$/);
    expect(lines[1]).toMatch(/^GS\*HB\*ACMEPAYER\*SUBMITTER01\*\d{8}\*\d{4}\*\d+\*X\*005010X279A1$/);
    expect(lines).toContain('ST*271*0001*005010X279A1');
    expect(lines.find((l) => l.startsWith('BHT'))).toMatch(/^BHT\*0022\*11\*10001234\*/);
    expect(lines).toEqual(
      expect.arrayContaining([
        'NM1*PR*2*ACME HEALTH PLAN*****PI*12345',
        'NM1*1P*2*RIVERSIDE CLINIC*****XX*1234567893',
        'TRN*2*93175-012547*9877281234',
        'NM1*IL*1*DOE*JANE****MI*W123456789',
        'DMG*D8*19800101*F',
        'DTP*346*D8*20260101',
        'EB*1*IND*30*PR*GOLD PPO',
        'EB*C*IND*30***23*1500.00*****Y',
        'EB*G*IND*30***23*4000.00*****Y',
        'EB*A*IND*30*****0.2****Y',
        'EB*B*IND*98***27*25.00*****Y',
      ]),
    );
    // The same request always gets the same benefits (the sandbox is deterministic).
    const again = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: X12, body: fixture('270-eligibility.x12') });
    expect(x12Lines(again.body).filter((l) => l.startsWith('EB'))).toEqual(lines.filter((l) => l.startsWith('EB')));
  });

  it('takes and gives JSON too, and answers inactive and unknown members as the sandbox table says', async () => {
    const active = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, body: eligibilityJson('W123456789') });
    expect(active.statusCode).toBe(200);
    expect(active.headers['content-type']).toMatch(/^application\/json/);
    const body = active.json();
    expect(body).toMatchObject({ transaction: '271', coverage_status: 'active', plan: { name: 'GOLD PPO', begin_date: '2026-01-01' }, subscriber: { member_id: 'W123456789' } });
    expect(body.benefits[0]).toEqual({ eligibility_code: '1', meaning: 'Active Coverage', coverage_level: 'IND', service_type_codes: ['30', '98'], insurance_type: 'PR', plan_description: 'GOLD PPO' });
    expect(body.benefits).toContainEqual({ eligibility_code: 'C', meaning: 'Deductible', coverage_level: 'IND', service_type_codes: ['30'], time_period: 'calendar_year', amount: '1500.00', in_network: true });

    const inactive = (await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, body: eligibilityJson('IN0000042') })).json();
    expect(inactive).toMatchObject({ coverage_status: 'inactive', plan: { end_date: '2025-12-31' }, benefits: [{ eligibility_code: '6', meaning: 'Inactive' }] });
    const missing = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: { accept: 'application/edi-x12' }, body: eligibilityJson('NF0000001') });
    expect(missing.statusCode).toBe(200);
    const lines = x12Lines(missing.body);
    expect(lines).toContain('AAA*N**75*C');
    expect(lines.some((l) => l.startsWith('EB'))).toBe(false);

    // Stored as FHIR resources of the partner: readable with its FHIR read scope, invisible to another partner.
    const stored = await fhir(t, alpha, 'GET', `/CoverageEligibilityResponse/${body.eligibility_response_id}`);
    expect(stored.statusCode).toBe(200);
    expect(stored.json()).toMatchObject({ resourceType: 'CoverageEligibilityResponse', outcome: 'complete', request: { reference: `CoverageEligibilityRequest/${body.eligibility_request_id}` }, insurance: [{ inforce: true }] });
    const otherReader = await apiToken(t, await registerPartner(t, 'Gamma Reader'), ['cms.fhir.r4.read']);
    expect((await fhir(t, otherReader, 'GET', `/CoverageEligibilityResponse/${body.eligibility_response_id}`)).statusCode).toBe(404);
  });

  it('refuses bad interchanges with X12_INVALID naming segment and element, and bad JSON naming the field', async () => {
    const text = fixture('270-eligibility.x12');
    const cases: [string, string, string][] = [
      [text.replace('SE*13*0001', 'SE*11*0001'), 'SE', 'SE01'],
      [text.replace('GE*1*101', 'GE*1*102'), 'GE', 'GE02'],
      [text.replace('IEA*1*000000101', 'IEA*1*000000100'), 'IEA', 'IEA02'],
      [text.replace('MI*W123456789', 'MI*'), 'NM1', 'NM109'],
      [text.replace('EQ*30', 'EQ*'), 'EQ', 'EQ01'],
    ];
    for (const [bad, segment, element] of cases) {
      const res = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: X12, body: bad });
      expect(res.statusCode, element).toBe(422);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const problem = res.json();
      expect(problem.code).toBe('X12_INVALID');
      expect(problem.detail).toContain(element);
      expect(problem.x12_errors[0]).toMatchObject({ segment, element });
      expect(problem.errors[0].field).toBe(element);
    }
    const notX12 = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(notX12.json()).toMatchObject({ status: 422, code: 'X12_INVALID', x12_errors: [{ segment: 'ISA' }] });

    const json = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, body: { ...eligibilityJson('W1'), provider: { npi: '1234567890', name: 'X' }, subscriber: { last_name: 'DOE' } } });
    expect(json.statusCode).toBe(422);
    expect(json.json().errors).toEqual(
      expect.arrayContaining([
        { field: 'provider.npi', message: 'is not a valid NPI (check digit)' },
        { field: 'subscriber.member_id', message: 'is required' },
      ]),
    );
    const notAcceptable = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: { accept: 'image/png' }, body: eligibilityJson('W1') });
    expect(notAcceptable.statusCode).toBe(406);
  });

  it('requires the clearinghouse scope of each transaction, over REST and GraphQL alike', async () => {
    const noScope = await apiToken(t, alphaGpid, ['cms.fhir.r4.read']);
    const rest = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: noScope, body: eligibilityJson('W1') });
    expect(rest.statusCode).toBe(403);
    expect(rest.json().required_scopes).toEqual(['velocity.clearinghouse.eligibility']);
    expect((await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: eligibilityOnly, body: eligibilityJson('W1') })).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: `${BASE}/claims`, token: eligibilityOnly, headers: X12, body: fixture('837p-claims.x12') })).statusCode).toBe(403);

    const doc = 'mutation($x12: String) { clearinghouseEligibility(x12: $x12) { coverageStatus memberId planName benefits { code amount inNetwork } x12 } }';
    const refused = await t.graphql(doc, { x12: fixture('270-eligibility.x12') }, noScope);
    expect(refused.errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');
    const ok = await t.graphql<{ clearinghouseEligibility: { coverageStatus: string; memberId: string; planName: string; benefits: { code: string }[]; x12: string } }>(doc, { x12: fixture('270-eligibility.x12') }, eligibilityOnly);
    expect(ok.errors).toBeUndefined();
    expect(ok.data!.clearinghouseEligibility).toMatchObject({ coverageStatus: 'active', memberId: 'W123456789', planName: 'GOLD PPO' });
    expect(x12Lines(ok.data!.clearinghouseEligibility.x12)).toContain('EB*1*IND*30*PR*GOLD PPO');
    const invalid = await t.graphql(doc, { x12: fixture('270-eligibility.x12').replace('SE*13', 'SE*14') }, eligibilityOnly);
    expect(invalid.errors?.[0]?.extensions).toMatchObject({ code: 'X12_INVALID', x12_errors: [{ segment: 'SE', element: 'SE01' }] });
  });

  it('accepts an 837P with a TA1 and a 999, stores the claims, and reports each claim to its own partner only', async () => {
    const res = await t.request({ method: 'POST', url: `${BASE}/claims`, token: alpha, headers: X12, body: fixture('837p-claims.x12') });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/edi-x12/);
    const [ta1, ack] = res.body.split('\n');
    // node-x12 reads no TA1 (an interchange without functional groups), so its shape is checked here.
    expect(ta1).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*ACMEPAYER {6}\*ZZ\*SUBMITTER01 {4}\*\d{6}\*\d{4}\*\^\*00501\*000000103\*0\*T\*:~TA1\*000000103\*261123\*1023\*A\*000~IEA\*0\*000000103~$/);
    expect(x12Lines(ack!)).toEqual(expect.arrayContaining(['ST*999*0001*005010X231A1', 'AK1*HC*103*005010X222A1', 'AK2*837*0003*005010X222A1', 'IK5*A', 'AK9*A*1*1*1']));

    // The same interchange again (a retry): nothing new is stored, the claims are those stored the first time.
    const json = await t.request({ method: 'POST', url: `${BASE}/claims`, token: alpha, headers: { ...X12, accept: 'application/json' }, body: fixture('837p-claims.x12') });
    expect(json.statusCode).toBe(200);
    const submitted = json.json();
    expect(submitted).toMatchObject({ transaction: '837P', accepted: true, replayed: true, reference: '244579' });
    const stored = (await fhir(t, alpha, 'GET', '/Claim?identifier=urn:svc:x12:patient-control-number|PCN-1001')).json();
    expect(stored.total).toBe(1);
    // Its control number reused for other claims is a conflict.
    const reused = await t.request({ method: 'POST', url: `${BASE}/claims`, token: alpha, headers: X12, body: fixture('837p-claims.x12').replace('CLM*PCN-1002*', 'CLM*PCN-1003*') });
    expect(reused.statusCode).toBe(409);
    expect(reused.json()).toMatchObject({ code: 'CONFLICT', x12_errors: [{ segment: 'ISA', element: 'ISA13' }] });
    expect(reused.json().ta1).toContain('~TA1*000000103*261123*1023*R*025~');
    expect(submitted.claims.map((c: { patient_control_number: string; status: { category_code: string } }) => [c.patient_control_number, c.status.category_code])).toEqual([
      ['PCN-1001', 'F1'],
      ['PCN-1002', 'P1'],
    ]);
    const [paid, pending] = submitted.claims as { claim_id: string; status: Record<string, unknown> }[];
    expect(paid!.status).toMatchObject({ status_code: '65', total_charge: '150.00', paid_amount: '120.00', payer_claim_number: expect.stringMatching(/^PCN\d{10}$/) });

    const got = await t.request({ url: `${BASE}/claims/${pending!.claim_id}`, token: alpha });
    expect(got.statusCode).toBe(200);
    expect(got.json()).toMatchObject({ claim_id: pending!.claim_id, patient_control_number: 'PCN-1002', member_id: 'PD5550001', status: { category_code: 'P1', total_charge: '85.50', paid_amount: null } });
    const other = await t.request({ url: `${BASE}/claims/${pending!.claim_id}`, token: beta });
    const missing = await t.request({ url: `${BASE}/claims/00000000-0000-4000-8000-000000000000`, token: beta });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe(missing.json().code);

    // Stored as FHIR Claim and ClaimResponse with the X12 claim status.
    const claim = (await fhir(t, alpha, 'GET', `/Claim/${paid!.claim_id}`)).json();
    expect(claim).toMatchObject({ resourceType: 'Claim', use: 'claim', total: { value: 150, currency: 'USD' }, diagnosis: [{ diagnosisCodeableConcept: { coding: [{ code: 'J069' }] } }, { sequence: 2 }], item: [{ productOrService: { coding: [{ code: '99213' }] } }, { servicedDate: '2026-11-01' }] });
    const responses = (await fhir(t, alpha, 'GET', `/ClaimResponse?request=Claim/${paid!.claim_id}`)).json();
    expect(responses.entry[0].resource).toMatchObject({ outcome: 'complete', extension: [{ valueCodeableConcept: { coding: [{ code: 'F1' }, { code: '65' }] } }] });
  });

  it('refuses an 837P whose claim total is not the sum of its lines, with the rejecting 999', async () => {
    const bad = fixture('837p-claims.x12').replace('CLM*PCN-1001*150*', 'CLM*PCN-1001*140*');
    const res = await t.request({ method: 'POST', url: `${BASE}/claims`, token: alpha, headers: X12, body: bad });
    expect(res.statusCode).toBe(422);
    const problem = res.json();
    expect(problem).toMatchObject({ code: 'X12_INVALID', x12_errors: [{ segment: 'CLM', element: 'CLM02', position: 16 }] });
    expect(x12Lines(problem.acknowledgement_999)).toEqual(expect.arrayContaining(['IK3*CLM*16**8', 'IK4*2**I12', 'IK5*R*5', 'AK9*R*1*1*0']));
    expect(problem.ta1).toBeUndefined();
    // Refused at the interchange level: a rejecting TA1 (note 001: header and trailer control numbers differ).
    const envelope = await t.request({ method: 'POST', url: `${BASE}/claims`, token: alpha, headers: X12, body: fixture('837p-claims.x12').replace('IEA*1*000000103', 'IEA*1*000000104') });
    expect(envelope.statusCode).toBe(422);
    expect(envelope.json()).toMatchObject({ code: 'X12_INVALID', x12_errors: [{ segment: 'IEA', element: 'IEA02' }] });
    expect(envelope.json().ta1).toMatch(/^ISA\*00\* {10}\*00\* {10}\*ZZ\*ACMEPAYER {6}\*ZZ\*SUBMITTER01 {4}\*.*~TA1\*000000103\*261123\*1023\*R\*001~IEA\*0\*000000103~$/);
  });

  it('submits JSON claims and answers 276 inquiries from the stored claim, or from the sandbox payer for others', async () => {
    const submit = await t.request({
      method: 'POST',
      url: `${BASE}/claims`,
      token: beta,
      body: {
        submitter: { name: 'BETA BILLING', id: 'S999' },
        receiver: { name: 'ACME HEALTH PLAN', id: '12345' },
        billing_provider: { npi: '1234567893', name: 'BETA CLINIC', tax_id: '987654321' },
        claims: [
          {
            patient_control_number: 'PCN-1001',
            total_charge: '200.00',
            diagnosis_codes: ['I10'],
            subscriber: { member_id: 'IN7770001', last_name: 'POE', first_name: 'ANN' },
            payer: { id: '12345', name: 'ACME HEALTH PLAN' },
            service_lines: [{ procedure_code: '99214', charge: '200.00', service_date: '2026-11-03' }],
          },
        ],
      },
    });
    expect(submit.statusCode, submit.body).toBe(201);
    const submitted = submit.json();
    expect(submitted).toMatchObject({ replayed: false, ta1: null });
    expect(submitted.claims[0].status).toMatchObject({ category_code: 'F2', status_code: '88', paid_amount: '0.00' });
    expect(submit.headers['location']).toBe(`${BASE}/claims/${submitted.claims[0].claim_id}`);
    expect(x12Lines(submitted.acknowledgement_999)).toContain('IK5*A');

    // Alpha's PCN-1001 (paid) and beta's PCN-1001 (denied): each partner sees its own.
    const alphaStatus = await t.request({ method: 'POST', url: `${BASE}/claim-status`, token: alpha, headers: X12, body: fixture('276-claim-status.x12') });
    expect(alphaStatus.statusCode).toBe(200);
    const lines = x12Lines(alphaStatus.body);
    expect(lines).toContain('ST*277*0002*005010X212');
    expect(lines).toContain('TRN*2*STATUS-0001');
    expect(lines.find((l) => l.startsWith('STC'))).toMatch(/^STC\*F1:65\*\d{8}\*\*150\.00\*120\.00$/);
    expect(lines).toContain('REF*EJ*PCN-1001');
    const betaStatus = await t.request({ method: 'POST', url: `${BASE}/claim-status`, token: beta, headers: { ...X12, accept: 'application/json' }, body: fixture('276-claim-status.x12') });
    expect(betaStatus.json()).toMatchObject({ transaction: '277', claim_id: submitted.claims[0].claim_id, status: { category_code: 'F2', status_code: '88' } });

    // A claim the clearinghouse never saw: the sandbox payer's table by member id.
    const unknown = await t.request({
      method: 'POST',
      url: `${BASE}/claim-status`,
      token: alpha,
      body: {
        payer: { id: '12345', name: 'ACME HEALTH PLAN' },
        receiver: { name: 'RIVERSIDE CLINIC', id: 'S123456' },
        provider: { npi: '1234567893', name: 'RIVERSIDE CLINIC' },
        subscriber: { member_id: 'NF0000001', last_name: 'DOE' },
        patient_control_number: 'PCN-9999',
        total_charge: '75.00',
      },
    });
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toMatchObject({ claim_id: null, status: { category_code: 'A4', status_code: '35', total_charge: '75.00' } });
    const noClaim = await t.request({ method: 'POST', url: `${BASE}/claim-status`, token: alpha, body: { payer: { id: '12345', name: 'P' }, receiver: { name: 'R', id: 'S1' }, provider: { npi: '1234567893', name: 'R' }, subscriber: { member_id: 'W1', last_name: 'D' } } });
    expect(noClaim.statusCode).toBe(422);
    expect(noClaim.json().errors).toEqual([{ field: 'patient_control_number', message: 'patient_control_number or payer_claim_number is required' }]);
  });

  it('serves claims over GraphQL with the same validation, scopes and tenancy as REST', async () => {
    const submitDoc = `mutation($x12: String) { clearinghouseSubmitClaims(x12: $x12) { replayed ta1 acknowledgement999 claims { claimId patientControlNumber status { categoryCode statusCode totalCharge paidAmount payerClaimNumber } } } }`;
    const text = fixture('837p-claims.x12').replaceAll('000000103', '000000203');
    const submitted = await t.graphql<{ clearinghouseSubmitClaims: { replayed: boolean; ta1: string; acknowledgement999: string; claims: { claimId: string; patientControlNumber: string; status: { categoryCode: string; paidAmount: string | null } }[] } }>(submitDoc, { x12: text }, beta);
    expect(submitted.errors).toBeUndefined();
    const result = submitted.data!.clearinghouseSubmitClaims;
    expect(result.replayed).toBe(false);
    expect(result.ta1).toContain('TA1*000000203*261123*1023*A*000');
    expect(x12Lines(result.acknowledgement999)).toContain('IK5*A');
    expect(result.claims.map((c) => [c.patientControlNumber, c.status.categoryCode, c.status.paidAmount])).toEqual([
      ['PCN-1001', 'F1', '120.00'],
      ['PCN-1002', 'P1', null],
    ]);
    const claimDoc = 'query($id: ID!) { clearinghouseClaim(id: $id) { claimId status { categoryCode } } }';
    const own = await t.graphql<{ clearinghouseClaim: { claimId: string } }>(claimDoc, { id: result.claims[0]!.claimId }, beta);
    expect(own.data!.clearinghouseClaim.claimId).toBe(result.claims[0]!.claimId);
    const foreign = await t.graphql(claimDoc, { id: result.claims[0]!.claimId }, alpha);
    expect(foreign.errors?.[0]?.extensions?.['code']).toBe('NOT_FOUND');
    expect((await t.graphql(claimDoc, { id: result.claims[0]!.claimId }, eligibilityOnly)).errors?.[0]?.extensions?.['code']).toBe('INSUFFICIENT_SCOPE');

    const statusDoc = 'query($request: JSONObject) { clearinghouseClaimStatus(request: $request) { claimId status { categoryCode statusCode } x12 } }';
    const invalid = await t.graphql(statusDoc, { request: { payer: { id: '12345' }, receiver: { name: 'R', id: 'S1' }, provider: { npi: '1234567893', name: 'R' }, subscriber: { member_id: 'W1', last_name: 'D' }, patient_control_number: 'PCN-1002' } }, beta);
    expect(invalid.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'payer.name', message: 'is required' }] });
    const status = await t.graphql<{ clearinghouseClaimStatus: { claimId: string; status: { categoryCode: string }; x12: string } }>(
      statusDoc,
      { request: { payer: { id: '12345', name: 'ACME HEALTH PLAN' }, receiver: { name: 'R', id: 'S1' }, provider: { npi: '1234567893', name: 'R' }, subscriber: { member_id: 'PD5550001', last_name: 'ROE' }, patient_control_number: 'PCN-1002' } },
      beta,
    );
    expect(status.errors).toBeUndefined();
    expect(status.data!.clearinghouseClaimStatus).toMatchObject({ claimId: result.claims[1]!.claimId, status: { categoryCode: 'P1' } });
    expect(x12Lines(status.data!.clearinghouseClaimStatus.x12).find((l) => l.startsWith('STC'))).toMatch(/^STC\*P1:20\*\d{8}\*\*85\.50$/);
  });

  it('lists the routes in the catalog and OpenAPI with their scopes and limits', async () => {
    const catalog = (await t.request({ url: '/api/partner/routes?product=clearinghouse', token: alpha })).json() as {
      routes: { method: string; path: string; scopes: string[]; implemented: boolean; rate_limit: { limit: number; window_seconds: number } | null }[];
    };
    expect(catalog.routes.map((r) => [`${r.method} ${r.path}`, r.scopes, r.rate_limit?.limit, r.rate_limit?.window_seconds, r.implemented])).toEqual([
      ['POST /velocity/v1/clearinghouse/eligibility', ['velocity.clearinghouse.eligibility'], 120, 60, true],
      ['POST /velocity/v1/clearinghouse/claim-status', ['velocity.clearinghouse.claim-status'], 120, 60, true],
      ['POST /velocity/v1/clearinghouse/claims', ['velocity.clearinghouse.claims'], 60, 60, true],
      ['GET /velocity/v1/clearinghouse/claims/{claimId}', ['velocity.clearinghouse.claims', 'velocity.clearinghouse.claim-status'], 120, 60, true],
    ]);
    const openapi = (await t.request({ url: '/api/openapi/clearinghouse.json', token: null })).json() as {
      paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, unknown> }> }>>;
    };
    const eligibility = openapi.paths['/velocity/v1/clearinghouse/eligibility']!['post']!;
    expect(Object.keys(eligibility.requestBody!.content)).toEqual(['application/json', 'application/edi-x12', 'text/plain']);
    expect(Object.keys(eligibility.responses['200']!.content!)).toEqual(['application/json', 'application/edi-x12']);
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/velocity/v1/clearinghouse/claims/{claimId}', '/velocity/v1/clearinghouse/claim-status']));
  });

  it('parses, checks and stores each interchange on the job thread, never on the event loop that serves requests', async () => {
    const before = { eligibility: await jobThreadCalls(t, 'fhir-jobs', 'eligibility'), status: await jobThreadCalls(t, 'fhir-jobs', 'claim-status'), claims: await jobThreadCalls(t, 'fhir-jobs', 'submit-claims'), refused: await jobThreadCalls(t, 'fhir-jobs', 'eligibility', 'error') };
    expect((await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: X12, body: fixture('270-eligibility.x12') })).statusCode).toBe(200);
    expect((await t.request({ method: 'POST', url: `${BASE}/claim-status`, token: alpha, headers: X12, body: fixture('276-claim-status.x12') })).statusCode).toBe(200);
    // A retry of the interchange stored before (200, replayed): still parsed and checked there.
    expect((await t.request({ method: 'POST', url: `${BASE}/claims`, token: alpha, headers: X12, body: fixture('837p-claims.x12') })).statusCode).toBe(200);
    // A refusal crosses back from the thread with its code and segment.
    const invalid = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: alpha, headers: X12, body: fixture('270-eligibility.x12').replace('SE*13', 'SE*14') });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({ code: 'X12_INVALID' });
    expect(await jobThreadCalls(t, 'fhir-jobs', 'eligibility')).toBe(before.eligibility + 1);
    expect(await jobThreadCalls(t, 'fhir-jobs', 'claim-status')).toBe(before.status + 1);
    expect(await jobThreadCalls(t, 'fhir-jobs', 'submit-claims')).toBe(before.claims + 1);
    expect(await jobThreadCalls(t, 'fhir-jobs', 'eligibility', 'error')).toBe(before.refused + 1);
  });
});

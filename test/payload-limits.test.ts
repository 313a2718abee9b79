import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLEARINGHOUSE_JSON_LIMITS, MAX_BUNDLE_ENTRIES, MAX_NDJSON_LINE_LENGTH, MAX_NDJSON_LINES, MAX_WEARABLE_EVENTS, X12_LIMITS } from '@svc/platform';
import type { LightMyRequestResponse } from 'fastify';
import { bootSystem, type TestSystem } from './support/system.js';
import { apiToken, fhir, registerPartner } from './support/fhir.js';
import { claims837p, filler, fillers, paddedTo, segmentsOf, withSegments, x12Fixture } from './support/x12.js';

/**
 * The size and complexity limits of every parser of partner input (platform/src/payload-limits.ts),
 * through HTTP and the GraphQL twin: at each limit the input is accepted, one over it is refused
 * with 413 and the code and `limit` that name it, before the expensive work. The probe inputs of
 * issue #32 (a 270 with 100,000 EQ segments, 20,000 nested HL levels) are refused at once.
 *
 * Accepted asynchronous submissions stay queued: the sync worker pauses a minute after each entry
 * here, so what is accepted costs nothing afterwards.
 */

const X12 = { 'content-type': 'application/edi-x12' };
const BASE = '/velocity/v1/clearinghouse';
const ELIGIBILITY_DOC = 'mutation($x12: String, $request: JSONObject) { clearinghouseEligibility(x12: $x12, request: $request) { coverageStatus } }';
const SUBMIT_DOC = 'mutation($x12: String, $request: JSONObject) { clearinghouseSubmitClaims(x12: $x12, request: $request) { replayed claims { claimId } } }';

type Graphql = { errors?: { message: string; extensions?: Record<string, unknown> }[]; data?: unknown };

/** A REST refusal: status, code and the limit named in `limit` and in the problem's detail. */
function expectRefused(res: LightMyRequestResponse, code: string, limit: { name: string; max: number; field?: string }): void {
  expect(res.statusCode, res.body.slice(0, 500)).toBe(413);
  const problem = res.json();
  expect(problem.code).toBe(code);
  expect(problem.limit).toMatchObject(limit);
  expect(problem.detail).toContain(limit.name);
  expect(problem.detail).toContain(String(limit.max));
}

/** The same refusal on the GraphQL twin: the typed error's code and `limit` extension. */
function expectRefusedOverGraphql(res: Graphql, code: string, limit: { name: string; max: number; field?: string }): void {
  expect(res.errors?.[0]?.extensions, JSON.stringify(res.errors)).toMatchObject({ code, status: 413, limit });
  expect(res.errors![0]!.message).toContain(limit.name);
}

const eligibility = x12Fixture('270-eligibility.x12');
const claims = x12Fixture('837p-claims.x12');

describe('size and complexity limits on partner input, over REST and GraphQL', () => {
  let t: TestSystem;
  let biller: string;
  let writer: string;
  let device: string;

  beforeAll(async () => {
    t = await bootSystem({ SVC_RATE_LIMITS: 'off', SVC_FHIR_SYNC_ENTRY_PAUSE_MS: '60000' });
    const gpid = await registerPartner(t, 'Limits Clinic');
    const grant = await t.request({ method: 'PUT', url: `/cms/partners/${gpid}/scopes`, body: { scopes: ['velocity.clearinghouse.*', 'cms.fhir.r4.read', 'cms.fhir.rest.write', 'cms.fhir.bundle.push', 'cms.tokens.manage', 'pulse.wearables.*'] } });
    expect(grant.statusCode).toBe(200);
    biller = await apiToken(t, gpid, ['velocity.clearinghouse.*']);
    writer = await apiToken(t, gpid, ['cms.fhir.bundle.push', 'cms.fhir.r4.read', 'cms.fhir.rest.write']);
    device = await apiToken(t, gpid, ['pulse.wearables.ingest']);
  });
  afterAll(() => t?.close());

  const eligibilityX12 = (body: string) => t.request({ method: 'POST', url: `${BASE}/eligibility`, token: biller, headers: X12, body });
  const submitX12 = (body: string) => t.request({ method: 'POST', url: `${BASE}/claims`, token: biller, headers: { ...X12, accept: 'application/json' }, body });

  describe('X12 270 (eligibility)', () => {
    const limits = X12_LIMITS['270'];

    it('refuses the probe inputs at once: a 270 with 100,000 EQ segments and one with 20,000 nested HL levels', async () => {
      const manyEq = withSegments(eligibility, 'EQ', Array(100_000).fill('EQ*30'), { replace: true });
      const nested = withSegments(eligibility, 'SE', Array.from({ length: 20_000 }, (_, i) => `HL*${i + 4}*${i + 3}*22*1`));
      for (const body of [manyEq, nested]) {
        // REST reads no more than the route's limit of the body; GraphQL measures the variable first.
        expectRefused(await eligibilityX12(body), 'PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'body' });
        expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: body }, biller), 'PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'x12' });
      }
      // The same shapes within the size limit: 1,000 EQ in one level, a fifth HL level.
      const thousandEq = withSegments(eligibility, 'EQ', Array(1000).fill('EQ*30'), { replace: true });
      expectRefused(await eligibilityX12(thousandEq), 'TOO_MANY_LOOPS', { name: 'x12.eq_per_level', max: 99, field: 'EQ' });
      const deep = withSegments(eligibility, 'SE', Array.from({ length: 2 }, (_, i) => `HL*${i + 4}*${i + 3}*23*0`));
      expectRefused(await eligibilityX12(deep), 'NESTING_TOO_DEEP', { name: 'x12.hl_depth', max: 4, field: 'HL02' });
    });

    it(`takes ${limits.maxBytes} bytes and refuses one more`, async () => {
      const atLimit = paddedTo(eligibility, 'EQ', limits.maxBytes);
      expect((await eligibilityX12(atLimit)).statusCode).toBe(200);
      expect((await t.graphql(ELIGIBILITY_DOC, { x12: atLimit }, biller)).errors).toBeUndefined();
      const over = paddedTo(eligibility, 'EQ', limits.maxBytes + 1);
      expectRefused(await eligibilityX12(over), 'PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'body' });
      expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: over }, biller), 'PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'x12' });
    });

    it(`takes ${limits.maxSegments} segments from ISA to IEA and refuses one more`, async () => {
      const room = limits.maxSegments - segmentsOf(eligibility).length;
      const atLimit = withSegments(eligibility, 'EQ', fillers(room));
      expect((await eligibilityX12(atLimit)).statusCode).toBe(200);
      expect((await t.graphql(ELIGIBILITY_DOC, { x12: atLimit }, biller)).errors).toBeUndefined();
      const over = withSegments(eligibility, 'EQ', fillers(room + 1));
      expectRefused(await eligibilityX12(over), 'TOO_MANY_SEGMENTS', { name: 'x12.segments', max: limits.maxSegments });
      expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: over }, biller), 'TOO_MANY_SEGMENTS', { name: 'x12.segments', max: limits.maxSegments });
    });

    it('takes a segment of 2,048 characters and an element of 512, and refuses one character more', async () => {
      const cases: [string, string, string, { name: string; max: number; field: string }][] = [
        [filler(limits.maxSegmentLength), filler(limits.maxSegmentLength + 1), 'SEGMENT_TOO_LONG', { name: 'x12.segment_length', max: limits.maxSegmentLength, field: 'NTE' }],
        [`NTE*ADD*${'X'.repeat(limits.maxElementLength)}`, `NTE*ADD*${'X'.repeat(limits.maxElementLength + 1)}`, 'ELEMENT_TOO_LONG', { name: 'x12.element_length', max: limits.maxElementLength, field: 'NTE02' }],
      ];
      for (const [fits, over, code, limit] of cases) {
        expect((await eligibilityX12(withSegments(eligibility, 'EQ', [fits]))).statusCode).toBe(200);
        expectRefused(await eligibilityX12(withSegments(eligibility, 'EQ', [over])), code, limit);
        expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: withSegments(eligibility, 'EQ', [over]) }, biller), code, limit);
      }
    });

    it('takes 99 service types in EQ01 and 99 EQ loops in a level, and refuses the 100th of either', async () => {
      const codes = (n: number) => `EQ*${Array(n).fill('30').join('^')}`;
      const repeated = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: biller, headers: { ...X12, accept: 'application/json' }, body: withSegments(eligibility, 'EQ', [codes(99)], { replace: true }) });
      expect(repeated.statusCode).toBe(200);
      expect(repeated.json().benefits[0].service_type_codes).toHaveLength(99);
      const limit = { name: 'x12.repetitions', max: 99, field: 'EQ01' };
      expectRefused(await eligibilityX12(withSegments(eligibility, 'EQ', [codes(100)], { replace: true })), 'TOO_MANY_REPETITIONS', limit);
      expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: withSegments(eligibility, 'EQ', [codes(100)], { replace: true }) }, biller), 'TOO_MANY_REPETITIONS', limit);

      expect((await eligibilityX12(withSegments(eligibility, 'EQ', Array(99).fill('EQ*30'), { replace: true }))).statusCode).toBe(200);
      const loops = withSegments(eligibility, 'EQ', Array(100).fill('EQ*30'), { replace: true });
      expectRefused(await eligibilityX12(loops), 'TOO_MANY_LOOPS', { name: 'x12.eq_per_level', max: 99, field: 'EQ' });
      expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: loops }, biller), 'TOO_MANY_LOOPS', { name: 'x12.eq_per_level', max: 99, field: 'EQ' });
    });

    it(`takes ${limits.maxLevels} HL levels nested ${limits.maxDepth} deep, and refuses one more level or one level deeper`, async () => {
      // HL 1 (payer) > 2 (receiver) > 3 (subscriber) > 4 … 100 (dependents).
      const dependents = (n: number) => Array.from({ length: n }, (_, i) => `HL*${i + 4}*3*23*0`);
      expect((await eligibilityX12(withSegments(eligibility, 'SE', dependents(limits.maxLevels - 3)))).statusCode).toBe(200);
      const tooMany = withSegments(eligibility, 'SE', dependents(limits.maxLevels - 2));
      expectRefused(await eligibilityX12(tooMany), 'TOO_MANY_LOOPS', { name: 'x12.hl_levels', max: limits.maxLevels, field: 'HL' });
      expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: tooMany }, biller), 'TOO_MANY_LOOPS', { name: 'x12.hl_levels', max: limits.maxLevels, field: 'HL' });
      const tooDeep = withSegments(eligibility, 'SE', ['HL*4*3*23*0', 'HL*5*4*23*0']);
      expectRefusedOverGraphql(await t.graphql(ELIGIBILITY_DOC, { x12: tooDeep }, biller), 'NESTING_TOO_DEEP', { name: 'x12.hl_depth', max: limits.maxDepth, field: 'HL02' });
    });

    it('limits the JSON form: 99 service types, 80 characters a text; 422 naming the field', async () => {
      const json = (codes: number, lastName = 'DOE') => ({
        payer: { id: '12345', name: 'ACME HEALTH PLAN' },
        provider: { npi: '1234567893', name: 'RIVERSIDE CLINIC' },
        subscriber: { member_id: 'W123456789', last_name: lastName },
        service_type_codes: Array(codes).fill('30'),
      });
      expect((await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: biller, body: json(CLEARINGHOUSE_JSON_LIMITS.serviceTypeCodes, 'D'.repeat(80)) })).statusCode).toBe(200);
      const over = await t.request({ method: 'POST', url: `${BASE}/eligibility`, token: biller, body: json(CLEARINGHOUSE_JSON_LIMITS.serviceTypeCodes + 1, 'D'.repeat(81)) });
      expect(over.statusCode).toBe(422);
      expect(over.json().errors).toEqual([
        { field: 'subscriber.last_name', message: 'must be at most 80 characters' },
        { field: 'service_type_codes', message: 'must hold at most 99 items (got 100)' },
      ]);
      const graphql = await t.graphql(ELIGIBILITY_DOC, { request: json(CLEARINGHOUSE_JSON_LIMITS.serviceTypeCodes + 1) }, biller);
      expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: [{ field: 'service_type_codes', message: 'must hold at most 99 items (got 100)' }] });
    });
  });

  describe('X12 837P (claims)', () => {
    const limits = X12_LIMITS['837'];

    it('refuses 20,000 nested HL levels at the fourth, though the interchange is within the size', async () => {
      const nested = withSegments(claims, 'SE', Array.from({ length: 20_000 }, (_, i) => `HL*${i + 4}*${i + 3}*22*1`));
      expect(nested.length).toBeLessThan(limits.maxBytes);
      const limit = { name: 'x12.hl_depth', max: limits.maxDepth, field: 'HL02' };
      expectRefused(await submitX12(nested), 'NESTING_TOO_DEEP', limit);
      expectRefusedOverGraphql(await t.graphql(SUBMIT_DOC, { x12: nested }, biller), 'NESTING_TOO_DEEP', limit);
    });

    it(`takes ${limits.maxBytes.toLocaleString('en-US')} bytes and refuses one more`, async () => {
      const atLimit = await submitX12(paddedTo(claims.replaceAll('000000103', '000000301'), 'SE', limits.maxBytes));
      expect(atLimit.statusCode, atLimit.body.slice(0, 300)).toBe(201);
      expect(atLimit.json().claims).toHaveLength(2);
      const over = paddedTo(claims.replaceAll('000000103', '000000302'), 'SE', limits.maxBytes + 1);
      expectRefused(await submitX12(over), 'PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'body' });
      expectRefusedOverGraphql(await t.graphql(SUBMIT_DOC, { x12: over }, biller), 'PAYLOAD_TOO_LARGE', { name: 'x12.bytes', max: limits.maxBytes, field: 'x12' });
    });

    it(`takes ${limits.maxSegments.toLocaleString('en-US')} segments and refuses one more`, async () => {
      const room = limits.maxSegments - segmentsOf(claims).length;
      const atLimit = await submitX12(withSegments(claims.replaceAll('000000103', '000000303'), 'SE', fillers(room)));
      expect(atLimit.statusCode, atLimit.body.slice(0, 300)).toBe(201);
      const over = withSegments(claims.replaceAll('000000103', '000000304'), 'SE', fillers(room + 1));
      expectRefused(await submitX12(over), 'TOO_MANY_SEGMENTS', { name: 'x12.segments', max: limits.maxSegments });
      expectRefusedOverGraphql(await t.graphql(SUBMIT_DOC, { x12: over }, biller), 'TOO_MANY_SEGMENTS', { name: 'x12.segments', max: limits.maxSegments });
    });

    it('takes 100 claims of a subscriber and 50 lines a claim, and refuses the 101st claim and the 51st line', async () => {
      const hundred = await submitX12(claims837p({ subscribers: 1, claimsEach: 100, id: 305 }));
      expect(hundred.statusCode, hundred.body.slice(0, 300)).toBe(201);
      expect(hundred.json().claims).toHaveLength(100);
      const perLevel = { name: 'x12.claims_per_level', max: 100, field: 'CLM' };
      expectRefused(await submitX12(claims837p({ subscribers: 1, claimsEach: 101, id: 306 })), 'TOO_MANY_LOOPS', perLevel);
      expectRefusedOverGraphql(await t.graphql(SUBMIT_DOC, { x12: claims837p({ subscribers: 1, claimsEach: 101, id: 306 }) }, biller), 'TOO_MANY_LOOPS', perLevel);

      const fifty = await submitX12(claims837p({ subscribers: 1, claimsEach: 1, lines: 50, id: 307 }));
      expect(fifty.statusCode, fifty.body.slice(0, 300)).toBe(201);
      const lines = { name: 'x12.lines_per_claim', max: 50, field: 'LX' };
      expectRefused(await submitX12(claims837p({ subscribers: 1, claimsEach: 1, lines: 51, id: 308 })), 'TOO_MANY_LOOPS', lines);
      expectRefusedOverGraphql(await t.graphql(SUBMIT_DOC, { x12: claims837p({ subscribers: 1, claimsEach: 1, lines: 51, id: 308 }) }, biller), 'TOO_MANY_LOOPS', lines);
    });

    it('reads 5,000 claims through to their own checks and refuses the 5,001st; a refusal lists its first 100 problems', async () => {
      // Storing 5,000 claims takes longer than a test should: each claim total is off by a cent, so
      // the reader goes through every claim and refuses the interchange for them, not for the count.
      const offByACent = (lines: number) => (lines * 10 + 0.01).toFixed(2);
      const most = await submitX12(claims837p({ subscribers: 50, claimsEach: 100, id: 309, total: offByACent }));
      expect(most.statusCode).toBe(422);
      const problem = most.json();
      expect(problem).toMatchObject({ code: 'X12_INVALID', x12_error_count: 5000 });
      expect(problem.x12_errors).toHaveLength(100);
      expect(problem.errors).toHaveLength(100);
      expect(problem.detail).toContain('and 4999 more; the first 100 are listed');
      expect(problem.x12_errors[0]).toMatchObject({ segment: 'CLM', element: 'CLM02' });
      // Its rejecting 999 reports the same first 100 (IK3 + IK4 each), and rejects the set.
      const ack = segmentsOf(problem.acknowledgement_999.replaceAll('~', '~\n'));
      expect(ack.filter((s) => s.startsWith('IK3*'))).toHaveLength(100);
      expect(ack).toContain('IK5*R*5');

      const limit = { name: 'x12.claims', max: 5000, field: 'CLM' };
      expectRefused(await submitX12(claims837p({ subscribers: 51, claimsEach: 100, id: 310 })), 'TOO_MANY_LOOPS', limit);
      expectRefusedOverGraphql(await t.graphql(SUBMIT_DOC, { x12: claims837p({ subscribers: 51, claimsEach: 100, id: 310 }) }, biller), 'TOO_MANY_LOOPS', limit);
    });

    it('recognises the retry of an interchange of more claims than one page of stored claims (1,000)', async () => {
      const batch = claims837p({ subscribers: 11, claimsEach: 91, id: 311 });
      const first = await submitX12(batch);
      expect(first.statusCode, first.body.slice(0, 300)).toBe(201);
      expect(first.json().claims).toHaveLength(1001);
      const retry = await submitX12(batch);
      expect(retry.statusCode, retry.body.slice(0, 300)).toBe(200);
      expect(retry.json()).toMatchObject({ replayed: true });
      expect(retry.json().claims.map((c: { claim_id: string }) => c.claim_id)).toEqual(first.json().claims.map((c: { claim_id: string }) => c.claim_id));
    });

    it('limits the JSON form: 100 claims, 50 service lines and 12 diagnoses a claim, 4 modifiers a line', async () => {
      const claim = (i: number, options: { lines?: number; codes?: number; modifiers?: number } = {}) => ({
        patient_control_number: `JSON-${i}`,
        total_charge: ((options.lines ?? 1) * 10).toFixed(2),
        diagnosis_codes: Array(options.codes ?? 1).fill('J06.9'),
        subscriber: { member_id: 'W123456789', last_name: 'DOE' },
        payer: { id: '12345', name: 'ACME HEALTH PLAN' },
        service_lines: Array.from({ length: options.lines ?? 1 }, () => ({ procedure_code: '99213', charge: '10.00', service_date: '2026-11-01', modifiers: Array(options.modifiers ?? 0).fill('25') })),
      });
      const submission = (list: unknown[]) => ({ submitter: { name: 'LIMITS BILLING', id: 'S777' }, receiver: { name: 'ACME HEALTH PLAN', id: '12345' }, billing_provider: { npi: '1234567893', name: 'LIMITS CLINIC', tax_id: '123456789' }, claims: list });
      const most = await t.request({ method: 'POST', url: `${BASE}/claims`, token: biller, body: submission([claim(0, { lines: 50, codes: 12, modifiers: 4 }), ...Array.from({ length: 99 }, (_, i) => claim(i + 1))]) });
      expect(most.statusCode, most.body.slice(0, 300)).toBe(201);
      expect(most.json().claims).toHaveLength(100);
      const over = await t.request({ method: 'POST', url: `${BASE}/claims`, token: biller, body: submission([claim(0, { lines: 51, codes: 13, modifiers: 5 }), ...Array.from({ length: 100 }, (_, i) => claim(i + 1))]) });
      expect(over.statusCode).toBe(422);
      expect(over.json().errors).toEqual(
        expect.arrayContaining([
          { field: 'claims', message: 'must hold at most 100 items (got 101)' },
          { field: 'claims.0.diagnosis_codes', message: 'must hold at most 12 items (got 13)' },
          { field: 'claims.0.service_lines', message: 'must hold at most 50 items (got 51)' },
          { field: 'claims.0.service_lines.0.modifiers', message: 'must hold at most 4 items (got 5)' },
        ]),
      );
      const graphql = await t.graphql(SUBMIT_DOC, { request: submission([claim(0, { lines: 51 })]) }, biller);
      expect(graphql.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', fieldErrors: expect.arrayContaining([{ field: 'claims.0.service_lines', message: 'must hold at most 50 items (got 51)' }]) });
    });
  });

  describe('FHIR Bundles and NDJSON pushes (POST /fhir/R4)', () => {
    const BUNDLE_DOC = 'mutation($b: String!) { fhirBundle(bundleText: $b) { status } }';
    const SUBMIT_JOB_DOC = 'mutation($b: String, $n: String) { fhirSyncSubmit(bundleText: $b, ndjson: $n) { jobId } }';
    const bundle = (type: 'batch' | 'transaction', entries: number) => ({ resourceType: 'Bundle', type, entry: Array.from({ length: entries }, () => ({ request: { method: 'GET', url: 'Patient?_count=1' } })) });
    const entryLimit = { name: 'bundle.entries', max: MAX_BUNDLE_ENTRIES, field: 'Bundle.entry' };

    /** A refusal on a FHIR path: 413 OperationOutcome naming the limit's field and code. */
    function expectOutcome(res: LightMyRequestResponse, field: string): void {
      expect(res.statusCode, res.body.slice(0, 300)).toBe(413);
      const outcome = res.json();
      expect(outcome.resourceType).toBe('OperationOutcome');
      expect(outcome.issue[0]).toMatchObject({ code: 'too-costly', expression: [field], details: { coding: [{ code: 'PAYLOAD_TOO_LARGE' }] } });
      expect(outcome.issue[0].diagnostics).toMatch(/limit (bundle\.entries|ndjson\.lines|ndjson\.line_length)\b/);
    }

    it(`takes ${MAX_BUNDLE_ENTRIES} entries in a Bundle, synchronous or not, batch or transaction, and refuses one more`, async () => {
      for (const type of ['batch', 'transaction'] as const) {
        const sync = await fhir(t, writer, 'POST', '', bundle(type, MAX_BUNDLE_ENTRIES));
        expect(sync.statusCode, sync.body.slice(0, 300)).toBe(200);
        expect(sync.json().entry).toHaveLength(MAX_BUNDLE_ENTRIES);
        expect((await fhir(t, writer, 'POST', '', bundle(type, MAX_BUNDLE_ENTRIES), { prefer: 'respond-async' })).statusCode).toBe(202);
        for (const prefer of [{}, { prefer: 'respond-async' }] as Record<string, string>[]) {
          const over = await fhir(t, writer, 'POST', '', bundle(type, MAX_BUNDLE_ENTRIES + 1), prefer);
          expectOutcome(over, 'Bundle.entry');
          expect(over.json().issue[0].diagnostics).toContain(`at most ${MAX_BUNDLE_ENTRIES} entries`);
        }
        const text = JSON.stringify(bundle(type, MAX_BUNDLE_ENTRIES + 1));
        expectRefusedOverGraphql(await t.graphql(BUNDLE_DOC, { b: text }, writer), 'PAYLOAD_TOO_LARGE', entryLimit);
        expectRefusedOverGraphql(await t.graphql(SUBMIT_JOB_DOC, { b: text }, writer), 'PAYLOAD_TOO_LARGE', entryLimit);
      }
    });

    it(`takes ${MAX_NDJSON_LINES.toLocaleString('en-US')} resources in an NDJSON push and a line of ${MAX_NDJSON_LINE_LENGTH.toLocaleString('en-US')} characters, and refuses more`, async () => {
      const push = (body: string) => t.request({ method: 'POST', url: '/fhir/R4', token: writer, headers: { 'content-type': 'application/fhir+ndjson' }, body });
      const lines = (n: number) => `${Array(n).fill('{"resourceType":"Basic","code":{"text":"limit"}}').join('\n')}\n\n`;
      expect((await push(lines(MAX_NDJSON_LINES))).statusCode).toBe(202);
      const over = await push(lines(MAX_NDJSON_LINES + 1));
      expectOutcome(over, 'body');
      expectRefusedOverGraphql(await t.graphql(SUBMIT_JOB_DOC, { n: lines(MAX_NDJSON_LINES + 1) }, writer), 'PAYLOAD_TOO_LARGE', { name: 'ndjson.lines', max: MAX_NDJSON_LINES, field: 'body' });

      // One resource of exactly the longest line, after a short one.
      const head = '{"resourceType":"Basic","code":{"text":"';
      const long = (length: number) => `${head}${'x'.repeat(length - head.length - 3)}"}}`;
      expect(long(MAX_NDJSON_LINE_LENGTH)).toHaveLength(MAX_NDJSON_LINE_LENGTH);
      expect((await push(`${lines(1)}${long(MAX_NDJSON_LINE_LENGTH)}`)).statusCode).toBe(202);
      const tooLong = `${lines(1)}${long(MAX_NDJSON_LINE_LENGTH + 1)}`;
      expectOutcome(await push(tooLong), 'line 3');
      expectRefusedOverGraphql(await t.graphql(SUBMIT_JOB_DOC, { n: tooLong }, writer), 'PAYLOAD_TOO_LARGE', { name: 'ndjson.line_length', max: MAX_NDJSON_LINE_LENGTH, field: 'line 3' });
    });
  });

  describe('wearable batches', () => {
    const INGEST_DOC = 'mutation($b: JSONObject!) { wearableEventsIngest(product: "pulse", batch: $b) { eventsAccepted } }';
    const at = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const readings = (n: number) => ({ events: Array.from({ length: n }, (_, i) => ({ event_id: `limit-${n}-${i}`, patient_gpid: 'SVC-0FEEDBAC', type: 'heart_rate', value: 60, unit: '/min', effective_time: at })) });

    it(`takes ${MAX_WEARABLE_EVENTS} readings and refuses one more before reading any`, async () => {
      const most = await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', token: device, body: readings(MAX_WEARABLE_EVENTS) });
      expect(most.statusCode, most.body.slice(0, 300)).toBe(202);
      expect(most.json().events_accepted).toBe(MAX_WEARABLE_EVENTS);
      const limit = { name: 'wearables.events', max: MAX_WEARABLE_EVENTS, field: 'events' };
      expectRefused(await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', token: device, body: readings(MAX_WEARABLE_EVENTS + 1) }), 'PAYLOAD_TOO_LARGE', limit);
      expectRefusedOverGraphql(await t.graphql(INGEST_DOC, { b: readings(MAX_WEARABLE_EVENTS + 1) }, device), 'PAYLOAD_TOO_LARGE', limit);
      // Any body over the app's 5 MiB is refused before it is read, naming that limit.
      const huge = JSON.stringify({ events: [], pad: 'x'.repeat(5 * 1024 * 1024) });
      expectRefused(await t.request({ method: 'POST', url: '/pulse/v1/wearables/events', token: device, headers: { 'content-type': 'application/json' }, body: huge }), 'PAYLOAD_TOO_LARGE', { name: 'body.bytes', max: 5 * 1024 * 1024, field: 'body' });
    });
  });

  it('documents each limit on its route: the OpenAPI description and a 413 response', async () => {
    const doc = (await t.request({ url: '/api/openapi/all.json', token: null })).json() as { paths: Record<string, Record<string, { description: string; responses: Record<string, unknown> }>> };
    const described = (path: string, method = 'post') => doc.paths[path]![method]!;
    expect(described(`${BASE}/eligibility`).description).toContain('An X12 270 may be at most 100,000 bytes (x12.bytes');
    expect(described(`${BASE}/eligibility`).description).toContain('99 eligibility or benefit inquiries (EQ) per HL level');
    expect(described(`${BASE}/claims`).description).toContain('5,000 claims (CLM) in all (loop 2300, x12.claims)');
    expect(described(`${BASE}/claims`).description).toContain('at most 100 claims (larger batches go as X12)');
    expect(described('/fhir/R4').description).toContain('at most 1,000 entries (bundle.entries');
    expect(described('/fhir/R4').description).toContain('at most 10,000 resources (ndjson.lines)');
    expect(described('/{wearableProduct}/v1/wearables/events').description).toContain('At most 1,000 readings a batch (wearables.events');
    for (const path of [`${BASE}/eligibility`, `${BASE}/claim-status`, `${BASE}/claims`, '/fhir/R4', '/{wearableProduct}/v1/wearables/events']) expect(Object.keys(described(path).responses)).toContain('413');
  });
});
